import Foundation
import Synchronization
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Far jumps over HTTP (issue 34): a server over a SQLite store, one route near Paris, fixes on the far side of the
/// world. No timing bounds: the tests count work and check what must not wait; the times are in BENCHMARKS.md.
@Suite(.timeLimit(.minutes(4))) struct FarJumpServerTests {
    static let token = "far-jump-token"
    let auth = [("Authorization", "Bearer \(Self.token)")]
    let route = Array(#"{"type":"Feature","id":"veh-1","properties":{"name":"van"},"geometry":{"type":"LineString","coordinates":[[2.35,48.85],[2.351,48.851],[2.352,48.853]]}}"#.utf8)

    /// The options of `serve --store` at their defaults (zooms 0–14, no `length_m`, a position layer).
    static func liveOptions(appendTileLimit: Int = TilingOptions().appendTileLimit, maxZoom: Int = 14) -> TilingOptions {
        var options = TestServer.options(maxZoom: maxZoom)
        options.routeLength = false
        options.positionLayer = "positions"
        options.appendTileLimit = appendTileLimit
        return options
    }

    static func fix(_ lon: Double, _ lat: Double) -> [UInt8] { Array("[[\(lon),\(lat)]]".utf8) }

    /// The issue's sequence, then 50 appends between two far corners: every one answered and written, and each
    /// alternating append invalidates exactly the tiles the one two before it did (the same segment, drawn again):
    /// what an append costs is what it draws, not what came before it. Before the fix, each append of the sequence
    /// took longer than the one before (0.06 s to 2.3 s in a release build). The times are in BENCHMARKS.md ("Far
    /// jumps", `Benchmarks/scripts/far_jump.sh`); a test on two shared cores counts work instead.
    @Test func farJumpsInvalidateWhatTheyDrawAndTheWorkDoesNotGrow() async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteRouteStore(path: folder.path("j.db"))
        let sync = try await LiveRouteSync.open(store: store, options: Self.liveOptions()).sync
        try await TestServer.with(.live(sync), configure: { $0.writeToken = Self.token }) { server in
            #expect(try await server.request(.POST, "/routes", headers: auth + [("Content-Type", "application/geo+json")],
                                             body: route).status == 201)
            var invalidated: [Int] = []
            let sequence: [(Double, Double)] = [(-120, -60), (150, 70), (-170, -80), (170, 80), (0, 0)]
                + (0..<50).map { $0 % 2 == 0 ? (-170, -80) : (170, 80) }
            for (lon, lat) in sequence {
                let reply = try await server.request(.POST, "/routes/veh-1/points", headers: auth, body: Self.fix(lon, lat))
                #expect(reply.status == 200, "\(reply.text)")
                invalidated.append(reply.json["invalidated_tiles"] as? Int ?? 0)
            }
            #expect(invalidated.allSatisfy { $0 > 0 }, "\(invalidated)")
            // From the second alternating append on, every append draws the segment between the two corners.
            let alternating = invalidated[6...]
            #expect(Set(alternating).count == 1, "the same segment invalidated \(Array(alternating)) tiles")
            // Bounded by the limit (and the subtrees past it), not by the zooms of the whole world.
            #expect((alternating.first ?? .max) <= 2 * TilingOptions().appendTileLimit)
            let listed = try await server.get("/routes/veh-1", gzip: false)
            #expect(listed.status == 200)
            #expect(sync.routes.pointCount(of: "veh-1") == 3 + sequence.count)
        }
    }

    /// What must not wait on a writer does not: while a thread holds the route set's writers' lock (as a write
    /// does while it applies), `/health`, its probes and `/metrics` answer, each within the client's timeout. Before
    /// issue 34, `/health` read the covers under that lock and waited as long as each far append ran.
    @Test func healthProbesAndMetricsAnswerWhileAWriterHoldsTheRoutes() async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteRouteStore(path: folder.path("h.db"))
        let sync = try await LiveRouteSync.open(store: store, options: Self.liveOptions(maxZoom: 10)).sync
        try await TestServer.with(.live(sync), configure: { $0.writeToken = Self.token }) { server in
            #expect(try await server.request(.POST, "/routes", headers: auth + [("Content-Type", "application/geo+json")],
                                             body: route).status == 201)
            let writer = WritersLockHolder(routes: sync.routes)
            defer { writer.release() }
            await writer.held()
            for path in ["/health", "/health/live", "/health/ready", "/metrics"] {
                let reply = try await server.request(.GET, path, timeout: .seconds(20))
                #expect(reply.status == 200, "\(path) while a writer holds the routes: \(reply.status)")
                if path == "/health" { #expect(reply.json["routes"] as? Int == 1) }
            }
            // The holder is still there: what answered did not wait for it to go.
            #expect(writer.isHolding)
            writer.release()
            let append = try await server.request(.POST, "/routes/veh-1/points", headers: auth, body: Self.fix(2.36, 48.86))
            #expect(append.status == 200)
        }
    }

    /// A fix drawn in more tiles than the limit: its deeper tiles are invalidated as subtrees, in the cache (a tile
    /// deep on the new segment's path, cached empty before, has the route after), the events, the expire log and the
    /// answer's count of what it listed.
    @Test func pastTheLimitSubtreesReachTheCacheTheEventsAndTheExpireLog() async throws {
        let folder = try TemporaryFolder()
        let options = Self.liveOptions(appendTileLimit: 64, maxZoom: 10)
        let expire = folder.path("expire.log")
        let store = try SQLiteRouteStore(path: folder.path("j.db"))
        let sync = try await LiveRouteSync.open(store: store, options: options).sync
        try await TestServer.with(.live(sync), configure: { $0.writeToken = Self.token; $0.expireLogPath = expire }) { server in
            #expect(try await server.request(.POST, "/routes", headers: auth + [("Content-Type", "application/geo+json")],
                                             body: route).status == 201)
            // A z10 tile halfway along the segment to (-120, -60), in map space: empty now, and cached so.
            let a = WebMercator.project(Coordinate(longitude: 2.352, latitude: 48.853))
            let b = WebMercator.project(Coordinate(longitude: -120, latitude: -60))
            let middle = WebMercator.tile(containing: MapPoint(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2), zoom: 10)
            let path = "/tiles/10/\(middle.x)/\(middle.y).mvt"
            #expect(try await server.get(path).status == 204)
            #expect(try await server.get(path).status == 204)
            let events = try await EventStreamReader(url: server.base + "/events")
            #expect(try await events.next()?.name == "hello")

            let reply = try await server.request(.POST, "/routes/veh-1/points", headers: auth, body: Self.fix(-120, -60))
            #expect(reply.status == 200)
            let listed = try #require(reply.json["invalidated_tiles"] as? Int)
            #expect(listed <= 64 + 64, "\(listed) tiles listed with a limit of 64")

            let change = try #require(try await events.next())
            let subtrees = try #require(change.json["subtrees"] as? [String])
            #expect(!subtrees.isEmpty && (change.json["tiles"] as? [String])?.count == listed)
            events.close()
            // The tile deep under a subtree is not served from the cache: it now draws the route.
            let after = try await server.get(path)
            #expect(after.status == 200, "\(path) after the far fix: \(after.status)")
            let log = try String(contentsOfFile: expire, encoding: .utf8)
            let comments = log.split(separator: "\n").filter { $0.hasPrefix("# subtree ") }
            #expect(comments.count == subtrees.count)
            #expect(Set(comments.map { String($0.dropFirst("# subtree ".count)) }) == Set(subtrees))
            // A tile-list reader skips the comments and reads the listed tiles.
            #expect(try TileListFile.read(path: expire).count == log.split(separator: "\n").count - comments.count)
        }
    }

    /// The glitch filters over HTTP: fixes at (0, 0) and out of range are dropped, named in the answer (single and
    /// batch) and counted in `/metrics`; an append they empty writes nothing. Without them, (0, 0) is appended and
    /// an out-of-range fix refuses its list.
    @Test func glitchFiltersDropCountAndSay() async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteRouteStore(path: folder.path("j.db"))
        let sync = try await LiveRouteSync.open(store: store, options: Self.liveOptions(maxZoom: 10)).sync
        try await TestServer.with(.live(sync), configure: { c in
            c.writeToken = Self.token
            c.fixFilter = FixFilter(dropZero: true, dropInvalid: true)
        }) { server in
            #expect(try await server.request(.POST, "/routes", headers: auth + [("Content-Type", "application/geo+json")],
                                             body: route).status == 201)
            let before = try await server.get("/routes/veh-1")
            let zero = try await server.request(.POST, "/routes/veh-1/points", headers: auth, body: Self.fix(0, 0))
            #expect(zero.status == 200, "\(zero.text)")
            #expect(zero.json["dropped_positions"] as? [String: Int] == ["zero": 1, "invalid": 0])
            #expect(zero.json["sequence"] == nil && zero.json["invalidated_tiles"] as? Int == 0)
            #expect(try await server.get("/routes/veh-1").body == before.body, "an emptied append changed the route")

            let mixed = try await server.request(.POST, "/routes/veh-1/points", headers: auth,
                                                 body: Array("[[2.353,48.854],[0,0],[200,10],[2.354,48.855]]".utf8))
            #expect(mixed.status == 200, "\(mixed.text)")
            #expect(mixed.json["dropped_positions"] as? [String: Int] == ["zero": 1, "invalid": 1])
            #expect(mixed.json["sequence"] is Int)

            let batch = try await server.request(.POST, "/routes/points", headers: auth,
                                                 body: Array(#"{"veh-1":[[2.355,48.856],[0,0]],"nobody":[[0,0]]}"#.utf8))
            #expect(batch.status == 200, "\(batch.text)")
            let applied = try #require(batch.json["applied"] as? [[String: Any]])
            #expect(applied.first?["points"] as? Int == 1)
            #expect(applied.first?["dropped_positions"] as? [String: Int] == ["zero": 1, "invalid": 0])
            let refused = try #require(batch.json["refused"] as? [[String: Any]])
            #expect(refused.first?["id"] as? String == "nobody" && refused.first?["status"] as? Int == 404)

            let metrics = try await server.get("/metrics", gzip: false).text
            #expect(metrics.contains(#"routetiles_fixes_dropped_total{reason="zero"} 4"#), "\(metrics.split(separator: "\n").filter { $0.contains("dropped") })")
            #expect(metrics.contains(#"routetiles_fixes_dropped_total{reason="invalid"} 1"#))
            // An unknown route with every fix dropped is still unknown.
            #expect(try await server.request(.POST, "/routes/nobody/points", headers: auth, body: Self.fix(0, 0)).status == 404)
        }
        // Off (the default): (0, 0) is a position like any other, an out-of-range one a 400.
        let plain = try await LiveRouteSync.open(store: try SQLiteRouteStore(path: folder.path("plain.db")),
                                                 options: Self.liveOptions(maxZoom: 10)).sync
        try await TestServer.with(.live(plain), configure: { $0.writeToken = Self.token }) { server in
            #expect(try await server.request(.POST, "/routes", headers: auth + [("Content-Type", "application/geo+json")],
                                             body: route).status == 201)
            let zero = try await server.request(.POST, "/routes/veh-1/points", headers: auth, body: Self.fix(0, 0))
            #expect(zero.status == 200 && zero.json["dropped_positions"] == nil && zero.json["sequence"] is Int)
            #expect(try await server.request(.POST, "/routes/veh-1/points", headers: auth, body: Self.fix(10, 95)).status == 400)
        }
    }
}

/// Holds a route set's writers' lock on a thread of its own until released (at most 60 s, so that a failing test
/// cannot hold it for ever).
final class WritersLockHolder: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let state = Mutex((holding: false, releasedOnce: false))

    init(routes: LiveRouteSet) {
        Thread.detachNewThread { [self] in
            routes.holdingWritersLock {
                state.withLock { $0.holding = true }
                entered.signal()
                _ = released.wait(timeout: .now() + 60)
                state.withLock { $0.holding = false }
            }
        }
    }

    /// Returns once the lock is held.
    func held() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [entered] in
                entered.wait()
                done.resume()
            }
        }
    }

    var isHolding: Bool { state.withLock { $0.holding } }

    /// Lets the lock go (once; later calls do nothing).
    func release() {
        let first = state.withLock { state in
            defer { state.releasedOnce = true }
            return !state.releasedOnce
        }
        if first { released.signal() }
    }
}
