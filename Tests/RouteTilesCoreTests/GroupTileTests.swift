import Foundation
@testable import RouteTilesLive
import RouteTilesCoreTestSupport
import RouteTilesModel
import RouteTilesTiling
import RouteTilesGeo
import Testing

/// The tiles of some groups (a reader whose credential reads only those): the features of those groups' routes
/// alone, as a route set of them alone cuts them, and nothing of any other route.
@Suite struct GroupTileTests {
    /// 300 routes (two chunks) in the groups acme, globex and default (no property), some in a layer of their own.
    static func routes() -> [Route] {
        var rng = SeededGenerator(seed: 36)
        return (0..<300).map { i in
            var properties = [Property("name", .string("r\(i)"))]
            switch i % 3 {
            case 0: properties.append(Property("group", .string("acme")))
            case 1: properties.append(Property("group", .string("globex")))
            default: break
            }
            var route = Route(id: .string("r\(i)"), properties: properties,
                              parts: [Sample.track(count: Int.random(in: 2...40, using: &rng),
                                                   lon: 2.3 + Double(i % 17) * 0.004, lat: 48.85 + Double(i / 17) * 0.003,
                                                   step: 0.0006, using: &rng)])
            if i % 7 == 0 { route.layer = "special" }
            return route
        }
    }

    /// A tile's features by layer, comparable (the order of layers may differ between two sets).
    static func features(_ bytes: [UInt8]?) throws -> [String: [String]] {
        guard let bytes else { return [:] }
        var byLayer: [String: [String]] = [:]
        for layer in try VectorTileDecoder.decode(bytes).layers {
            byLayer[layer.name] = layer.features.map { "\($0.id ?? 0) \($0.properties) \($0.geometry)" }
        }
        return byLayer
    }

    @Test(arguments: [GroupScope.only(["acme"]), .only(["globex", "default"]), .only(["default"]), .only(["nobody"])])
    func aGroupsTileHoldsItsRoutesAlone(scope: GroupScope) throws {
        var options = Sample.options(maxZoom: 14)
        options.positionLayer = "positions"
        let routes = Self.routes()
        let all = LiveRouteSet(routes: routes, options: options)
        let mine = routes.filter { scope.contains(RouteGroup.of($0.properties)) }
        let alone = LiveRouteSet(routes: mine, options: options)
        var tiles = Set<TileID>()
        for route in routes { tiles.formUnion(RouteCover.tiles(of: route, options: options)) }
        var checked = 0
        for t in tiles.sorted() {
            let filtered = try all.snapshot.tile(z: t.z, x: t.x, y: t.y, window: nil, groups: scope)
            let expected = try alone.snapshot.tile(z: t.z, x: t.x, y: t.y)
            #expect(try Self.features(filtered) == Self.features(expected), "tile \(t)")
            checked += 1
        }
        #expect(checked > 50)
        // Every group at once is the default tile, byte for byte.
        let t = try #require(tiles.sorted().last)
        #expect(try all.snapshot.tile(z: t.z, x: t.x, y: t.y, window: nil, groups: .all) == all.snapshot.tile(z: t.z, x: t.x, y: t.y))
    }

    @Test func aRouteThatChangesGroupMovesBetweenTheGroupsTiles() throws {
        let options = Sample.options(maxZoom: 12)
        var rng = SeededGenerator(seed: 5)
        let line = Sample.track(count: 30, lon: 2.35, lat: 48.85, step: 0.0006, using: &rng)
        let live = LiveRouteSet(routes: [Route(id: .string("v"), properties: [Property("group", .string("acme"))], parts: [line])],
                                options: options)
        let t = WebMercator.tile(containing: line[0], zoom: 12)
        #expect(try live.snapshot.tile(z: 12, x: t.x, y: t.y, window: nil, groups: .only(["acme"])) != nil)
        #expect(try live.snapshot.tile(z: 12, x: t.x, y: t.y, window: nil, groups: .only(["globex"])) == nil)
        _ = live.apply([.put(Route(id: .string("v"), properties: [Property("group", .string("globex"))], parts: [line]))])
        #expect(try live.snapshot.tile(z: 12, x: t.x, y: t.y, window: nil, groups: .only(["acme"])) == nil)
        #expect(try live.snapshot.tile(z: 12, x: t.x, y: t.y, window: nil, groups: .only(["globex"])) != nil)
        // An append keeps the route's group.
        _ = live.apply([.append(key: "v", points: [Coordinate(longitude: 2.351, latitude: 48.851)])])
        #expect(try live.snapshot.tile(z: 12, x: t.x, y: t.y, window: nil, groups: .only(["globex"])) != nil)
        #expect(try live.snapshot.tile(z: 12, x: t.x, y: t.y, window: nil, groups: .only(["acme"])) == nil)
    }
}
