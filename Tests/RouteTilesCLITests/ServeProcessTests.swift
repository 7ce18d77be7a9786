import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RouteTiles
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `routetiles serve` as a user runs it: the binary, its printed URL, and its shutdown on SIGTERM.
@Suite struct ServeProcessTests {
    func get(_ url: String) async throws -> (Int, [UInt8]) {
        let response = try await TestServer.client.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), Array(body.readableBytesView))
    }

    @Test func withNoArgumentItServesTheBundledSamples() async throws {
        let serve = try await ServeProcess.start([])
        let (status, body) = try await get(serve.base + "/tiles.json")
        #expect(status == 200)
        let tileJSON = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect((tileJSON["tiles"] as? [String])?.first == serve.base + "/tiles/{z}/{x}/{y}.mvt")
        // Paris is in the samples: the z12 tile over the centre holds routes.
        let tile = WebMercator.tile(containing: Coordinate(longitude: 2.35, latitude: 48.86), zoom: 12)
        #expect(try await get(serve.base + "/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt").0 == 200)
        #expect(try await get(serve.base + "/").0 == 200)
        #expect(await serve.stop() == 0)
    }

    /// A port already taken: the server says so and exits, with live routes too, whose reader of changes waits on
    /// its stream (it once waited for ever when the service group cancelled it, so `serve` hung instead of exiting).
    @Test(.timeLimit(.minutes(3))) func aPortInUseEndsTheServerWithAnError() async throws {
        let first = try await ServeProcess.start([])
        defer { _ = first.stopNow() }
        let port = try #require(first.base.split(separator: ":").last.map(String.init))
        let started = Date()
        let second = try await ExternalTool.runDetached(
            ExternalTool.routetiles,
            ["serve", PackageFolder.root.path + "/Tiles/samples/berlin-transit.geojson", "--port", port,
             "--log-level", "warning"],
            timeout: 120)
        #expect(second.status != 0)
        // Ended by itself, not by the 120 s timer.
        #expect(Date().timeIntervalSince(started) < 100, "\(second.stderr)")
        #expect(second.stderr.lowercased().contains("address already in use"), "\(second.stderr)")
    }

    @Test func sigtermLetsARequestInFlightFinish() async throws {
        let serve = try await ServeProcess.start(["--store", "memory", "--write-token", "shutdown-token"])
        let feature = #"{"type":"Feature","id":"late","properties":{},"geometry":{"type":"LineString","coordinates":[[2.3,48.8],[2.4,48.9]]}}"#
        let bytes = Array(feature.utf8)
        let (chunks, feed) = AsyncStream.makeStream(of: ByteBuffer.self)
        var request = HTTPClientRequest(url: serve.base + "/routes")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer shutdown-token")
        request.headers.add(name: "Content-Type", value: "application/geo+json")
        request.body = .stream(chunks, length: .known(Int64(bytes.count)))
        // Half the body goes out, the server starts the request, then SIGTERM arrives before the rest.
        feed.yield(ByteBuffer(bytes: bytes[..<40]))
        async let response = TestServer.client.execute(request, timeout: .seconds(120))
        // SIGTERM only once the server has started the request: the POST and the metrics request itself in flight.
        // Up to 3 minutes: in a full run on two loaded cores, the client's request was not in flight after 90 s.
        var started = false
        let deadline = Date().addingTimeInterval(180)
        while !started, Date() < deadline {
            let (_, metrics) = try await get(serve.base + "/metrics")
            started = String(decoding: metrics, as: UTF8.self).split(separator: "\n")
                .contains { $0.hasPrefix("routetiles_http_requests_in_flight ") && (Double($0.split(separator: " ")[1]) ?? 0) >= 2 }
            if !started { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(started, "the server never showed the POST in flight")
        kill(serve.process.processIdentifier, SIGTERM)
        // The shutdown has begun once the listener is closed: new connections are refused (bounded: 30 s).
        let port = Int(serve.base.split(separator: ":").last ?? "") ?? 0
        let closeDeadline = Date().addingTimeInterval(30)
        while FreePort.accepts(port: port), Date() < closeDeadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!FreePort.accepts(port: port), "the server still listens after SIGTERM")
        #expect(serve.process.isRunning, "the server quit with a request in flight")
        feed.yield(ByteBuffer(bytes: bytes[40...]))
        feed.finish()
        let reply = try await response
        #expect(reply.status == .created)
        let exitDeadline = Date().addingTimeInterval(20)
        while serve.process.isRunning && Date() < exitDeadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!serve.process.isRunning)
        serve.process.waitUntilExit()
        #expect(serve.process.terminationStatus == 0)
    }

    /// With the default log level, every request gets one access-log line, written off the request path and all
    /// of them written out when the server stops: fast-path answers, misses and errors alike, in order.
    @Test func theAccessLogHasALineForEveryRequest() async throws {
        let serve = try await ServeProcess.start(["Tiles/samples/paris-runs.geojson"], logLevel: "info")
        let tile = WebMercator.tile(containing: Coordinate(longitude: 2.35, latitude: 48.86), zoom: 12)
        let path = "/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt"
        var request = HTTPClientRequest(url: serve.base + path)
        request.headers.add(name: "Accept-Encoding", value: "gzip")
        for _ in 0..<3 {
            let response = try await TestServer.client.execute(request, timeout: .seconds(60))
            _ = try await response.body.collect(upTo: 1 << 20)
            #expect(response.status == .ok)
        }
        #expect(try await get(serve.base + "/health").0 == 200)
        #expect(try await get(serve.base + "/nothing-here").0 == 404)
        let metrics = String(decoding: try await get(serve.base + "/metrics").1, as: UTF8.self)
        #expect(metrics.contains("\nroutetiles_access_log_dropped_lines 0"), "no line dropped, and the gauge is there")
        #expect(await serve.stop() == 0)
        let lines = serve.standardError().split(separator: "\n").filter { $0.contains(" info routetiles: ") && !$0.contains("[") }
        let requests = lines.map { $0.split(separator: " ").dropFirst(3).prefix(3).joined(separator: " ") }
        #expect(requests == ["GET \(path) 200", "GET \(path) 200", "GET \(path) 200", "GET /health 200",
                             "GET /nothing-here 404", "GET /metrics 200"], "\(lines)")
        #expect(lines.allSatisfy { $0.hasSuffix("ms") && $0.first?.isNumber == true })
    }

    /// `serve` takes build's tiling options, and a tile it serves is the tile build writes with the same options.
    @Test func servedTilesEqualBuiltTilesWithTheSameOptions() async throws {
        let tmp = try TemporaryFolder()
        let input = PackageFolder.root.path + "/Tiles/samples/berlin-transit.geojson"
        let options = ["--maxzoom", "13", "--buffer", "16", "--simplify", "2", "--line-metrics", "--layer", "lines",
                       "--compression-level", "9"]
        let built = try await ExternalTool.runDetached(ExternalTool.routetiles, ["build", input, "-o", tmp.path("out"), "--quiet"] + options)
        #expect(built.status == 0, "\(built.stderr)")
        let source = try TileStoreFormat.openSource(path: tmp.path("out"))
        let ids = try source.tileIDs().sorted()
        #expect(ids.count > 50)
        let serve = try await ServeProcess.start([input] + options)
        for id in ids {
            let (status, body) = try await get(serve.base + "/tiles/\(id.z)/\(id.x)/\(id.y).mvt")
            #expect(status == 200)
            // The client asks for no encoding, so the body is the plain MVT.
            #expect(body == (try Gzip.decompress(try #require(try source.gzipTile(id)))), "\(id)")
        }
        #expect(try await get(serve.base + "/tiles/14/0/0.mvt").0 == 404)
        #expect(await serve.stop() == 0)
    }

    /// `serve --keep-for`: a track whose first positions are older than the bound loses them as soon as the server
    /// starts (and at least once a minute after), through the store; a bound that is no duration is refused.
    @Test func keepForTrimsPositionsOlderThanTheBound() async throws {
        let refused = try await ExternalTool.runDetached(ExternalTool.routetiles,
                                                         ["serve", "--store", "memory", "--keep-for", "0s"], timeout: 120)
        #expect(refused.status != 0 && refused.stderr.contains("--keep-for takes a duration"), "\(refused.stderr)")
        let folder = try TemporaryFolder()
        let now = Date().timeIntervalSince1970
        // Two hours of a van's track, a position every minute: the first hour is past the bound.
        let times = (0...120).map { TimeValue.iso(Int64((now - Double(120 - $0) * 60) * 1000)) }
        let coordinates = (0...120).map { "[\(2.30 + Double($0) * 1e-3),\(48.85 + Double($0 % 5) * 1e-4)]" }
        let feature = #"{"type":"Feature","id":"van","properties":{"coordTimes":[\#(times.map { "\"\($0)\"" }.joined(separator: ","))]},"geometry":{"type":"LineString","coordinates":[\#(coordinates.joined(separator: ","))]}}"#
        try Data(feature.utf8).write(to: URL(fileURLWithPath: folder.path("van.geojson")))
        let serve = try await ServeProcess.start([folder.path("van.geojson"), "--store", "sqlite:" + folder.path("r.db"),
                                                  "--keep-for", "1h"])
        var kept: [Int64] = []
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let (status, body) = try await get(serve.base + "/routes/van")
            let properties = (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["properties"] as? [String: Any]
            kept = try ((properties?["coordTimes"] as? [String]) ?? []).map { try TimeValue.parse($0) }
            if status == 200, !kept.isEmpty, kept.count < 121 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        // The hour before the server's clock at the trim, a little after `now`: 60 or 61 positions, the newest.
        #expect((59...61).contains(kept.count), "\(kept.count) positions kept")
        #expect(kept.first.map { Double($0) / 1000 >= now - 3_600 } == true)
        #expect(await serve.stop() == 0)
    }
}
