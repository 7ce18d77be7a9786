import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `routetiles serve` over HTTP: a real server on a loopback port and a real client.
@Suite struct ServerTileTests {
    let routes = Sample.parisRoutes()
    var live: TileBackend { .routes(routes, options: TestServer.options()) }
    /// A z14 tile the tracks cross, and its expected bytes from the engine directly.
    var busyTile: TileID { WebMercator.tile(containing: routes[0].parts[0][0], zoom: 14) }

    @Test func tilesAreGzipWithTheRightHeadersAndMatchTheEngine() async throws {
        let tile = busyTile
        let expected = try #require(try RouteTiler(routes: routes, options: TestServer.options()).tile(z: tile.z, x: tile.x, y: tile.y))
        try await TestServer.with(live, configure: { $0.cacheControl = "public, max-age=7" }) { server in
            let gz = try await server.get("/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt")
            #expect(gz.status == 200)
            #expect(gz.header("Content-Type") == "application/vnd.mapbox-vector-tile")
            #expect(gz.header("Content-Encoding") == "gzip")
            #expect(gz.header("Vary") == "Accept-Encoding")
            #expect(gz.header("Cache-Control") == "public, max-age=7")
            #expect(gz.header("Access-Control-Allow-Origin") == "*")
            #expect(try Gzip.decompress(gz.body) == expected)

            // No Accept-Encoding: the same tile, uncompressed, with its own entity tag; .pbf is accepted too.
            let plain = try await server.get("/tiles/\(tile.z)/\(tile.x)/\(tile.y).pbf", gzip: false)
            #expect(plain.status == 200)
            #expect(plain.header("Content-Encoding") == nil)
            #expect(plain.header("Vary") == "Accept-Encoding")
            #expect(plain.body == expected)
            let gzTag = try #require(gz.header("ETag")), plainTag = try #require(plain.header("ETag"))
            #expect(gzTag != plainTag && gzTag.hasPrefix("\"") && !gzTag.hasPrefix("W/"))

            // gzip refused with q=0 means identity.
            let refused = try await server.get("/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt", gzip: false,
                                               headers: [("Accept-Encoding", "gzip;q=0, identity")])
            #expect(refused.header("Content-Encoding") == nil && refused.body == expected)

            // HEAD: the headers of GET, no body.
            let head = try await server.request(.HEAD, "/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt", headers: [("Accept-Encoding", "gzip")])
            #expect(head.status == 200 && head.body.isEmpty && head.header("ETag") == gzTag)
            #expect(head.header("Content-Length") == String(gz.body.count))
        }
    }

    @Test func conditionalRequestsGet304PerEncoding() async throws {
        let tile = busyTile
        try await TestServer.with(live) { server in
            let path = "/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt"
            let gz = try await server.get(path)
            let tag = try #require(gz.header("ETag"))
            let again = try await server.get(path, headers: [("If-None-Match", tag)])
            #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == tag)
            #expect(try await server.get(path, headers: [("If-None-Match", "\"other\", W/\(tag)")]).status == 304)
            // The gzip tag does not validate the identity representation.
            #expect(try await server.get(path, gzip: false, headers: [("If-None-Match", tag)]).status == 200)
            #expect(try await server.get(path, headers: [("If-None-Match", "\"stale\"")]).status == 200)
        }
    }

