import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Raster tiles through Varnish with the shipped VCL: each scale is cached beside the vector tile, as a variant of the
/// same object, so the one purge the server sends for a changed tile (of its `.mvt` path) removes its PNGs too. After
/// an append, the changed tiles' PNGs are fresh through Varnish within a second, and the others stay hits. The
/// OGC API's tiles are the XYZ tiles' objects, and follow them.
@Suite(.enabled(if: ExternalTool.required(VarnishCache.installed), "varnishd is not installed (apt-get install varnish)"),
       .serialized, .timeLimit(.minutes(5)))
struct RasterCacheTests {
    /// The XYZ tile's endings, and its OGC API twins (`ogc`: the collection's vector tile, `ogc-map`: the dataset's
    /// map tile), which the VCL stores as the XYZ tile.
    static let endings = [".mvt", ".png", "@2x.png", "@3x.png", "ogc", "ogc-map"]

    static func path(_ tile: TileID, _ ending: String) -> String {
        switch ending {
        case "ogc": return "/ogc/collections/routes/tiles/WebMercatorQuad/\(tile.z)/\(tile.y)/\(tile.x)"
        case "ogc-map": return "/ogc/map/tiles/WebMercatorQuad/\(tile.z)/\(tile.y)/\(tile.x)"
        default: return "/tiles/\(tile.z)/\(tile.x)/\(tile.y)\(ending)"
        }
    }

    @Test func aPurgeOfTheVectorTileRemovesItsPNGsAndUntouchedOnesStayHits() async throws {
        try await CacheFront.with(routes: CachePurgeTests.routes) { front in
            let tiles = CachePurgeTests.cover.filter { $0.z >= 12 }
            var before: [String: String] = [:]
            for tile in tiles {
                for ending in Self.endings {
                    let first = try await front.cache.get(Self.path(tile, ending))
                    #expect([200, 204].contains(first.status), "\(Self.path(tile, ending)): \(first.status)")
                    let second = try await front.cache.get(Self.path(tile, ending))
                    #expect(CacheFront.isHit(second) && second.header("ETag") == first.header("ETag"),
                            "\(Self.path(tile, ending)) was not cached")
                    if ending.hasSuffix(".png") || ending == "ogc-map" {
                        #expect(second.header("Content-Type") == "image/png" && second.header("Vary") == nil,
                                "\(second.header("Vary") ?? "")")
                    }
                    before[Self.path(tile, ending)] = first.header("ETag") ?? ""
                }
            }
            let events = try await EventStreamReader(url: front.origin.base + "/events")
            defer { events.close() }
            #expect(try await events.next()?.name == "hello")
            #expect(try await front.append("101", CachePurgeTests.positions(after: 1)).status == 200)
            let acknowledged = Date()
            let changed = try await CachePurgeTests.changedTiles(events)
            #expect(tiles.contains { changed.contains($0) }, "the append changed no tile of z12 and over")
            for tile in tiles {
                for ending in Self.endings where ending != ".mvt" {
                    let path = Self.path(tile, ending)
                    if changed.contains(tile) {
                        let current = try await front.origin.get(path).header("ETag")
                        #expect(current != before[path], "\(path) did not change at the origin")
                        var fresh = false
                        repeat {
                            fresh = try await front.cache.get(path).header("ETag") == current
                            if !fresh { try await Task.sleep(for: .milliseconds(10)) }
                        } while !fresh && Date().timeIntervalSince(acknowledged) < 1
                        #expect(fresh, "\(path) is stale through Varnish a second after the append")
                    } else {
                        let reply = try await front.cache.get(path)
                        #expect(CacheFront.isHit(reply) && reply.header("ETag") == before[path], "\(path), untouched, is no longer cached")
                    }
                }
            }
        }
    }
}
