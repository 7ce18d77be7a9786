import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RouteTiles
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `serve --purge` and `seed --follow` as an operator runs them: the binaries, a real Varnish with the shipped VCL
/// between them, and the options' checks.
@Suite(.timeLimit(.minutes(5))) struct CacheCLITests {
    static let token = "cli-cache-token"
    static let route = #"{"type":"Feature","properties":{"name":"cli"},"geometry":{"type":"LineString","coordinates":[[2.30,48.85],[2.305,48.853],[2.31,48.851]]}}"#

    func send(_ method: HTTPMethod, _ url: String, body: String? = nil, headers: [(String, String)] = [])
        async throws -> TestServer.Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Authorization", value: "Bearer \(Self.token)")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await TestServer.client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return TestServer.Reply(status: Int(response.status.code), headers: response.headers,
                                body: Array(bytes.readableBytesView))
    }

    @Test(.enabled(if: ExternalTool.required(VarnishCache.installed), "varnishd is not installed (apt-get install varnish)"))
    func servePurgesVarnishAndSeedFollowRewarmsWhatAnAppendChanged() async throws {
        let folder = try TemporaryFolder()
        let cachePort = try FreePort.loopback()
        let serve = try await ServeProcess.start([
            "--store", folder.path("routes.db"), "--write-token", Self.token, "--maxzoom", "14",
            "--purge", "http://127.0.0.1:\(cachePort)", "--purge-timeout", "1",
        ])
        defer { _ = serve.stopNow() }
        let varnish = try await VarnishCache.started(backendPort: Int(serve.base.split(separator: ":").last ?? "") ?? 0,
                                                     port: cachePort)
        defer { varnish.stop() }
        let created = try await send(.PUT, serve.base + "/routes/cli", body: Self.route)
        #expect(created.status == 200)
        let createdTiles = try #require(created.json["invalidated_tiles"] as? Int)
        let tile = WebMercator.tile(containing: Coordinate(longitude: 2.3105, latitude: 48.8511), zoom: 14)
        let path = "/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt"
        let gzip = [("Accept-Encoding", "gzip")]
        let cached = try await send(.GET, varnish.base + path, headers: gzip)
        #expect(cached.status == 200)
        #expect(cached.header("Cache-Control") == "public, max-age=5, stale-while-revalidate=15")
        #expect(cached.header("Last-Modified") == nil)

        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: ExternalTool.routetiles)
        follower.arguments = ["seed", "--follow", serve.base + "/events", "--url", varnish.base + "/tiles/{z}/{x}/{y}.mvt",
                              "--follow-seconds", "10", "--rate", "500"]
        let output = Pipe()
        follower.standardError = output
        follower.standardOutput = FileHandle.nullDevice
        try follower.run()
        defer { if follower.isRunning { follower.terminate() } }
        let ready = ExternalTool.read(output.fileHandleForReading, of: follower, until: "following")
        #expect(ready.contains("following \(serve.base)/events"), "\(ready)")

        let appended = try await send(.POST, serve.base + "/routes/cli/points", body: "[[2.3108,48.8512],[2.3112,48.8514]]")
        #expect(appended.status == 200)
        let invalidated = try #require(appended.json["invalidated_tiles"] as? Int)
        let fresh = try await send(.GET, serve.base + path, headers: gzip)
        #expect(fresh.header("ETag") != cached.header("ETag"))
        let deadline = Date().addingTimeInterval(1)
        var through = try await send(.GET, varnish.base + path, headers: gzip)
        while through.header("ETag") != fresh.header("ETag"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
            through = try await send(.GET, varnish.base + path, headers: gzip)
        }
        #expect(through.header("ETag") == fresh.header("ETag"), "stale through Varnish a second after the append")

        follower.waitUntilExit()
        let summary = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(follower.terminationStatus == 0, "\(summary)")
        #expect(summary.contains("1 changes followed"), "\(summary)")
        #expect(summary.contains("\(invalidated) tiles warmed, 0 failed"), "\(summary)")
        // Every tile of both changes purged once.
        let metrics = try await send(.GET, serve.base + "/metrics").text
        let purged = "routetiles_purged_tiles_total{cache=\"http://127.0.0.1:\(cachePort)\"} \(createdTiles + invalidated)"
        #expect(metrics.contains(purged), "\(metrics)")
    }

    @Test func theCacheOptionsAreChecked() async throws {
        let cases: [([String], String)] = [
            (["serve", "--purge", "http://127.0.0.1:6081"], "--purge needs --store"),
            (["serve", "--store", "memory", "--purge", "varnish:6081"], "--purge: 'varnish:6081' is not an http"),
            (["serve", "--store", "memory", "--purge", "http://v", "--purge-concurrency", "0"], "--purge-concurrency must be at least 1"),
            (["seed", "--follow", "http://127.0.0.1:1/events"], "--follow needs --url"),
            (["seed", "--follow", "http://127.0.0.1:1/events", "--url", "http://c/tiles/{z}/{x}/{y}.mvt", "--bbox", "0,0,1,1"],
             "--follow takes the tiles from the change events"),
            (["seed", "--bbox", "0,0,1,1", "--dry-run", "--follow-seconds", "3"], "--follow-seconds and --follow-tiles go with --follow"),
        ]
        for (arguments, message) in cases {
            let result = try await ExternalTool.runDetached(ExternalTool.routetiles, arguments)
            #expect(result.status != 0 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