    @Test func statusCodesForEmptyOutOfRangeMalformedAndOtherMethods() async throws {
        try await TestServer.with(live, configure: { $0.corsOrigin = "https://maps.example" }) { server in
            // A tile inside the zoom range that no route touches.
            let empty = try await server.get("/tiles/14/0/0.mvt")
            #expect(empty.status == 204 && empty.body.isEmpty)
            #expect(try await server.get("/tiles/15/0/0.mvt").status == 404)
            // Past the grid at its zoom: no such tile, as a zoom not served.
            for missing in ["/tiles/3/8/0.mvt", "/tiles/3/0/8.mvt", "/tiles/0/0/1.mvt", "/tiles/14/0/123456789012345.mvt"] {
                let reply = try await server.get(missing)
                #expect(reply.status == 404, "\(missing) gave \(reply.status)")
                #expect(reply.json["error"] != nil)
            }
            for bad in ["/tiles/1/-1/0.mvt", "/tiles/a/0/0.mvt",
                        "/tiles/1/0/0.jpg", "/tiles/1/0/0@4x.png", "/tiles/1/0.mvt", "/tiles/01/0/0.mvt", "/tiles/99/0/0.mvt"] {
                let reply = try await server.get(bad)
                #expect(reply.status == 400, "\(bad) gave \(reply.status)")
                #expect(reply.json["error"] != nil)
            }
            let post = try await server.request(.POST, "/tiles/1/0/0.mvt")
            #expect(post.status == 405 && post.header("Allow") == "GET, HEAD")
            #expect(try await server.request(.DELETE, "/tiles.json").status == 405)
            #expect(try await server.get("/nothing-here").status == 404)
            let preflight = try await server.request(.OPTIONS, "/tiles/1/0/0.mvt", headers: [
                ("Origin", "https://maps.example"), ("Access-Control-Request-Method", "GET")])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "https://maps.example")
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("GET") == true)
        }
    }

    @Test func publicURLNoCORSHeadLengthsAndReadingOptionsForBodies() async throws {
        try await TestServer.with(live, configure: {
            $0.publicURL = "https://tiles.example.com/base/"
            $0.corsOrigin = nil
            $0.writeToken = "0123456789"
            $0.readOptions.precision = 6
        }) { server in
            let tileJSON = try await server.get("/tiles.json")
            #expect((tileJSON.json["tiles"] as? [String])?.first == "https://tiles.example.com/base/tiles/{z}/{x}/{y}.mvt")
            let style = try await server.get("/style.json").json
            #expect((style["sources"] as? [String: [String: Any]])?["routes"]?["url"] as? String == "https://tiles.example.com/base/tiles.json")
            // --cors none: no CORS header on any answer.
            #expect(tileJSON.header("Access-Control-Allow-Origin") == nil)
            let tile = try await server.get("/tiles/\(busyTile.z)/\(busyTile.x)/\(busyTile.y).mvt")
            #expect(tile.status == 200 && tile.header("Access-Control-Allow-Origin") == nil && tile.header("Access-Control-Expose-Headers") == nil)
            // HEAD answers carry the Content-Length of the GET, without a body.
            for path in ["/", "/tiles.json", "/style.json", "/tiles/\(busyTile.z)/\(busyTile.x)/\(busyTile.y).mvt"] {
                let get = try await server.get(path)
                let head = try await server.request(.HEAD, path, headers: [("Accept-Encoding", "gzip")])
                #expect(head.status == 200 && head.body.isEmpty, "\(path)")
                #expect(head.header("Content-Length") == String(get.body.count), "\(path): \(head.header("Content-Length") ?? "none") against \(get.body.count)")
            }
            // A polyline body is read at the server's --precision (6): the Google example lands ten times closer
            // to (0, 0) than at precision 5.
            let posted = try await server.request(.POST, "/routes", headers: [("Authorization", "Bearer 0123456789")],
                                                  body: Array("walk\t_p~iF~ps|U_ulLnnqC_mqNvxq`@\n".utf8))
            #expect(posted.status == 201, "\(posted.text)")
            let stored = try await server.get("/routes/walk").json
            let first = ((stored["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])?.first
            #expect(first.map { abs($0[0] + 12.02) < 1e-9 && abs($0[1] - 3.85) < 1e-9 } == true, "\(String(describing: first))")
        }
    }

    @Test func tileJSONStyleViewerHealthAndMetrics() async throws {
        try await TestServer.with(live, configure: { $0.mapLibreURL = "/assets" }) { server in
            let tileJSON = try await server.get("/tiles.json").json
            #expect(tileJSON["tilejson"] as? String == "3.0.0")
            #expect((tileJSON["tiles"] as? [String])?.first == server.base + "/tiles/{z}/{x}/{y}.mvt")
            let layers = try #require(tileJSON["vector_layers"] as? [[String: Any]])
            #expect(layers.first?["id"] as? String == "routes")
            #expect((layers.first?["fields"] as? [String: String])?["name"] == "String")
            let bounds = try #require(tileJSON["bounds"] as? [Double])
            #expect(bounds.count == 4 && bounds[0] > 2 && bounds[2] < 2.5)

            let style = try await server.get("/style.json").json
            #expect(style["version"] as? Int == 8)
            let styleLayers = try #require(style["layers"] as? [[String: Any]])
            let ids = styleLayers.compactMap { $0["id"] as? String }
            #expect(ids.firstIndex(of: "routes-casing")! < ids.firstIndex(of: "routes-line")!)
            let sources = try #require(style["sources"] as? [String: [String: Any]])
            #expect(sources["routes"]?["url"] as? String == server.base + "/tiles.json")

            let page = try await server.get("/")
            #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.text.contains("/assets/maplibre-gl.js") && page.text.contains("viewer.js"))

            let health = try await server.get("/health").json
            #expect(health["status"] as? String == "ok" && health["routes"] as? Int == routes.count)

            _ = try await server.get("/tiles/\(busyTile.z)/\(busyTile.x)/\(busyTile.y).mvt")
            _ = try await server.get("/tiles/\(busyTile.z)/\(busyTile.x)/\(busyTile.y).mvt")
            let metrics = try await server.get("/metrics").text
            #expect(metrics.contains("routetiles_tile_cache_hits_total 1"))
            #expect(metrics.contains("routetiles_tile_cache_misses_total 1"))
            #expect(metrics.contains("routetiles_tile_generation_seconds_count 1"))
            #expect(metrics.contains("routetiles_http_requests_total{status=\"200\"}"))
            #expect(metrics.contains("routetiles_routes \(Double(routes.count))"))
            #expect(metrics.contains("routetiles_points \(Double(routes.reduce(0) { $0 + $1.pointCount }))"))
        }
    }

    @Test func concurrentRequestsForOneColdTileComputeItOnce() async throws {
        let tile = busyTile
        try await TestServer.with(live) { server in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<24 { group.addTask { try await server.get("/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt").status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 24))
            let metrics = try await server.get("/metrics").text
            #expect(metrics.contains("routetiles_tile_generation_seconds_count 1\n"))
        }
    }

    @Test func theCacheStaysWithinItsByteBound() async throws {
        let bound = 6_000
        try await TestServer.with(live, configure: { $0.cacheBytes = bound }) { server in
            let centre = busyTile
            for dx in -2...2 { for dy in -2...2 {
                _ = try await server.get("/tiles/14/\(centre.x + dx)/\(centre.y + dy).mvt")
            } }
            let cache = try #require(try await server.get("/health").json["cache"] as? [String: Int])
            #expect((cache["bytes"] ?? .max) <= bound)
            #expect((cache["tiles"] ?? 0) >= 1)
        }
    }

    @Test func assetsAreServedWithoutEscapingTheirFolder() async throws {
        let folder = try TemporaryFolder()
        try Data("console.log(1)".utf8).write(to: folder.url.appendingPathComponent("maplibre-gl.js"))
        try await TestServer.with(live, configure: { $0.assetsDirectory = folder.url.path }) { server in
            let js = try await server.get("/assets/maplibre-gl.js")
            #expect(js.status == 200 && js.text == "console.log(1)")
            #expect(js.header("Content-Type")?.hasPrefix("text/javascript") == true)
            #expect(try await server.get("/assets/../Package.swift").status == 404)
            #expect(try await server.get("/assets/%2e%2e/x").status == 404)
            #expect(try await server.get("/assets/missing.css").status == 404)
        }
    }
}
