import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `/tiles/{z}/{x}/{y}.png`, `@2x.png`, `@3x.png`: PNGs drawn from the vector tile of the same z/x/y, tagged after
/// it, answered 304 to their tag, and changed exactly when their vector tile changes.
@Suite struct ServerRasterTileTests {
    static let token = "raster-token-1"

    /// The width and height a PNG's IHDR gives.
    static func size(ofPNG bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        return (bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, bytes[20..<24].reduce(0) { $0 << 8 | Int($1) })
    }

    @Test func rasterTilesAreDrawnFromTheirVectorTileAndFollowItsChanges() async throws {
        let routes = Sample.parisRoutes(count: 4, points: 80)
        let backend = TileBackend.routes(routes, options: TestServer.options())
        try await TestServer.with(backend, configure: { $0.writeToken = Self.token }) { server in
            // The tile of route 100's last position, where the append below lands.
            let last = try #require(routes[0].parts[0].last)
            let tile = WebMercator.tile(containing: last, zoom: 14)
            let path = "/tiles/14/\(tile.x)/\(tile.y)"
            var tags: [String: String] = [:]
            for (suffix, scale) in [(".png", 1), ("@2x.png", 2), ("@3x.png", 3)] {
                let reply = try await server.get(path + suffix)
                #expect(reply.status == 200 && reply.header("Content-Type") == "image/png", "\(suffix): \(reply.status) \(reply.text)")
                #expect(Self.size(ofPNG: reply.body).map { $0 == (256 * scale, 256 * scale) } == true, "\(suffix)")
                let tag = try #require(reply.header("ETag"))
                #expect(tag.hasSuffix("-png\(scale)\"") && reply.header("Content-Encoding") == nil, "\(tag)")
                tags[suffix] = tag
                let again = try await server.get(path + suffix, headers: [("If-None-Match", tag)])
                #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == tag)
                let head = try await server.request(.HEAD, path + suffix)
                #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(reply.body.count))
            }
            // The vector tile of the same place is still a vector tile.
            let vector = try await server.get(path + ".mvt")
            #expect(vector.status == 200 && vector.header("Content-Type") == "application/vnd.mapbox-vector-tile")

            // A tile without routes: a transparent PNG, not an error an image client would show.
            let empty = try await server.get("/tiles/14/0/0@2x.png")
            #expect(empty.status == 200 && Self.size(ofPNG: empty.body).map { $0 == (512, 512) } == true)

            // Bad raster paths: 400; a zoom the server does not serve: 404.
            #expect(try await server.get(path + "@4x.png").status == 400)
            #expect(try await server.get(path + ".jpg").status == 400)
            #expect(try await server.get("/tiles/25/0/0.png").status == 404)

            // An append where the tile is: its PNGs change tag; a tile of route 103, 0.03° east, keeps its own.
            let far = try #require(routes[3].parts[0].map { WebMercator.tile(containing: $0, zoom: 14) }.first { $0 != tile })
            let farTag = try await server.get("/tiles/14/\(far.x)/\(far.y).png").header("ETag")
            let fix = Array("[[\(last.longitude + 0.0001), \(last.latitude + 0.0001)]]".utf8)
            let appended = try await server.request(.POST, "/routes/100/points", headers: [("Authorization", "Bearer \(Self.token)")],
                                                    body: fix)
            #expect(appended.status == 200, "\(appended.text)")
            for (suffix, tag) in tags {
                let changed = try await server.get(path + suffix, headers: [("If-None-Match", tag)])
                #expect(changed.status == 200 && changed.header("ETag") != tag, "\(suffix) did not change")
            }
            let farAgain = try await server.get("/tiles/14/\(far.x)/\(far.y).png", headers: [("If-None-Match", farTag ?? "")])
            #expect(farAgain.status == 304, "a tile the append did not touch changed")
        }
    }
}
