import Hummingbird
import NIOCore

/// The server's one responder: hands each request to the server's `ServerAPI` (its dispatch table inside the CORS
/// and recording wrappers).
///
/// Requests go by the dispatch table (method and path pattern → handler, the operations `openapi.json` describes)
/// rather than Hummingbird's trie router: the paths are few and fixed, the table computes `Allow` for a 405, and
/// the tile path, the hot one, is its first entry: one prefix test, then three integer parses.
public struct RouteTilesResponder: HTTPResponder {
    public typealias Context = RouteTilesRequestContext

    let api: ServerAPI
    /// Where the endpoints answer in an app's router (`RouteTilesEndpoints`), which the URLs they generate start
    /// with: empty for `routetiles serve`, which has them at the root.
    let mountPath: String

    init(api: ServerAPI, mountPath: String = "") {
        self.api = api
        self.mountPath = mountPath
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        await answer(request, path: request.uri.path, address: context.remoteAddress?.ipAddress)
    }

    /// The answer to a request for `path` (the request's path, less `mountPath`) from `address`.
    func answer(_ request: Request, path: String, address: String? = nil) async -> Response {
        await api.answer(request, path: path, mountPath: mountPath, address: address)
    }
}

/// The request context of `routetiles serve`: Hummingbird's basic one, and the client's address, which rate
/// limits and the audit log key on.
public struct RouteTilesRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
