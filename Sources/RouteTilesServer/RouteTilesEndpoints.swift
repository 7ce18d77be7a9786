import HTTPTypes
import Hummingbird
import RouteTiles
import ServiceLifecycle

/// RouteTiles' endpoints in a Hummingbird app of one's own: mounted under a path prefix of the app's router, beside
/// the app's routes and inside the middleware the app adds before mounting them. Everything `routetiles serve`
/// answers at its root answers under the prefix: the tiles, `tiles.json`, `style.json`, the viewer (`/`,
/// `viewer.js`, `viewer.css`), the routes (`routes`, writes included when a token is configured), `events`,
/// `health` and `metrics`. The URLs they generate (tile URLs in `tiles.json`, the source in `style.json`, the
/// viewer's requests) carry the prefix.
///
/// Tiles go through the same core decisions (`TileResponder`) as `routetiles serve`, but through the app's router:
/// the cached-tile fast path in front of the HTTP decoder is `RouteTilesServer.application`'s alone.
///
/// ```swift
/// let tiles = try RouteTilesServer(configuration: configuration, name: "routes", backend: backend, logger: logger)
/// let endpoints = RouteTilesEndpoints(server: tiles)
/// let router = Router()
/// router.get("hello") { _, _ in "Hello" }
/// endpoints.mount(on: router, at: "/routes-tiles")
/// let app = Application(router: router, services: endpoints.services)
/// ```
public struct RouteTilesEndpoints: Sendable {
    let state: ServerState

    public init(server: RouteTilesServer) {
        state = server.state
    }

    /// Adds the endpoints under `prefix` (`"/routes-tiles"`; `""` or `"/"` for the root) to `router`: a router or
    /// a group of one, whose middleware then runs around them.
    public func mount<Methods: RouterMethods>(on router: Methods, at prefix: String) {
        let group = router.group(RouterPath(prefix))
        let state = self.state
        for method: HTTPRequest.Method in [.get, .head, .post, .put, .delete, .options] {
            // The prefix alone (the viewer), and anything below it.
            group.on("", method: method) { request, context in
                await Self.answer(request, rest: [], state: state,
                                  address: (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress)
            }
            group.on("**", method: method) { request, context in
                await Self.answer(request, rest: context.parameters.getCatchAll(), state: state,
                                  address: (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress)
            }
        }
    }

    /// The services the endpoints need beside the app (give them to `Application(router:services:)` or to the
    /// app's service group): the access log's flusher, for live routes the reader of applied changes (expire log,
    /// `/events`, metrics, observers of invalidated tiles), the follower of the route store and the finder of route
    /// covers, and the closer of `/events` streams at shutdown.
    public var services: [any Service] {
        RouteTilesServer.backgroundServices(state: state)
    }

    /// Answers with the path below the mount point (`rest`, the components the router's `**` caught); the mount
    /// point is what comes before them in the request's path, wherever the router was itself mounted.
    static func answer(_ request: Request, rest: [Substring], state: ServerState, address: String? = nil) async -> Response {
        let full = request.uri.path
        var path = "/" + rest.joined(separator: "/")
        if !rest.isEmpty, full.hasSuffix("/") { path += "/" }
        var mountPath = full.hasSuffix(path) ? String(full.dropLast(path.count)) : ""
        if rest.isEmpty { mountPath = full }
        while mountPath.hasSuffix("/") { mountPath.removeLast() }
        return await state.api.answer(request, path: path, mountPath: mountPath, address: address)
    }
}
