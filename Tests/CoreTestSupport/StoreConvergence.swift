import Foundation
import RouteTiles
import Testing
import RouteTilesLive


/// Random writes through two servers' syncs over one store (two connections to it, as two replicas have), then
/// checks that both serve exactly the tiles of one tiler over the store's routes, in their order.
package enum StoreConvergence {
    package struct Outcome {
        package var tilesCompared = 0
        package var mismatches: [String] = []
        package var writes = 0
    }

    package static let options = Sample.options(maxZoom: 15)

    /// `run`s over two connections to one store, expects the replicas to agree on more than 60 tiles, then closes
    /// both connections.
    package static func expectConvergence(_ storeA: any RouteStore, _ storeB: any RouteStore, seed: UInt64,
                                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let outcome = try await run(storeA, storeB, seed: seed)
        #expect(outcome.mismatches.isEmpty, "\(outcome.mismatches.prefix(5))", sourceLocation: sourceLocation)
        #expect(outcome.tilesCompared > 60, sourceLocation: sourceLocation)
        await storeA.close()
        await storeB.close()
    }

    package static func run(_ storeA: any RouteStore, _ storeB: any RouteStore, seed: UInt64, steps: Int = 60) async throws -> Outcome {
        let (a, _) = try await LiveRouteSync.open(store: storeA, options: options)
        let (b, _) = try await LiveRouteSync.open(store: storeB, options: options)
        var rng = SeededGenerator(seed: seed)
        var written: [Route] = []
        let keys = (0..<8).map { "r\($0)" }
        var outcome = Outcome()
        func line(_ count: Int) -> [Coordinate] {
            Sample.track(count: count, lon: .random(in: 2.25...2.4, using: &rng), lat: .random(in: 48.8...48.9, using: &rng),
                         step: 0.001, using: &rng)
        }
        for step in 0..<steps {
            let sync = Bool.random(using: &rng) ? a : b
            let key = keys.randomElement(using: &rng) ?? "r0"
            let write: RouteWrite
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...2:
                let route = Route(id: .string(key), properties: [Property("step", .int(Int64(step)))], parts: [line(30)])
                written.append(route)
                write = .put([route])
            case 3:
                // No id: the store numbers it.
                let route = Route(properties: [Property("name", .string("numbered \(step)"))], parts: [line(20)])
                written.append(route)
                write = .put([route])
            case 4:
                let route = Route(properties: [Property("step", .int(Int64(step)))], parts: [line(25), line(10)])
                written.append(route)
                write = .replace(key: key, route: route)
            case 5, 6:
                write = .remove(key: key)
            default:
                // The store keeps the positions; the live set holds them only projected.
                var current: Route?
                if case let .route(row)? = try await sync.store.rows([key])[key] { current = row.route }
                let last = current?.parts.last?.last ?? Coordinate(longitude: 2.3, latitude: 48.85)
                let points = Sample.track(count: 8, lon: last.longitude, lat: last.latitude, step: 0.001, using: &rng)
                if var route = current {
                    route.parts[route.parts.count - 1] += points
                    written.append(route)
                }
                write = .append(key: key, points: points)
            }
            _ = try await sync.write(write)
            outcome.writes += 1
            if Int.random(in: 0..<4, using: &rng) == 0 { try await (sync === a ? b : a).catchUp() }
        }
        try await a.catchUp()
        try await b.catchUp()
        let snapshot = try await storeA.loadAll()
        let truth = RouteTiler(routes: snapshot.routes.map(\.route), options: options)
        if a.routes.keys != snapshot.routes.map(\.key) { outcome.mismatches.append("A's order \(a.routes.keys) != \(snapshot.routes.map(\.key))") }
        if b.routes.keys != snapshot.routes.map(\.key) { outcome.mismatches.append("B's order \(b.routes.keys) != \(snapshot.routes.map(\.key))") }
        var tiles = Set<TileID>()
        for route in written + snapshot.routes.map(\.route) { tiles.formUnion(RouteCover.tiles(of: route, options: options)) }
        for t in tiles.sorted(by: { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }) {
            let expected = try truth.tile(z: t.z, x: t.x, y: t.y)
            if try a.routes.snapshot.tile(z: t.z, x: t.x, y: t.y) != expected { outcome.mismatches.append("A \(t)") }
            if try b.routes.snapshot.tile(z: t.z, x: t.x, y: t.y) != expected { outcome.mismatches.append("B \(t)") }
            outcome.tilesCompared += 1
        }
        return outcome
    }
}
