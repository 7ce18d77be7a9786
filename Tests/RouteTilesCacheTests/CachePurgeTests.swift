import AsyncHTTPClient
import Foundation
import RouteTiles
import RouteTilesPurge
@testable import RouteTilesSeed
@testable import RouteTilesServer
import Synchronization
import Testing
@testable import RouteTilesLive
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// A real Varnish in front of a live server, configured with the shipped Docs/varnish/routetiles.vcl, and the
/// server's purger telling it of every change: changed tiles are fresh through the cache within a second, the
/// others stay cached; a cache that is down gets its purges when it is back; a seed through the cache counts hits,
/// and the change follower re-warms exactly the purged tiles.
@Suite(.enabled(if: ExternalTool.required(VarnishCache.installed), "varnishd is not installed (apt-get install varnish)"),
       .serialized, .timeLimit(.minutes(5)))
struct CachePurgeTests {
    static let routes = Sample.parisRoutes(count: 3, points: 80)

    /// Every tile of the routes' covers.
    static var cover: [TileID] {
        var tiles = Set<TileID>()
        for route in routes { tiles.formUnion(RouteCover.tiles(of: route, options: TestServer.options())) }
        return tiles.sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }
    }

    /// Positions that extend route `index` a little past its end.
    static func positions(after index: Int, count: Int = 4) -> [(Double, Double)] {
        let last = routes[index].parts[0].last ?? Coordinate(longitude: 2.3, latitude: 48.85)
        return (1...count).map { (last.longitude + Double($0) * 0.0005, last.latitude + Double($0) * 0.0003) }
    }

    /// Fetches every tile through the cache (storing them there); their ETags.
    static func warm(_ tiles: [TileID], through front: CacheFront) async throws -> [TileID: String] {
        var tags: [TileID: String] = [:]
        for tile in tiles {
            let reply = try await front.cache.get(CacheFront.path(tile))
            #expect(reply.status == 200 || reply.status == 204)
            tags[tile] = reply.header("ETag") ?? ""
        }
        return tags
    }

    /// The tiles of the next `change` event.
    static func changedTiles(_ events: EventStreamReader) async throws -> Set<TileID> {
        let change = try #require(try await events.next(within: 30))
        #expect(change.name == "change")
        return Set(ChangeFollower.tiles(inChange: change.data))
    }

    /// Waits up to `seconds` for `condition`.
    static func eventually(_ seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
        try await RouteTilesCoreTestSupport.eventually(within: seconds, condition)
    }

    @Test func anAppendIsFreshThroughVarnishWithinASecondAndUntouchedTilesStayHits() async throws {
        try await CacheFront.with(routes: Self.routes) { front in
            let tiles = Self.cover
            let before = try await Self.warm(tiles, through: front)
            let events = try await EventStreamReader(url: front.origin.base + "/events")
            defer { events.close() }
            #expect(try await events.next()?.name == "hello")

            let written = try await front.append("101", Self.positions(after: 1))
            let acknowledged = Date()
            #expect(written.status == 200)
            let changed = try await Self.changedTiles(events)
            let cachedAndChanged = tiles.filter { changed.contains($0) }
            #expect(!cachedAndChanged.isEmpty)
            for tile in cachedAndChanged {
                let current = try await front.origin.get(CacheFront.path(tile))
                #expect(current.header("ETag") != before[tile], "\(tile) did not change at the origin")
                let left = max(0, 1 - Date().timeIntervalSince(acknowledged))
                #expect(try await front.cacheServesCurrent(tile, within: left), "\(tile) is stale through Varnish")
            }
            for tile in tiles where !changed.contains(tile) {
                let reply = try await front.cache.get(CacheFront.path(tile))
                #expect(CacheFront.isHit(reply), "\(tile), untouched, is no longer cached: \(reply.header("X-Varnish") ?? "")")
                #expect(reply.header("ETag") == before[tile])
            }
            // One purge per changed tile, all answered by Varnish.
            #expect(try await Self.eventually(30) {
                try await front.metric("routetiles_purged_tiles_total") == Double(changed.count)
            })
            #expect(try await front.metric("routetiles_purge_refused_total") == 0)
        }
    }

    @Test func writesGoOnWhileVarnishIsDownAndNothingItServesAfterwardsIsStale() async throws {
        var settings = CachePurger.Settings()
        settings.timeout = .milliseconds(300)
        settings.firstBackoff = .milliseconds(50)
        settings.maxBackoff = .milliseconds(200)
        try await CacheFront.with(routes: Self.routes, settings: settings) { front in
            let tiles = Self.cover
            _ = try await Self.warm(tiles, through: front)
            // Paused (SIGSTOP): it keeps its objects, accepts connections and answers nothing.
            try front.varnish.pause()
            for (index, id) in ["100", "101", "102"].enumerated() {
                let written = try await front.append(id, Self.positions(after: index))
                #expect(written.status == 200)
            }
            #expect(try await Self.eventually(30) { try await front.metric("routetiles_purge_retries_total") > 0 })
            try front.varnish.resume()
            #expect(try await Self.eventually(30) { front.purger.queuedTiles == 0 })
            for tile in tiles {
                #expect(try await front.cacheServesCurrent(tile, within: 1), "\(tile) is stale after Varnish resumed")
            }

            // Stopped: connections are refused while the writes go on.
            await front.varnish.stopDetached()
            let retried = try await front.metric("routetiles_purge_retries_total")
            for (index, id) in ["100", "101"].enumerated() {
                #expect(try await front.append(id, Self.positions(after: index, count: 2)).status == 200)
            }
            #expect(try await Self.eventually(30) { try await front.metric("routetiles_purge_retries_total") > retried })
            try await front.varnish.startDetached()
            #expect(try await Self.eventually(30) { front.purger.queuedTiles == 0 })
            for tile in tiles {
                #expect(try await front.cacheServesCurrent(tile, within: 1), "\(tile) is stale after Varnish restarted")
            }
        }
    }

    @Test func pastItsQueueLimitThePurgerBansEveryTileSoNoneStaysStale() async throws {
        var settings = CachePurger.Settings()
        settings.queueLimit = 1
        try await CacheFront.with(routes: Self.routes, settings: settings) { front in
            let tiles = Self.cover
            _ = try await Self.warm(tiles, through: front)
            #expect(try await front.append("100", Self.positions(after: 0)).status == 200)
            #expect(try await Self.eventually(30) { try await front.metric("routetiles_purge_bans_total") == 1 })
            #expect(try await front.metric("routetiles_purge_queue_overflows_total") == 1)
            for tile in tiles {
                let reply = try await front.cache.get(CacheFront.path(tile))
                #expect(!CacheFront.isHit(reply), "\(tile) survived the ban")
                #expect(try await front.cacheServesCurrent(tile, within: 1))
            }
        }
    }

    @Test func aSeedRepeatedThroughVarnishIsAllHitsAndTheFollowerRewarmsExactlyThePurgedTiles() async throws {
        try await CacheFront.with(routes: Self.routes) { front in
            let tiles = Self.cover
            let seeder = HTTPSeeder(template: try TileURLTemplate(front.cache.base + "/tiles/{z}/{x}/{y}.mvt"))
            let first = await seeder.run(tiles, client: TestServer.client, checkpoint: nil)
            #expect(first.failed.isEmpty && first.succeeded == tiles.count)
            #expect(first.cacheHits == 0)
            let second = await seeder.run(tiles, client: TestServer.client, checkpoint: nil)
            #expect(second.succeeded == tiles.count && second.cacheHits == tiles.count, "\(second.summary)")

            var follower = ChangeFollower(eventsURL: front.origin.base + "/events", seeder: seeder)
            follower.seconds = 60
            // Well after the server's purge, even on a loaded machine.
            follower.delay = .seconds(2)
            let (connected, ready) = AsyncStream.makeStream(of: Void.self)
            let warmed = Mutex<[TileID]>([])
            let following = Task {
                await follower.run(client: TestServer.client, connected: { ready.yield() },
                                   warmed: { tile, _ in warmed.withLock { $0.append(tile) } })
            }
            var waitForConnection = connected.makeAsyncIterator()
            _ = await waitForConnection.next()
            let events = try await EventStreamReader(url: front.origin.base + "/events")
            defer { events.close() }
            #expect(try await events.next()?.name == "hello")
            #expect(try await front.append("102", Self.positions(after: 2)).status == 200)
            let changed = try await Self.changedTiles(events)
            #expect(try await Self.eventually(30) { warmed.withLock { $0.count } >= changed.count })
            // Nothing more comes for the first change: a second one, which the follower takes after it, is warmed
            // in its turn, and what was warmed before it is exactly the first change's tiles, each once.
            #expect(try await front.append("101", Self.positions(after: 1)).status == 200)
            let changedNext = try await Self.changedTiles(events)
            #expect(try await Self.eventually(30) { warmed.withLock { $0.count } >= changed.count + changedNext.count })
            following.cancel()
            let report = await following.value
            let requested = warmed.withLock { $0 }
            #expect(requested.count == changed.count + changedNext.count)
            #expect(requested.count == Set(requested[..<changed.count]).count + changedNext.count
                    && Set(requested[..<changed.count]) == changed && Set(requested[changed.count...]) == changedNext)
            #expect(report.changes == 2 && report.seed.failed.isEmpty)
            // The re-warmed tiles are cached, with the new bytes.
            for tile in changed.union(changedNext) {
                let reply = try await front.cache.get(CacheFront.path(tile))
                #expect(CacheFront.isHit(reply), "\(tile) was not re-warmed")
                let current = try await front.origin.get(CacheFront.path(tile))
                #expect(CacheFront.strong(reply.header("ETag")) == current.header("ETag"))
            }
        }
    }

    @Test func varnishRevalidatesAnExpiredTileWithIfNoneMatchAndTheOriginAnswers304() async throws {
        try await CacheFront.with(routes: Self.routes, configure: { $0.cacheControl = "public, max-age=1" }) { front in
            let tile = try #require(Self.cover.last)
            let first = try await front.cache.get(CacheFront.path(tile))
            #expect(first.status == 200 && first.header("Cache-Control") == "public, max-age=1")
            // Once it expires (max-age=1), and is kept (beresp.keep), Varnish asks the origin with If-None-Match, which
            // answers 304: asked again until the origin has counted one, each answer the same tile.
            var answers: [TestServer.Reply] = []
            let revalidated = try await Self.eventually(30) {
                answers.append(try await front.cache.get(CacheFront.path(tile)))
                return try await front.metric(#"routetiles_http_requests_total{status="304"}"#) >= 1
            }
            #expect(revalidated)
            #expect(answers.allSatisfy { $0.status == 200 && CacheFront.strong($0.header("ETag")) == first.header("ETag") })
        }
    }
}

