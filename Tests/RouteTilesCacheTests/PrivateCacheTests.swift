import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RouteTiles
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// A private server (`--read token`) behind Varnish with the shipped VCL: a tile read with a credential is never
/// cached and never served to another client; a signed tile URL is cached and shared by its whole URL.
@Suite(.timeLimit(.minutes(5))) struct PrivateCacheTests {
    func get(_ url: String, headers: [(String, String)] = []) async throws -> TestServer.Reply {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers + [("Accept-Encoding", "gzip")] { request.headers.add(name: name, value: value) }
        let response = try await TestServer.client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return TestServer.Reply(status: Int(response.status.code), headers: response.headers, body: Array(bytes.readableBytesView))
    }

    @Test(.enabled(if: ExternalTool.required(VarnishCache.installed), "varnishd is not installed (apt-get install varnish)"))
    func varnishNeverServesAPrivateTileToAnotherClient() async throws {
        let folder = try TemporaryFolder()
        try Data(TestTokens.secret + [0x0a]).write(to: URL(fileURLWithPath: folder.path("secret")))
        let route = #"{"type":"Feature","id":"veh-17","properties":{"group":"acme"},"geometry":{"type":"LineString","coordinates":[[2.30,48.85],[2.305,48.853],[2.31,48.851]]}}"#
        try Data(route.utf8).write(to: URL(fileURLWithPath: folder.path("van.geojson")))
        let serve = try await ServeProcess.start([folder.path("van.geojson"), "--store", "memory", "--read", "token",
                                                  "--jwt-secret-file", folder.path("secret")])
        defer { _ = serve.stopNow() }
        let varnish = try await VarnishCache.started(backendPort: Int(serve.base.split(separator: ":").last ?? "") ?? 0)
        defer { varnish.stop() }
        let tile = WebMercator.tile(containing: Coordinate(longitude: 2.305, latitude: 48.853), zoom: 14)
        let path = "/tiles/14/\(tile.x)/\(tile.y).mvt"
        let acme = try await TestTokens.hs256(read: ["acme"])
        // With a credential, through the cache: the origin's answer, private, twice.
        for _ in 0..<2 {
            let read = try await get(varnish.base + path, headers: [("Authorization", "Bearer \(acme)")])
            #expect(read.status == 200 && read.header("Cache-Control")?.hasPrefix("private") == true)
        }
        let byParameter = try await get(varnish.base + path + "?access_token=\(acme)")
        #expect(byParameter.status == 200)
        // Then without: 401, never the tile the cache passed on before.
        let anonymous = try await get(varnish.base + path)
        #expect(anonymous.status == 401, "\(anonymous.status) \(anonymous.header("X-Varnish") ?? "")")
        // A signed URL: cached by its whole URL, the second answer a hit; a changed signature is still refused.
        let tilejson = try await get(serve.base + "/tiles.json", headers: [("Authorization", "Bearer \(acme)")]).json
        let template = try #require((tilejson["tiles"] as? [String])?.first)
        let query = try #require(template.split(separator: "?").last)
        let signed = varnish.base + path + "?" + query
        #expect(try await get(signed).status == 200)
        let again = try await get(signed)
        #expect(again.status == 200 && (again.header("X-Varnish") ?? "").split(separator: " ").count == 2, "a hit carries two ids")
        #expect(try await get(signed.replacingOccurrences(of: "sig=", with: "sig=x")).status == 403)
    }
}
