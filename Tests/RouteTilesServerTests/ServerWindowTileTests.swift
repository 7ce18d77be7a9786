import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Window tiles over HTTP (`/tiles/{z}/{x}/{y}.mvt?from=…&to=…`): never the default tile's cached bytes, cut from the
/// routes with times, cached, revalidated with their own tags, dropped when a write changes their tile; 400 for a
/// window that is not one, and for a finished tileset.
@Suite struct ServerWindowTileTests {
    static let token = "window-token-1"
    static let base: Int64 = 1_795_788_300_000  // 2026-11-27T14:05:00Z

    /// A van with a time on each of its 40 positions (15 s apart) and a bus without times on the same streets.
    static func routes() -> [Route] {
        let points = (0..<40).map { Coordinate(longitude: 2.33 + Double($0) * 0.0004, latitude: 48.86) }
        return [Route(id: .string("van"), parts: [points], times: (0..<40).map { base + Int64($0) * 15_000 }),
                Route(id: .string("bus"), parts: [points.map { Coordinate(longitude: $0.longitude, latitude: 48.8605) }])]
    }

    static func features(_ reply: TestServer.Reply) throws -> [DecodedFeature] {
        guard reply.status == 200 else { return [] }
        return try VectorTileDecoder.decode(try Gzip.decompress(reply.body)).layer(named: "routes")?.features ?? []
    }

    @Test func windowTilesAreCutCachedRevalidatedAndDroppedWithTheirTile() async throws {
        let tile = WebMercator.tile(containing: Coordinate(longitude: 2.335, latitude: 48.86), zoom: 14)
        let path = "/tiles/14/\(tile.x)/\(tile.y).mvt"
        try await TestServer.with(.routes(Self.routes(), options: TestServer.options()),
                                  configure: { $0.writeToken = Self.token }) { server in
            // The default tile, twice: the second answer comes from the cache (the fast path).
            let whole = try await server.get(path)
            #expect(whole.status == 200)
            #expect(try await server.get(path).body == whole.body)
            #expect(Set(try Self.features(whole).compactMap(\.id)) == [FNV1a.hash("van"), FNV1a.hash("bus")])

            // The first five minutes, in both forms of a time: the van alone, fewer of its positions.
            let from = TimeValue.iso(Self.base), to = String(Double(Self.base + 300_000) / 1000)
            let window = try await server.get(path + "?from=\(from)&to=\(to)")
            #expect(window.status == 200, "\(window.text)")
            #expect(window.body != whole.body)
            let drawn = try Self.features(window)
            #expect(Set(drawn.compactMap(\.id)) == [FNV1a.hash("van")])
            #expect(window.header("ETag") != whole.header("ETag"))
            #expect(window.header("Cache-Control") == whole.header("Cache-Control"))
            // A cache-busting parameter beside the window changes nothing.
            #expect(try await server.get(path + "?v=3&from=\(from)&to=\(to)").body == window.body)
            // Revalidated by its own tag.
            let etag = try #require(window.header("ETag"))
            #expect(try await server.get(path + "?from=\(from)&to=\(to)", headers: [("If-None-Match", etag)]).status == 304)

            // A window after the van's last fix holds nothing, until a fix arrives in it.
            let later = "?from=\(Self.base + 40 * 15_000 + 1_000)"  // milliseconds are not seconds: see below
            let laterWindow = "?from=\(TimeValue.iso(Self.base + 40 * 15_000))"
            #expect(try await server.get(path + laterWindow).status == 204)
            let fix = #"[{"lon":2.3465,"lat":48.8601,"t":"\#(TimeValue.iso(Self.base + 40 * 15_000 + 5_000))"}]"#
            let appended = try await server.request(.POST, "/routes/van/points",
                                                    headers: [("Authorization", "Bearer \(Self.token)")],
                                                    body: Array(fix.utf8))
            #expect(appended.status == 200, "\(appended.text)")
            let grown = try await server.get(path + laterWindow)
            #expect(grown.status == 200, "a cached window tile was not dropped with its tile")
            #expect(Set(try Self.features(grown).compactMap(\.id)) == [FNV1a.hash("van")])
            // Unix seconds are seconds: 1795788900000 seconds is far past 9999, and is refused.
            let refused = try await server.get(path + later)
            #expect(refused.status == 400 && refused.text.contains("from:"), "\(refused.text)")
        }
    }

    @Test func badWindowsAreRefusedWithWhatIsWrong() async throws {
        try await TestServer.with(.routes(Self.routes(), options: TestServer.options())) { server in
            let path = "/tiles/14/8300/5635.mvt"
            let word = try await server.get(path + "?from=yesterday")
            #expect(word.status == 400 && word.text.contains("from:"), "\(word.text)")
            let zoneless = try await server.get(path + "?to=2026-11-27T14:05:00")
            #expect(zoneless.status == 400 && zoneless.text.contains("to:"), "\(zoneless.text)")
            let backwards = try await server.get(path + "?from=2026-11-27T15:00:00Z&to=2026-11-27T14:00:00Z")
            #expect(backwards.status == 400, "\(backwards.text)")
            #expect(backwards.text.contains("from 2026-11-27T15:00:00Z is after to 2026-11-27T14:00:00Z"),
                    "\(backwards.text)")
        }
        let (folder, source) = try TestServer.parisTileset()
        defer { _ = folder }
        try await TestServer.with(.tileset(source)) { server in
            let refused = try await server.get("/tiles/3/4/2.mvt?from=2026-11-27T14:00:00Z")
            #expect(refused.status == 400 && refused.text.contains("no time windows"), "\(refused.text)")
            #expect(try await server.get("/tiles/3/4/2.mvt?v=1").status != 400)
        }
    }

    @Test func theVariantCacheKeepsItsBoundAndDropsByTile() {
        let cache = VariantTileCache<[UInt8]>(capacityBytes: 4 * (1000 + 96))
        let tile = TileID(z: 14, x: 1, y: 2), other = TileID(z: 14, x: 1, y: 3)
        func entry(_ byte: UInt8) -> TileCache<[UInt8]>.Entry { TileCache.Entry(gzip: Array(repeating: byte, count: 1000), etag: "\(byte)") }
        let windows = (0..<6).map { TileVariant(window: TimeWindow(from: Int64($0) * 1000, to: nil)) }
        for (k, window) in windows.enumerated() { cache.put(k < 3 ? tile : other, window, entry(UInt8(k))) }
        // Four fit: the two oldest are gone.
        #expect(cache.usage.tiles == 4)
        #expect(cache.get(tile, windows[0]) == nil && cache.get(tile, windows[1]) == nil)
        #expect(cache.get(tile, windows[2])?.etag == "2")
        // Used again, window 2 outlives window 3 when room is needed.
        cache.put(other, windows[0], entry(9))
        #expect(cache.get(tile, windows[2]) != nil && cache.get(other, windows[3]) == nil)
        // Dropped by tile, every window of it; and under a subtree.
        #expect(cache.remove([tile]) == 1)
        #expect(cache.get(tile, windows[2]) == nil)
        #expect(cache.remove(under: [TileID(z: 13, x: 0, y: 1)]) == 3)
        #expect(cache.usage.tiles == 0 && cache.usage.bytes == 0)
        // A tile cut before a change that has dropped its tile is not kept.
        cache.put(tile, windows[0], entry(1), isCurrent: { false })
        #expect(cache.get(tile, windows[0]) == nil)
    }
}
