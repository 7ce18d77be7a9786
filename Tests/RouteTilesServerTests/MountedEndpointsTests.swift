import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import RouteTiles
import RouteTilesServer
import ServiceLifecycle
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `RouteTilesEndpoints` in a Hummingbird app's router, in process: the endpoints answer under the prefix as they
/// do at the root of `routetiles serve`, the app's routes and middleware stay the app's, and the URLs the endpoints
/// write carry the prefix, nested groups included.
@Suite(.timeLimit(.minutes(2))) struct MountedEndpointsTests {
    /// Adds `X-App` to every answer.
    struct AppMiddleware<Context: RequestContext>: RouterMiddleware {
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            var response = try await next(request, context)
            response.headers[HTTPField.Name("X-App")!] = "yes"
            return response
        }
    }

    /// Runs an app with the endpoints mounted at `/routes-tiles` and at `/api/v1/tiles` (a group's group), for
    /// `body`, and the plain server beside it for comparison.
    func withApp(_ body: @Sendable (String, TestServer.Handle) async throws -> Void) async throws {
        let backend = TileBackend.routes(Sample.parisRoutes(count: 2, points: 100), options: TestServer.options())
        try await TestServer.with(backend) { plain in
            var logger = Logger(label: "mounted")
            logger.logLevel = .warning
            var configuration = ServerConfiguration()
            configuration.corsOrigin = "*"
            let server = try RouteTilesServer(configuration: configuration, name: "test", backend: backend, logger: logger)
            let endpoints = RouteTilesEndpoints(server: server)
            let router = Router()
            router.add(middleware: AppMiddleware())
            router.get("hello") { _, _ in "hello" }
            endpoints.mount(on: router, at: "/routes-tiles")
            endpoints.mount(on: router.group("api").group("v1"), at: "tiles")
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
            let group = ServiceGroup(configuration: .init(services: [app] + endpoints.services, logger: logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                var iterator = ports.makeAsyncIterator()
                guard let port = await iterator.next() else { throw CancellationError() }
                do {
                    try await body("http://127.0.0.1:\(port)", plain)
                } catch {
                    await group.triggerGracefulShutdown()
                    throw error
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    static func get(_ url: String, headers: [(String, String)] = []) async throws -> TestServer.Reply {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await TestServer.client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 16 << 20)
        return TestServer.Reply(status: Int(response.status.code), headers: response.headers,
                                body: Array(body.readableBytesView))
    }

    @Test func tilesUnderThePrefixAnswerAsTheServerDoes() async throws {
        try await withApp { base, plain in
            let id = WebMercator.tile(containing: Coordinate(longitude: 2.3, latitude: 48.85), zoom: 12)
            let path = "/tiles/\(id.z)/\(id.x)/\(id.y).mvt"
            for (headers, prefix) in [([("Accept-Encoding", "gzip")], "/routes-tiles"), ([], "/api/v1/tiles")] {
                let mounted = try await Self.get(base + prefix + path, headers: headers)
                let direct = try await plain.request(.GET, path, headers: headers)
                #expect(mounted.status == 200 && mounted.body == direct.body)
                for name in ["ETag", "Content-Encoding", "Content-Type", "Cache-Control", "Vary", "Content-Length",
                             "Access-Control-Allow-Origin"] {
                    #expect(mounted.header(name) == direct.header(name), "\(name)")
                }
                #expect(mounted.header("X-App") == "yes")
                // 304 for the tag it got; 400 and 404 as the server sends them.
                let etag = try #require(mounted.header("ETag"))
                #expect(try await Self.get(base + prefix + path, headers: headers + [("If-None-Match", etag)]).status == 304)
            }
            #expect(try await Self.get(base + "/routes-tiles/tiles/1/5/0.mvt").status == 404)
            #expect(try await Self.get(base + "/routes-tiles/tiles/20/0/0.mvt").status == 404)
            #expect(try await Self.get(base + "/hello").text == "hello")
            // Outside the prefixes, RouteTiles does not answer.
            #expect(try await Self.get(base + path).status == 404)
        }
    }

    @Test func generatedURLsCarryThePrefix() async throws {
        try await withApp { base, _ in
            for prefix in ["/routes-tiles", "/api/v1/tiles"] {
                let tileJSON = try await Self.get(base + prefix + "/tiles.json").json
                #expect((tileJSON["tiles"] as? [String])?.first == base + prefix + "/tiles/{z}/{x}/{y}.mvt")
                let style = try await Self.get(base + prefix + "/style.json").json
                let source = (style["sources"] as? [String: Any])?["routes"] as? [String: Any]
                #expect(source?["url"] as? String == base + prefix + "/tiles.json")
                for page in [prefix, prefix + "/"] {
                    let viewer = try await Self.get(base + page)
                    #expect(viewer.status == 200 && viewer.text.contains("<base href=\"\(prefix)/\">"), "\(page)")
                }
                #expect(try await Self.get(base + prefix + "/viewer.js").status == 200)
                #expect(try await Self.get(base + prefix + "/routes").json["routes"] != nil)
            }
        }
    }
}
