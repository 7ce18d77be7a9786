import HTTPTypes
import Hummingbird

/// Method and path pattern → handler: every operation of the HTTP API a server of one mode serves, in the order
/// paths are tried (`ServerAPI` builds it: a tileset server's table has no route, write or event operations).
///
/// A request takes the first operation whose pattern matches its path and whose method is its method. When patterns
/// match but none has the method, the answer is 405 with `Allow` listing the methods of those patterns, so `Allow`
/// always says what the table holds. A path this mode closes (`ClosedPath`) gets its own answer, with an empty
/// `Allow` for a 405. When no pattern matches, 404. `OPTIONS` (CORS preflight) is answered on every path by the
/// wrapper around the table (`CORSHeaders`).
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
        case closed(ClosedPath)
        case notFound
    }

    let operations: [APIOperation]
    let closed: [ClosedPath]

    init(operations: [APIOperation], closed: [ClosedPath] = []) {
        self.operations = operations
        self.closed = closed
    }

    /// The answer of the operation the request resolves to, or of the table when none does.
    func answer(_ request: Request, context: APIContext) async -> Response {
        let path = context.path
        switch resolve(request.method, path[...]) {
        case let .operation(operation, parameters):
            var context = context
            context.parameters = parameters
            return await operation.handler(request, context)
        case let .methodNotAllowed(allow):
            return HTTPAnswers.error(.methodNotAllowed, "method not allowed; allowed: \(allow)", headers: [.allow: allow])
        case let .closed(closed):
            return HTTPAnswers.error(closed.status, closed.message,
                                     headers: closed.status == .methodNotAllowed ? [.allow: ""] : [:])
        case .notFound:
            return HTTPAnswers.error(.notFound, "no such resource: \(path)")
        }
    }

    /// The methods in the order an `Allow` header lists them.
    private static let methodOrder: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete]

    func resolve(_ method: HTTPRequest.Method, _ path: Substring) -> Resolution {
        var allowed: Set<HTTPRequest.Method> = []
        var lastPattern: PathPattern?
        var lastMatch: PathParameters?
        for operation in operations {
            // Operations of one pattern are mostly adjacent: a pattern is matched again only where it recurs.
            if operation.path != lastPattern {
                lastPattern = operation.path
                lastMatch = operation.path.match(path)
            }
            guard let parameters = lastMatch else { continue }
            if operation.method == method { return .operation(operation, parameters) }
            allowed.insert(operation.method)
        }
        guard !allowed.isEmpty else {
            if let closed = closed.first(where: { $0.path.match(path) != nil }) { return .closed(closed) }
            return .notFound
        }
        let allow = Self.methodOrder.filter(allowed.contains).map(\.rawValue)
            + allowed.subtracting(Self.methodOrder).map(\.rawValue).sorted()
        return .methodNotAllowed(allow: allow.joined(separator: ", "))
    }
}
