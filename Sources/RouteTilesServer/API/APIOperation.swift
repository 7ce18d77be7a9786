import HTTPTypes
import Hummingbird
import RouteTilesAccess
import Synchronization

/// What a handler gets besides the request: the request's path below the mount point, where the endpoints are
/// mounted (`RouteTilesEndpoints`; empty at the root), which the URLs it writes start with, and the parameters its
/// path pattern matched (none for the wrappers around the whole table).
struct APIContext: Sendable {
    var path: String
    var mountPath: String
    var parameters = PathParameters(tail: "")
    /// What the request's credential grants, set by `AccessControl` around the reads and writes: every group and
    /// no write where reads are public and nothing was checked.
    var grant: AccessGrant = .anonymous
    /// The client's address (its IP), when the server knows it: what per-address limits and the audit log use.
    var address: String?
    /// Around a write, where the handler notes who wrote which routes, for the audit log.
    var audit: AuditNote?
}

/// What a write's handler tells the audit log: the credential's subject and the route ids it wrote or was refused.
final class AuditNote: Sendable {
    private let state = Mutex<(subject: String?, ids: [String]?)>((nil, nil))

    var subject: String? {
        get { state.withLock { $0.subject } }
        set { state.withLock { $0.subject = newValue } }
    }

    var ids: [String]? {
        get { state.withLock { $0.ids } }
        set { state.withLock { $0.ids = newValue } }
    }
}

/// One operation of the HTTP API: a method and a path pattern, the `operationId` the OpenAPI document gives it, and
/// the handler that answers it.
struct APIOperation: Sendable {
    typealias Handler = @Sendable (Request, APIContext) async -> Response

    let method: HTTPRequest.Method
    let path: PathPattern
    /// The operation's `operationId` in `openapi.json`, which a test compares with this table.
    let id: String
    let handler: Handler

    init(_ method: HTTPRequest.Method, _ path: PathPattern, _ id: String, _ handler: @escaping Handler) {
        self.method = method
        self.path = path
        self.id = id
        self.handler = handler
    }

    /// This operation with its handler inside `wrapper` (`AccessControl`'s).
    func wrapped(by wrapper: (@escaping Handler) -> Handler) -> APIOperation {
        APIOperation(method, path, id, wrapper(handler))
    }

    /// A `GET` resource answered without waiting, and its `HEAD` (operation id `head…` for `get…`): the same
    /// answer without the body.
    static func page(_ path: String, _ id: String, _ answer: @escaping @Sendable (Request, APIContext) -> Response)
        -> [APIOperation]
    {
        page(PathPattern(path), id, answer)
    }

    static func page(_ path: PathPattern, _ id: String,
                     _ answer: @escaping @Sendable (Request, APIContext) -> Response) -> [APIOperation] {
        [
            APIOperation(.get, path, id) { request, context in answer(request, context) },
            APIOperation(.head, path, "head" + id.dropFirst("get".count)) { request, context in
                HTTPAnswers.head(of: answer(request, context))
            },
        ]
    }
}

/// A path that a server of this mode knows but does not serve (a tileset server's `/routes`): answered with
/// `status` and `message`, and for a 405 an empty `Allow`, since the table holds no method for it.
struct ClosedPath: Sendable {
    let path: PathPattern
    let status: HTTPResponse.Status
    let message: String
}