/// Purges a cache refuses (405) are logged and counted, and not sent again.
@Suite(.timeLimit(.minutes(5))) struct RefusedPurgeTests {
    @Test func aPurgeRefusedWith405IsLoggedCountedAndNotRetried() async throws {
        let refusing = try await ScriptedHTTPServer { _, _ in .init(status: 405, body: "no purges from you") }
        let lines = RecordingLogHandler.Lines()
        var settings = CachePurger.Settings()
        settings.firstBackoff = .milliseconds(10)
        let backend = TileBackend.routes(Sample.parisRoutes(count: 2, points: 40), options: TestServer.options())
        try await TestServer.with(backend, configure: { $0.writeToken = CacheFront.token }, alongside: { server in
            let purger = CachePurger(targets: [try PurgeTarget(refusing.base)], settings: settings,
                                     logger: RecordingLogHandler.logger(into: lines), metricsFactory: server.metricsFactory)
            server.observeInvalidatedTiles { purger.purge($0) }
            return [purger]
        }) { server in
            let written = try await server.request(.POST, "/routes/100/points", headers: CacheFront.auth,
                                                   body: Array("[[2.31,48.86],[2.32,48.861]]".utf8))
            #expect(written.status == 200)
            let invalidated = try #require(written.json["invalidated_tiles"] as? Int)
            #expect(invalidated > 0)
            let counted = try await CachePurgeTests.eventually(30) {
                try await CacheFront.metric("routetiles_purge_refused_total", of: server) == Double(invalidated)
            }
            #expect(counted)
            // A retry would go before later purges (failed ones go first): once a second write's purges are all
            // refused too, none of the first's was sent again.
            let next = try await server.request(.POST, "/routes/101/points", headers: CacheFront.auth,
                                                body: Array("[[2.33,48.87],[2.34,48.871]]".utf8))
            let invalidatedNext = try #require(next.json["invalidated_tiles"] as? Int)
            #expect(try await CachePurgeTests.eventually(30) {
                try await CacheFront.metric("routetiles_purge_refused_total", of: server) == Double(invalidated + invalidatedNext)
            })
            let requests = refusing.requests
            #expect(requests.values.reduce(0, +) == invalidated + invalidatedNext && requests.values.allSatisfy { $0 <= 2 },
                    "\(requests)")
            #expect(try await CacheFront.metric("routetiles_purge_retries_total", of: server) == 0)
            #expect(lines.all.contains { $0.hasPrefix("error") && $0.contains("refused with HTTP 405") })
        }
        try await refusing.close()
    }
}
