// A Hummingbird app with a route of its own and RouteTiles' endpoints mounted under /routes-tiles.
//
//   swift run EmbeddedServer [PORT] [ROUTES.geojson]
//
// PORT 0 (the default) picks a free port; the app prints the one it bound ("listening on 127.0.0.1:PORT").
// Without a routes file it serves two walks in Paris. Then, for instance:
//
//   curl http://127.0.0.1:PORT/hello
//   curl -H 'Accept-Encoding: gzip' -o tile.mvt http://127.0.0.1:PORT/routes-tiles/tiles/14/8299/5635.mvt
//   open http://127.0.0.1:PORT/routes-tiles/          (the viewer)
import Foundation
import Hummingbird
import Logging
import RouteTiles
import RouteTilesServer

let arguments = CommandLine.arguments.dropFirst()
let port = arguments.first.flatMap { Int($0) } ?? 0
let routesFile = arguments.dropFirst().first

var logger = Logger(label: "embedded-server")
logger.logLevel = .warning

// The routes: a file given, else the two bundled below.
let read = try routesFile.map { try RouteReader.read(path: $0) }
    ?? RouteReader.read(bytes: Array(sampleRoutes.utf8), name: "sample.geojson")
var options = TilingOptions()
options.maxZoom = 16

// RouteTiles' state: the configuration's host and port are not used when mounted; the app's own are.
let tiles = try RouteTilesServer(configuration: ServerConfiguration(), name: "Embedded example",
                                 backend: .routes(read.routes, options: options), logger: logger)
let endpoints = RouteTilesEndpoints(server: tiles)

let router = Router()
// A middleware of the app's own, around its routes and RouteTiles' alike.
router.add(middleware: PoweredByMiddleware())
router.get("hello") { _, _ in "Hello from the app\n" }
endpoints.mount(on: router, at: "/routes-tiles")

let app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
    services: endpoints.services,
    onServerRunning: { channel in
        // Unbuffered, so that a program that started this one reads the port at once.
        FileHandle.standardOutput.write(Data("listening on 127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
    },
    logger: logger
)
try await app.runService()

/// Adds `X-Powered-By` to every answer: the app's middleware runs around the mounted endpoints too.
struct PoweredByMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        response.headers[.init("X-Powered-By")!] = "EmbeddedServer"
        return response
    }
}

var sampleRoutes: String {
    """
    {"type": "FeatureCollection", "features": [
      {"type": "Feature", "id": "seine-walk", "properties": {"name": "Along the Seine", "color": "#db2777"},
       "geometry": {"type": "LineString", "coordinates": [
         [2.2945, 48.8584], [2.3013, 48.8629], [2.3120, 48.8637], [2.3215, 48.8631], [2.3298, 48.8610],
         [2.3376, 48.8589], [2.3469, 48.8560], [2.3522, 48.8530], [2.3601, 48.8506]]}},
      {"type": "Feature", "id": "montmartre", "properties": {"name": "Up to Montmartre"},
       "geometry": {"type": "LineString", "coordinates": [
         [2.3376, 48.8589], [2.3390, 48.8655], [2.3400, 48.8738], [2.3410, 48.8800], [2.3431, 48.8867]]}}
    ]}
    """
}
