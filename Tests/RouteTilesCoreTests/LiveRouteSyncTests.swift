import Foundation
import RouteTiles
import Testing
import RouteTilesCoreTestSupport

/// Servers kept in step with a route store: every replica ends with the tiles of one tiler over the store's routes.
@Suite struct LiveRouteSyncTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func twoReplicasOverOneMemoryStoreConverge(seed: UInt64) async throws {
        let store = MemoryRouteStore()
        try await StoreConvergence.expectConvergence(store, store, seed: seed)
    }

    @Test(arguments: [4, 5, 6] as [UInt64])
    func twoReplicasOverOneSQLiteFileConverge(seed: UInt64) async throws {
        let folder = try TemporaryFolder()
        let a = try SQLiteRouteStore(path: folder.path("routes.db"))
        let b = try SQLiteRouteStore(path: folder.path("routes.db"))
        try await StoreConvergence.expectConvergence(a, b, seed: seed)
    }

    /// A route deleted and created again joins the order at its new creation on every replica, even one that reads
    /// the older changes only after the re-creation.
    @Test func aRecreatedRouteTakesItsNewPlace() async throws {
        let store = MemoryRouteStore()
        let (writer, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let (reader, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let line = [Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.31, latitude: 48.81)]
        _ = try await writer.write(.put([Route(id: .string("a"), parts: [line]), Route(id: .string("b"), parts: [line])]))
        _ = try await writer.write(.remove(key: "a"))
        _ = try await writer.write(.put([Route(id: .string("c"), parts: [line])]))
        _ = try await writer.write(.put([Route(id: .string("a"), parts: [line])]))
        #expect(writer.routes.keys == ["b", "c", "a"])
        try await reader.catchUp()
        #expect(reader.routes.keys == ["b", "c", "a"])
        #expect(reader.status.applied == 5)
    }

    /// An append whose base is the version held is applied from its points, without reading the route; one that is
    /// not (the reader missed a change) reads the route as it is.
    @Test func appendsApplyFromTheirPointsOrFromTheRow() async throws {
        let store = MemoryRouteStore()
        let (writer, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let (reader, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let p = (0..<6).map { Coordinate(longitude: 2.3 + Double($0) * 0.01, latitude: 48.8) }
        _ = try await writer.write(.put([Route(id: .string("t"), parts: [Array(p[0..<2])])]))
        try await reader.catchUp()
        _ = try await writer.write(.append(key: "t", points: [p[2]]))
        _ = try await writer.write(.append(key: "t", points: [p[3], p[4]]))
        let applied = try #require(try await reader.catchUp())
        #expect(applied.changeCount == 2 && reader.routes.pointCount(of: "t") == 5)
        guard case let .route(row)? = try await store.rows(["t"])["t"] else { throw StoreError(path: "t", message: "gone") }
        #expect(row.route.parts == [Array(p[0..<5])], "the store keeps the positions as appended")
        #expect(reader.version(of: "t") == 3)
        // Appending to a missing route or a set of points writes nothing.
        guard case .notFound = try await writer.write(.append(key: "none", points: [p[5]])) else {
            Issue.record("an append to a missing route was not refused")
            return
        }
        _ = try await writer.write(.put([Route(id: .string("m"), parts: [[p[0]], [p[1]]], kind: .point)]))
        guard case .notALine = try await writer.write(.append(key: "m", points: [p[5]])) else {
            Issue.record("an append to points was not refused")
            return
        }
        #expect(try await store.newestSequence() == 4)
    }

    /// A reader that falls behind further than the feed keeps loads everything again and ends in the same state.
    @Test func aReaderBehindPrunedChangesReloads() async throws {
        let store = MemoryRouteStore(retainedChanges: 64)
        let (writer, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let (reader, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let line = [Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.31, latitude: 48.81)]
        _ = try await writer.write(.put([Route(id: .string("gone"), parts: [line])]))
        try await reader.catchUp()
        for i in 0..<200 {
            _ = try await writer.write(.replace(key: "k\(i % 3)", route: Route(properties: [Property("i", .int(Int64(i)))], parts: [line])))
        }
        _ = try await writer.write(.remove(key: "gone"))
        try await reader.catchUp()
        #expect(reader.routes.keys.sorted() == writer.routes.keys.sorted())
        #expect(reader.routes.routeWithoutPositions("k1")?.properties == writer.routes.routeWithoutPositions("k1")?.properties)
        #expect(reader.status.applied == writer.status.applied)
    }

    /// An operator prunes old changes from a SQLite store with plain SQL: a reader that still needed them loads
    /// everything again (a gap left by nothing but pruning is told from the feed's normal order), one that did not
    /// goes on reading the feed.
    @Test func aReaderBehindChangesPrunedBySQLReloads() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        let store = try SQLiteRouteStore(path: path)
        let (writer, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let (behind, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let line = [Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.31, latitude: 48.81)]
        _ = try await writer.write(.put([Route(id: .string("gone"), parts: [line]), Route(id: .string("kept"), parts: [line])]))
        try await behind.catchUp()
        // Changes that are the only ones of their routes: pruned, they leave no trace in the changes kept.
        _ = try await writer.write(.remove(key: "gone"))
        _ = try await writer.write(.put([Route(id: .string("new"), parts: [line])]))
        for i in 0..<20 {
            _ = try await writer.write(.replace(key: "k\(i % 4)", route: Route(properties: [Property("i", .int(Int64(i)))], parts: [line])))
        }
        let (upToDate, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let db = try SQLiteDatabase(path: path, readOnly: false)
        try db.execute("DELETE FROM route_changes WHERE seq <= 15")
        db.close()
        _ = try await writer.write(.append(key: "kept", points: [Coordinate(longitude: 2.32, latitude: 48.82)]))
        let reloaded = try #require(try await behind.catchUp())
        #expect(reloaded.change.keys.contains("gone") && reloaded.change.keys.contains("new"))
        #expect(behind.routes.keys.sorted() == writer.routes.keys.sorted())
        #expect(behind.routes.routeWithoutPositions("k3")?.properties == writer.routes.routeWithoutPositions("k3")?.properties)
        #expect(behind.routes.pointCount(of: "kept") == 3)
        #expect(behind.status.applied == writer.status.applied)
        // The reader that needed none of the pruned changes reads just the new one.
        let applied = try #require(try await upToDate.catchUp())
        #expect(applied.changeCount == 1 && upToDate.routes.pointCount(of: "kept") == 3)
        await store.close()
    }

    /// A route deleted and created again among changes that were pruned takes its new place on the reader that
    /// reloads, as on a server started now, so both cut the same bytes.
    @Test func aReloadPutsARecreatedRouteInItsNewPlace() async throws {
        let store = MemoryRouteStore(retainedChanges: 8)
        let (writer, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let (reader, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        let line = [Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.31, latitude: 48.81)]
        _ = try await writer.write(.put(["a", "b", "c"].map { Route(id: .string($0), parts: [line]) }))
        try await reader.catchUp()
        _ = try await writer.write(.remove(key: "a"))
        _ = try await writer.write(.put([Route(id: .string("a"), parts: [line])]))
        for i in 0..<20 {
            _ = try await writer.write(.replace(key: "b", route: Route(properties: [Property("i", .int(Int64(i)))], parts: [line])))
        }
        try await reader.catchUp()
        let (fresh, _) = try await LiveRouteSync.open(store: store, options: StoreConvergence.options)
        #expect(fresh.routes.keys == ["b", "c", "a"])
        #expect(reader.routes.keys == fresh.routes.keys)
        #expect(reader.status.applied == writer.status.applied)
        let tile = WebMercator.tile(containing: Coordinate(longitude: 2.305, latitude: 48.805), zoom: 12)
        #expect(try reader.routes.snapshot.tile(z: tile.z, x: tile.x, y: tile.y) == fresh.routes.snapshot.tile(z: tile.z, x: tile.x, y: tile.y))
    }

    /// Loading the same files twice writes nothing the second time; numbered routes keep their numbers.
    @Test func loadingTheSameRoutesAgainChangesNothing() async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteRouteStore(path: folder.path("r.db"))
        let routes = Sample.parisRoutes(count: 3, points: 50).map { route -> Route in
            var r = route
            r.id = nil
            return r
        } + [Route(id: .number(7), properties: [Property("n", .double(2.5))], parts: Sample.parisRoutes(count: 1).first?.parts ?? [])]
        let first = try await RouteStoreImport.load(routes, into: store)
        #expect(first.added == 4 && first.unchanged == 0)
        let sequence = try await store.newestSequence()
        let second = try await RouteStoreImport.load(routes, into: store)
        #expect(second.added == 0 && second.replaced == 0 && second.unchanged == 4)
        #expect(try await store.newestSequence() == sequence)
        let keys = try await store.loadAll().routes.map(\.key)
        #expect(keys == ["8", "9", "10", "7"])
        // Route 7 alone: the numbered routes 8 to 10 are not in it, and go.
        let pruned = try await RouteStoreImport.load(Array(routes.suffix(1)), into: store, prune: true)
        #expect(pruned.removed == 3 && pruned.unchanged == 1)
        await store.close()
    }

    /// A SQLite file that is not a route store is never written into.
    @Test func aTilesetIsNotTakenForAStore() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("x.mbtiles")
        let store = try MBTilesStore(destination: URL(fileURLWithPath: path), replace: false)
        try store.putMetadata(TilesetMetadata(name: "x", tiler: RouteTiler(routes: Sample.parisRoutes(count: 1), options: Sample.options(maxZoom: 2))))
        try store.commit()
        #expect(throws: StoreError.self) { try SQLiteRouteStore(path: path) }
        #expect(throws: StoreError.self) { try SQLiteRouteStore(path: folder.path("missing.db"), create: false) }
    }
}
