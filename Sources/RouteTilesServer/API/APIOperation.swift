import HTTPTypes
import Hummingbird

/// One operation of the HTTP API: a method and a path pattern, the `operationId` the OpenAPI document gives it, and
/// the handler that answers it.
struct APIOperation: Sendable {
    typealias Handler = @Sendable (RouteTilesResponder, Request, PathParameters) async -> Response

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
}
