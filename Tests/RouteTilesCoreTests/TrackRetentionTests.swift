import Foundation
import RouteTiles
import Testing
import RouteTilesCoreTestSupport

/// Live tracks bounded to their last N positions (`TrackRetention`): trims go through the store as writes, keep
/// the newest positions in order and the route's last fix, reach every replica, and invalidate like any change.
@Suite struct TrackRetentionTests {
    static func c(_ i: Int) -> Coordinate { Coordinate(longitude: 2.3 + Double(i) * 1e-4, latitude: 48.85 + Double(i % 7) * 1e-5) }

    @Test func trimmingKeepsTheLastPositionsAcrossParts() {
        let route = Route(id: .string("r"), parts: [(0..<5).map(Self.c), (5..<8).map(Self.c)])
        #expect(TrackRetention.trimmed(route, keeping: 8) == nil)
        // Keeping 4: the last part's 3, and of the first part 1 position, which makes no line and is dropped.
        #expect(TrackRetention.trimmed(route, keeping: 4)?.parts == [(5..<8).map(Self.c)])
        #expect(TrackRetention.trimmed(route, keeping: 5)?.parts == [(3..<5).map(Self.c), (5..<8).map(Self.c)])
        #expect(TrackRetention.trimmed(route, keeping: 2)?.parts == [(6..<8).map(Self.c)])
        let points = Route(id: .string("p"), parts: [[Self.c(0)], [Self.c(1)], [Self.c(2)]], kind: .point)
        #expect(TrackRetention.trimmed(points, keeping: 2) == nil)
        let retention = TrackRetention(maxPoints: 100)
        #expect(retention.limit(for: []) == 100)
        #expect(retention.limit(for: [Property("max_points", .int(40))]) == 40)
        #expect(retention.limit(for: [Property("max_points", .string("forty"))]) == 100)
        #expect(TrackRetention().limit(for: []) == nil)
        #expect(!TrackRetention.isDue(count: 116, limit: 100) && TrackRetention.isDue(count: 117, limit: 100))
    }

    @Test(arguments: ["memory", "sqlite"])
    func appendsPastTheBoundAreTrimmedThroughTheStore(kind: String) async throws {
        let folder = try TemporaryFolder()
        let store: any RouteStore = kind == "memory" ? MemoryRouteStore() : try SQLiteRouteStore(path: folder.path("routes.db"))
        var options = Sample.options(minZoom: 10, maxZoom: 13)
        options.positionLayer = "positions"
        options.routeLength = false
        _ = try await store.commit(.put([Route(id: .string("van"), parts: [(0..<10).map(Self.c)]),
                                         Route(id: .string("bus"), properties: [Property("max_points", .int(30))],
                                               parts: [(0..<10).map(Self.c)]),
                                         Route(id: .string("bike"), properties: [Property("max_points", .int(1_000))],
                                               parts: [(0..<10).map(Self.c)])]))
        let (sync, _) = try await LiveRouteSync.open(store: store, options: options, retention: TrackRetention(maxPoints: 60))
        for i in 10..<160 {
            for key in ["van", "bus", "bike"] {
                _ = try await sync.write(.append(key: key, points: [Self.c(i)]))
            }
        }
        // Trims are writes of their own, after the appends' answers: wait (bounded) until the last ones are committed
        // and applied. The bound is wide: in a full run on 2 cores, a trim's application waits its turn on the one
        // queue where every sync of the test process applies large changes, behind other tests' routes across the
        // world.
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline, sync.trimsInFlight > 0 || (sync.routes.pointCount(of: "van") ?? 0) > 60 + 16
                || (sync.routes.pointCount(of: "bus") ?? 0) > 30 + 16 {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(sync.trimsInFlight == 0, "trims still in flight after 300 s")
        let rows = try await store.rows(["van", "bus", "bike"])
        func held(_ key: String) -> StoredRoute? { if case let .route(r)? = rows[key] { return r }; return nil }
        let van = try #require(held("van")), bus = try #require(held("bus")), bike = try #require(held("bike"))
        // Within the bound and its slack, the newest positions, in order, ending with the last fix.
        #expect((60...76).contains(van.route.pointCount), "\(van.route.pointCount)")
        #expect(van.route.parts[0] == Array((0..<160).map(Self.c).suffix(van.route.pointCount)))
        #expect((30...46).contains(bus.route.pointCount), "\(bus.route.pointCount)")
        #expect(bus.route.parts[0].last == Self.c(159))
        #expect(bike.route.pointCount == 160, "its own bound is 1,000")
        #expect(van.lastFix != nil, "a trim keeps the time of the last fix")
        // The live routes are the store's, tile for tile.
        let truth = RouteTiler(routes: [van.route, bus.route, bike.route], options: options)
        #expect(sync.routes.pointCount(of: "van") == van.route.pointCount)
        for tile in truth.cover() where tile.z == 13 {
            let live = try #require(try sync.routes.snapshot.tile(z: tile.z, x: tile.x, y: tile.y))
            let routesLayer = try VectorTileDecoder.decode(live).layer(named: "routes")
            let expected = try VectorTileDecoder.decode(try #require(try truth.tile(z: tile.z, x: tile.x, y: tile.y))).layer(named: "routes")
            #expect(routesLayer?.features.map(\.geometry.points) == expected?.features.map(\.geometry.points), "\(tile)")
        }
        // A replica started now holds the same routes.
        let (replica, _) = try await LiveRouteSync.open(store: store, options: options)
        #expect(replica.routes.pointCount(of: "van") == van.route.pointCount)
        // The trims are in the feed as updates.
        let feed = try await store.changes(after: 0, limit: 10_000)
        #expect(feed.contains { $0.key == "van" && $0.operation == .update })
        await store.close()
    }
}
