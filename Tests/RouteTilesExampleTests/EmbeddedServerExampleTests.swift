import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RouteTiles
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Docs/Examples/EmbeddedServer, a Hummingbird app of its own with RouteTiles' endpoints mounted under
/// `/routes-tiles`, run: its own route and a tile under the prefix answer. The main package compiles the app as its
/// `EmbeddedServer` target (Tests/layering/check_modules_alone.sh type-checks it against the public API alone, as its
/// own package compiles it); this checks that the example's package asks for products the main package has.
@Suite struct EmbeddedServerExampleTests {
    static let example = PackageFolder.root.appendingPathComponent("Docs/Examples/EmbeddedServer")

    @Test func theExamplesPackageNamesTheProductsOfThisOne() async throws {
        let manifest = try await Self.manifest(of: Self.example)
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        let app = try #require(targets.first { $0["name"] as? String == "EmbeddedServer" })
        // The products it takes from RouteTiles, by name.
        let products = (app["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency -> String? in
            guard let product = dependency["product"] as? [Any], product.count > 1,
                  product[1] as? String == "RouteTiles" else { return nil }
            return product[0] as? String
        }
        #expect(Set(products) == ["RouteTiles", "RouteTilesServer"])
        // Its dependency on RouteTiles is this package, by path.
        let dependencies = try #require(manifest["dependencies"] as? [[String: Any]])
        let paths = dependencies.compactMap { ($0["fileSystem"] as? [[String: Any]])?.first?["path"] as? String }
        #expect(paths.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
                    == [PackageFolder.root.standardizedFileURL.path])
        // And those are products of this package.
        let ourManifest = try await Self.manifest(of: PackageFolder.root)
        let ourProducts = (ourManifest["products"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(Set(products).isSubset(of: Set(ourProducts)), "the example asks for \(products); we have \(ourProducts)")
    }

    /// A package's manifest as SwiftPM reads it (`dump-package`), in a scratch folder of its own: `swift test` holds
    /// the lock of the main one.
    static func manifest(of package: URL) async throws -> [String: Any] {
        let scratch = try TemporaryFolder()
        let dump = try await ExternalTool.runDetached("/usr/bin/env", [
            "swift", "package", "--package-path", package.path, "--scratch-path", scratch.path("scratch"), "dump-package",
        ], timeout: 120)
        try #require(dump.status == 0, "swift package dump-package of \(package.path) failed:\n\(dump.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(dump.text.utf8)) as? [String: Any])
    }

    @Test func theExampleServesItsRouteAndTilesUnderThePrefix() async throws {
        let app = try ExampleProcess(executable: ExternalTool.productsFolder.appendingPathComponent("EmbeddedServer").path)
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
