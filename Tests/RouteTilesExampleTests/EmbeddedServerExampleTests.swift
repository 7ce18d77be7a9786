import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RouteTiles
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Docs/Examples/EmbeddedServer, a Hummingbird app of its own with RouteTiles' endpoints mounted under
/// `/routes-tiles`, built as a separate package (as a user builds it) and run: its own route and a tile under the
/// prefix answer. The build is a separate one of Hummingbird and RouteTiles' server layer, minutes of CPU, hence
/// `.heavy`; a second run reuses its scratch folder under `.build/examples`.
@Suite(.heavy(limit: .seconds(1800))) struct EmbeddedServerExampleTests {
    static let example = PackageFolder.root.appendingPathComponent("Docs/Examples/EmbeddedServer")
    static let scratch = PackageFolder.root.appendingPathComponent(".build/examples/EmbeddedServer")

    @Test func theExampleBuildsAndServesItsRouteAndTilesUnderThePrefix() async throws {
        // The example resolves its dependencies at the versions the main package uses.
        let resolved = PackageFolder.root.appendingPathComponent("Package.resolved")
        let pinned = Self.example.appendingPathComponent("Package.resolved")
        if FileManager.default.fileExists(atPath: resolved.path) {
            try? FileManager.default.removeItem(at: pinned)
            try FileManager.default.copyItem(at: resolved, to: pinned)
        }
        let started = Date()
        let build = try await ExternalTool.runDetached("/usr/bin/env", [
            "swift", "build", "--package-path", Self.example.path, "--scratch-path", Self.scratch.path,
            "--product", "EmbeddedServer",
        ], timeout: 1800)
        try #require(build.status == 0, "swift build of the example failed:\n\(build.text)\n\(build.stderr)")
        print("EmbeddedServer example built in \(Int(Date().timeIntervalSince(started))) s")

        let app = try ExampleProcess(executable: Self.scratch.appendingPathComponent("debug/EmbeddedServer").path)
        defer { app.stop() }

        let hello = try await get(app.base + "/hello")
        #expect(hello.status == 200 && hello.text == "Hello from the app\n")
        #expect(hello.headers.first(name: "X-Powered-By") == "EmbeddedServer")

        // The tile over the two sample walks in Paris, under the prefix, through the app's middleware.
        let id = WebMercator.tile(containing: Coordinate(longitude: 2.3376, latitude: 48.8589), zoom: 12)
        let tile = try await get(app.base + "/routes-tiles/tiles/\(id.z)/\(id.x)/\(id.y).mvt",
                                 headers: [("Accept-Encoding", "gzip")])
        #expect(tile.status == 200)
        #expect(tile.headers.first(name: "Content-Encoding") == "gzip")
        #expect(tile.headers.first(name: "X-Powered-By") == "EmbeddedServer")
        let decoded = try VectorTileDecoder.decode(try Gzip.decompress(tile.body))
        #expect(decoded.layers.first?.features.count == 2)

        // The URLs the endpoints generate carry the prefix.
        let tileJSON = try await get(app.base + "/routes-tiles/tiles.json")
        let document = try JSONSerialization.jsonObject(with: Data(tileJSON.body)) as? [String: Any]
        #expect((document?["tiles"] as? [String])?.first == app.base + "/routes-tiles/tiles/{z}/{x}/{y}.mvt")
        let viewer = try await get(app.base + "/routes-tiles")
        #expect(viewer.status == 200 && viewer.text.contains(#"<base href="/routes-tiles/">"#))
        // Outside the prefix, the app's router answers (404), not RouteTiles.
        #expect(try await get(app.base + "/tiles/\(id.z)/\(id.x)/\(id.y).mvt").status == 404)
    }

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func get(_ url: String, headers: [(String, String)] = []) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await TestServer.client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Array(body.readableBytesView))
    }

    /// The example's binary on a free loopback port: it prints the port it bound.
    final class ExampleProcess {
        let process = Process()
        let base: String
        private let output = Pipe()

        init(executable: String) throws {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["0"]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            base = "http://" + (try ExternalTool.startServer(process, printingOn: output.fileHandleForReading, until: "\n",
                                                             address: #"127\.0\.0\.1:\d+"#)).address
        }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }

        deinit { stop() }
    }
}
