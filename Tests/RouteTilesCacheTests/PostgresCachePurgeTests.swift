import Foundation
import RouteTiles
@testable import RouteTilesPostgres
@testable import RouteTilesSeed
@testable import RouteTilesServer
import Testing
@testable import RouteTilesLive
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Replicas over PostgreSQL behind Varnish: replica A purges the cache in front of it for every change it applies,
/// whoever made it. A write through A's API, an UPDATE made with psql, and a write through replica B are each fresh
/// through Varnish within a second, and the tiles they did not touch stay cached.
@Suite(.enabled(if: ExternalTool.required(PostgresCluster.installed && VarnishCache.installed),
                "needs PostgreSQL with PostGIS and varnishd"),
       .serialized, .heavy(limit: .seconds(300)))
struct PostgresCachePurgeTests {
    static let options = Sample.options(minZoom: 9, maxZoom: 14)

    @Test func writesThroughTheAPISQLAndAnotherReplicaAreFreshThroughVarnishWithinASecond() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let url = try await cluster.newDatabase()
        let database = PostgresCluster.database(of: url)
        let storeA = try await PostgresRouteStore.open(url: url, create: true, timeout: .seconds(60))
        let storeB = try await PostgresRouteStore.open(url: url, create: true, timeout: .seconds(60))
        let routes = Sample.parisRoutes(count: 3, points: 80)
        _ = try await RouteStoreImport.load(routes, into: storeA)
        let (syncA, _) = try await LiveRouteSync.open(store: storeA, options: Self.options)
        let (syncB, _) = try await LiveRouteSync.open(store: storeB, options: Self.options)
        var tiles = Set<TileID>()
        for route in routes { tiles.formUnion(RouteCover.tiles(of: route, options: Self.options)) }
        let cover = tiles.sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }

        try await CacheFront.with(sync: syncA) { front in
            try await TestServer.with(.live(syncB), configure: { $0.writeToken = CacheFront.token }) { replicaB in
                let events = try await EventStreamReader(url: front.origin.base + "/events")
                defer { events.close() }
                #expect(try await events.next()?.name == "hello")
                let writes: [(String, () async throws -> Bool)] = [
                    ("the API of A", {
                        try await front.append("100", CachePurgeTests.positions(after: 0)).status == 200
                    }),
                    ("psql", {
                        try await cluster.psql(database, """
                            UPDATE routes SET geom = ST_GeomFromText('LINESTRING(2.3 48.85, 2.3012 48.8506, 2.3031 48.8511)', 4326)
                            WHERE id = '101'
                            """)
                        return true
                    }),
                    ("the API of replica B", {
                        let body = Array("[[2.3301,48.8601],[2.3312,48.8609]]".utf8)
                        return try await replicaB.request(.POST, "/routes/102/points", headers: CacheFront.auth,
                                                          body: body).status == 200
                    }),
                ]
                for (who, write) in writes {
                    let before = try await CachePurgeTests.warm(cover, through: front)
                    #expect(try await write(), "the write through \(who) failed")
                    let written = Date()
                    let changed = try await CachePurgeTests.changedTiles(events)
                    let cachedAndChanged = cover.filter { changed.contains($0) }
                    #expect(!cachedAndChanged.isEmpty, "\(who) changed no cached tile")
                    for tile in cachedAndChanged {
                        let left = max(0, 1 - Date().timeIntervalSince(written))
                        #expect(try await front.cacheServesCurrent(tile, within: left),
                                "\(tile) is stale through Varnish after a write through \(who)")
                    }
                    for tile in cover where !changed.contains(tile) {
                        let reply = try await front.cache.get(CacheFront.path(tile))
                        #expect(CacheFront.isHit(reply) && reply.header("ETag") == before[tile],
                                "\(tile) was untouched by \(who) but is no longer cached")
                    }
                }
            }
        }
        await storeA.close()
        await storeB.close()
    }
}
