import HTTPTypes
import Hummingbird

/// Method and path pattern → handler: every operation of the HTTP API, in the order paths are tried.
///
/// A request takes the first operation whose pattern matches its path and whose method is its method. When patterns
/// match but none has the method, the answer is 405 with `Allow` listing the methods of those patterns, so `Allow`
/// always says what the table holds. When no pattern matches, 404. `OPTIONS` (CORS preflight) is answered on every
/// path before the table is asked (`RouteTilesResponder`).
///
/// Order matters twice: tiles come first, so the hot path is one prefix test; and the literal `/routes/points` comes
/// before `/routes/{id}`, so `POST /routes/points` is the batch append while `GET`, `PUT` and `DELETE` of that path
/// address the route whose id is `points` (`HEAD` and `GET` of a resource are separate entries: `HEAD` answers as
/// `GET` without the body).
struct DispatchTable: Sendable {
    enum Resolution {
        case operation(APIOperation, PathParameters)
        /// The path is known, the method is not: the methods it allows, as an `Allow` value.
        case methodNotAllowed(allow: String)
        case notFound
    }

    let operations: [APIOperation]

    /// The methods in the order an `Allow` header lists them.
    private static let methodOrder: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete]

    func resolve(_ method: HTTPRequest.Method, _ path: Substring) -> Resolution {
        var allowed: Set<HTTPRequest.Method> = []
        var lastPattern: PathPattern?
        var lastMatch: PathParameters?
        for operation in operations {
            // Operations of one pattern are adjacent: match each pattern once.
            if operation.path != lastPattern {
                lastPattern = operation.path
                lastMatch = operation.path.match(path)
            }
            guard let parameters = lastMatch else { continue }
            if operation.method == method { return .operation(operation, parameters) }
            allowed.insert(operation.method)
        }
        guard !allowed.isEmpty else { return .notFound }
        let allow = Self.methodOrder.filter(allowed.contains).map(\.rawValue)
            + allowed.subtracting(Self.methodOrder).map(\.rawValue).sorted()
        return .methodNotAllowed(allow: allow.joined(separator: ", "))
    }
}

extension DispatchTable {
    /// The HTTP API of `routetiles serve`, as `openapi.json` describes it.
    static let api: DispatchTable = {
        let tiles = PathPattern(subtree: "/tiles/", documentedAs: "/tiles/{z}/{x}/{y}.mvt")
        var operations = [
            APIOperation(.get, tiles, "getTile") { r, request, p in await r.tile(request, path: p.tail) },
            APIOperation(.head, tiles, "headTile") { r, request, p in await r.tile(request, path: p.tail) },
            APIOperation(.get, PathPattern("/routes"), "listRoutes") { r, request, _ in await r.listRoutes(request) },
            APIOperation(.post, PathPattern("/routes"), "createRoutes") { r, request, _ in await r.createRoutes(request) },
            APIOperation(.post, PathPattern("/routes/points"), "appendToRoutes") { r, request, _ in
                await r.appendToMany(request)
            },
            APIOperation(.get, PathPattern("/routes/{id}"), "getRoute") { r, _, p in await r.getRoute(key: p.decoded("id")) },
            APIOperation(.put, PathPattern("/routes/{id}"), "replaceRoute") { r, request, p in
                await r.replaceRoute(request, key: p.decoded("id"))
            },
            APIOperation(.delete, PathPattern("/routes/{id}"), "deleteRoute") { r, request, p in
                await r.deleteRoute(request, key: p.decoded("id"))
            },
            APIOperation(.post, PathPattern("/routes/{id}/points"), "appendToRoute") { r, request, p in
                await r.appendToRoute(request, key: p.decoded("id"))
            },
            APIOperation(.get, PathPattern("/events"), "streamEvents") { r, request, _ in await r.events(request) },
        ]
        operations += page("/", "getViewer") { r, _, _ in r.viewer() }
        operations += page("/index.html", "getViewerPage") { r, _, _ in r.viewer() }
        operations += page("/viewer.js", "getViewerScript") { _, _, _ in
            HTTPAnswers.bytes(ViewerFiles.script, contentType: "text/javascript; charset=utf-8",
                              headers: [.cacheControl: "no-cache"])
        }
        operations += page("/viewer.css", "getViewerStylesheet") { _, _, _ in
            HTTPAnswers.bytes(ViewerFiles.stylesheet, contentType: "text/css; charset=utf-8",
                              headers: [.cacheControl: "no-cache"])
        }
        operations += page("/favicon.ico", "getFavicon") { _, _, _ in
            HTTPAnswers.empty(.noContent, headers: [.cacheControl: "public, max-age=86400"])
        }
        operations += page(PathPattern(subtree: "/assets/", documentedAs: "/assets/{path}"), "getAsset") { r, _, p in
            r.asset(p.tail)
        }
        operations += page("/tiles.json", "getTileJSON") { r, request, _ in r.tileJSON(request) }
        operations += page("/style.json", "getStyle") { r, request, _ in r.style(request) }
        operations += page("/health", "getHealth") { r, _, _ in r.health() }
        operations += page("/health/live", "getLiveness") { _, _, _ in HTTPAnswers.json(ProbeAnswer(status: "ok")) }
        operations += page("/health/ready", "getReadiness") { r, _, _ in r.readiness() }
        operations += page("/metrics", "getMetrics") { r, _, _ in r.metricsText() }
        operations += page("/openapi.json", "getOpenAPIDocument") { _, _, _ in
            HTTPAnswers.bytes(OpenAPIDocument.json, contentType: "application/json", headers: [.cacheControl: "no-cache"])
        }
        return DispatchTable(operations: operations)
    }()

    /// A `GET` resource answered without waiting, and its `HEAD` (operation id `head…` for `get…`): the same
    /// answer without the body.
    private static func page(_ path: String, _ id: String,
                             _ answer: @escaping @Sendable (RouteTilesResponder, Request, PathParameters) -> Response)
        -> [APIOperation]
    {
        page(PathPattern(path), id, answer)
    }

    private static func page(_ path: PathPattern, _ id: String,
                             _ answer: @escaping @Sendable (RouteTilesResponder, Request, PathParameters) -> Response)
        -> [APIOperation]
    {
        [
            APIOperation(.get, path, id) { r, request, p in answer(r, request, p) },
            APIOperation(.head, path, "head" + id.dropFirst("get".count)) { r, request, p in
                HTTPAnswers.head(of: answer(r, request, p))
            },
        ]
    }
}
