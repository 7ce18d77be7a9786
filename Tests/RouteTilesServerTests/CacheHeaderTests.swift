import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The headers a cache keys its decisions on: `Cache-Control` by what is served (live routes short, a finished
/// tileset long), `Last-Modified` on tiles that do not change only, and the same on the fast path as on the full one.
@Suite(.timeLimit(.minutes(2))) struct CacheHeaderTests {
    static let tile = "/tiles/6/32/22.mvt"

    @Test func aFinishedTilesetIsCachedADayAndCarriesItsModificationTime() async throws {
        let (folder, source) = try TestServer.parisTileset()
        _ = folder
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try await TestServer.with(.tileset(source), configure: { $0.lastModified = modified }) { server in
            // The first answer comes from the full path, the second from the cached-tile fast path.
            for _ in 0..<2 {
                let reply = try await server.get(Self.tile)
                #expect(reply.status == 200)
                #expect(reply.header("Cache-Control") == ServerConfiguration.staticCacheControl)
                #expect(reply.header("Last-Modified") == "Tue, 14 Nov 2023 22:13:20 GMT")
                let etag = try #require(reply.header("ETag"))
                let again = try await server.get(Self.tile, headers: [("If-None-Match", etag)])
                #expect(again.status == 304 && again.header("Last-Modified") == "Tue, 14 Nov 2023 22:13:20 GMT")
            }
        }
    }

    @Test func routesThatCanChangeAreCachedSecondsWithoutLastModified() async throws {
        let routes = Sample.parisRoutes(count: 1, points: 20)
        let live = TileBackend.routes(routes, options: TestServer.options(maxZoom: 6))
        try await TestServer.with(live, configure: { $0.writeToken = "t" }) { server in
            for _ in 0..<2 {
                let reply = try await server.get(Self.tile)
                #expect(reply.status == 200)
                #expect(reply.header("Cache-Control") == "public, max-age=5, stale-while-revalidate=15")
                #expect(reply.header("Last-Modified") == nil)
            }
        }
        // The same routes in memory with no way to change them are as finished as a tileset.
        let fixed = TileBackend.routes(routes, options: TestServer.options(maxZoom: 6))
        let started = Date()
        try await TestServer.with(fixed) { server in
            let reply = try await server.get(Self.tile)
            #expect(reply.header("Cache-Control") == ServerConfiguration.staticCacheControl)
            let date = try #require(reply.header("Last-Modified"))
            let parsed = try #require(Self.httpDate(date))
            #expect(abs(parsed.timeIntervalSince(started)) < 5)
        }
    }

    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
