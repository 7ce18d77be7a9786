import Foundation
import Logging
import RouteTiles
import RouteTilesPurge
import RouteTilesServer
import ServiceLifecycle
import Synchronization
import Testing
import RouteTilesCoreTestSupport

/// A live server over a SQLite store, with Varnish in front of it (the shipped VCL) and a `CachePurger` aimed at
/// that Varnish: what `serve --store … --purge http://varnish` runs, in process.
package struct CacheFront: Sendable {
    package static let token = "cache-token-1"
    package static let auth = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]

    package let origin: TestServer.Handle
    /// The same requests, through Varnish.
    package let cache: TestServer.Handle
    package let varnish: VarnishCache
    package let purger: CachePurger

    /// Runs `body` with a server of `routes` (stored in a new SQLite file), Varnish and the purger.
    package static func with<T: Sendable>(
        routes: [Route], options: TilingOptions = TestServer.options(), settings: CachePurger.Settings = .init(),
        configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (CacheFront) async throws -> T
    ) async throws -> T {
        let folder = try TemporaryFolder()
        let store = try SQLiteRouteStore(path: folder.path("routes.db"))
        _ = try await RouteStoreImport.load(routes, into: store)
        let (sync, _) = try await LiveRouteSync.open(store: store, options: options)
        return try await with(sync: sync, settings: settings, configure: configure, body)
    }

    /// Runs `body` with a server of `sync`'s routes, Varnish and the purger.
    package static func with<T: Sendable>(
        sync: LiveRouteSync, settings: CachePurger.Settings = .init(),
        configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (CacheFront) async throws -> T
    ) async throws -> T {
        let cachePort = try FreePort.loopback()
        let purger = Mutex<CachePurger?>(nil)
        return try await TestServer.with(.live(sync), configure: { c in
            c.writeToken = token
            // Tiles stay cached for the length of a test, so that only a purge can make a cached tile fresh.
            c.cacheControl = "public, max-age=600"
            configure(&c)
        }, alongside: { server in
            let made = CachePurger(targets: [try PurgeTarget("http://127.0.0.1:\(cachePort)")], settings: settings,
                                   logger: Logger(label: "purger"), metricsFactory: server.metricsFactory)
            server.observeInvalidatedTiles { made.purge($0) }
            purger.withLock { $0 = made }
            return [made]
        }) { origin in
            let port = Int(origin.base.split(separator: ":").last ?? "") ?? 0
            let varnish = try await VarnishCache.started(backendPort: port, port: cachePort)
            do {
                let front = CacheFront(origin: origin, cache: TestServer.Handle(base: varnish.base, server: origin.server),
                                       varnish: varnish, purger: try #require(purger.withLock { $0 }))
                let result = try await body(front)
                await varnish.stopDetached()
                return result
            } catch {
                await varnish.stopDetached()
                throw error
            }
        }
    }

    /// A tile's path.
    package static func path(_ tile: TileID) -> String { "/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt" }

    /// Whether Varnish answered from its cache: two request ids in `X-Varnish`.
    package static func isHit(_ reply: TestServer.Reply) -> Bool {
        (reply.header("X-Varnish")?.split(separator: " ").count ?? 0) >= 2
    }

    /// The strong form of an ETag (Varnish weakens the tags of bodies it changes).
    package static func strong(_ tag: String?) -> String? {
        tag.map { $0.hasPrefix("W/") ? String($0.dropFirst(2)) : $0 }
    }

    /// Appends positions to a route through the API.
    package func append(_ id: String, _ positions: [(Double, Double)]) async throws -> TestServer.Reply {
        let body = "[" + positions.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]"
        return try await origin.request(.POST, "/routes/\(id)/points", headers: Self.auth, body: Array(body.utf8))
    }

    /// Waits (at most `seconds`) until Varnish answers `tile` with the origin's current bytes; whether it did.
    package func cacheServesCurrent(_ tile: TileID, within seconds: Double) async throws -> Bool {
        let current = try await origin.get(Self.path(tile))
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let cached = try await cache.get(Self.path(tile))
            if cached.status == current.status, Self.strong(cached.header("ETag")) == current.header("ETag") { return true }
            try await Task.sleep(for: .milliseconds(10))
        } while Date() < deadline
        return false
    }

    /// A metric of the origin's `/metrics`, summed over its label sets.
    package func metric(_ name: String) async throws -> Double {
        try await Self.metric(name, of: origin)
    }

    /// A metric of a server's `/metrics`, summed over its label sets (`name{label="value"}` picks one).
    package static func metric(_ name: String, of server: TestServer.Handle) async throws -> Double {
        let text = try await server.get("/metrics", gzip: false).text
        var sum = 0.0
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") || line.hasPrefix(name + "{")
            || name.hasSuffix("}") && line.hasPrefix(name) {
            sum += Double(line.split(separator: " ").last ?? "") ?? 0
        }
        return sum
    }
}
