import Hummingbird

/// The server's one responder: hands each request to the server's `ServerAPI` (its dispatch table inside the CORS
/// and recording wrappers).
///
/// Requests go by the dispatch table (method and path pattern → handler, the operations `openapi.json` describes)
/// rather than Hummingbird's trie router: the paths are few and fixed, the table computes `Allow` for a 405, and
/// the tile path, the hot one, is its first entry: one prefix test, then three integer parses.
public struct RouteTilesResponder: HTTPResponder {
    public typealias Context = BasicRequestContext

    let api: ServerAPI
    /// Where the endpoints answer in an app's router (`RouteTilesEndpoints`), which the URLs they generate start
    /// with: empty for `routetiles serve`, which has them at the root.
    let mountPath: String

    init(api: ServerAPI, mountPath: String = "") {
        self.api = api
        self.mountPath = mountPath
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        await answer(request, path: request.uri.path)
    }

    /// The answer to a request for `path` (the request's path, less `mountPath`).
    func answer(_ request: Request, path: String) async -> Response {
        await api.answer(request, path: path, mountPath: mountPath)
    }
}
