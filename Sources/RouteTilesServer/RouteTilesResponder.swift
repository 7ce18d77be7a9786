import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RouteTiles

/// The server's one responder: dispatches on the path, adds CORS headers, counts and logs every response.
///
/// Requests go by `DispatchTable.api` (method and path pattern → handler, the operations `openapi.json` describes)
/// rather than Hummingbird's trie router: the paths are few and fixed, the table computes `Allow` for a 405, and
/// the tile path, the hot one, is its first entry: one prefix test, then three integer parses.
public struct RouteTilesResponder: HTTPResponder {
    public typealias Context = BasicRequestContext

    let state: ServerState
    /// Where the endpoints answer in an app's router (`RouteTilesEndpoints`), which the URLs they generate start
    /// with: empty for `routetiles serve`, which has them at the root.
    let mountPath: String

    init(state: ServerState, mountPath: String = "") {
        self.state = state
        self.mountPath = mountPath
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        await answer(request, path: request.uri.path)
    }

    /// The answer to a request for `path` (the request's path, less `mountPath`).
    func answer(_ request: Request, path: String) async -> Response {
        let started = ContinuousClock.now
        state.metrics.requestStarted()
        defer { state.metrics.requestEnded() }
        var response = await dispatch(request, path: path)
        addCORS(to: &response.headers, method: request.method)
        // Body bytes: a HEAD answer sends the Content-Length of a GET but no body.
        let bytes = request.method == .head ? 0 : response.headers[.contentLength].flatMap { Int($0) } ?? 0
        record(method: request.method, path: request.uri.path, status: response.status.code, bytes: bytes,
               started: started)
        return response
    }

    /// The CORS headers every answer carries (`--cors`, default `*`).
    func addCORS(to headers: inout HTTPFields, method: HTTPRequest.Method) {
        guard let origin = state.configuration.corsOrigin else { return }
        // No answer sets these itself: appended rather than assigned, which would first look for them.
        headers.append(HTTPField(name: .accessControlAllowOrigin, value: origin))
        if method != .options {
            headers.append(HTTPField(name: .accessControlExposeHeaders, value: "ETag, Content-Encoding"))
        }
    }

    /// Counts an answered request in the metrics and writes its access-log line.
    func record(method: HTTPRequest.Method, path: @autoclosure () -> String, status: Int, bytes: Int,
                started: ContinuousClock.Instant?) {
        state.metrics.countRequest(status: status)
        state.metrics.bytesSent.increment(by: bytes)
        if let accessLog = state.accessLog, let started {
            let elapsed = (ContinuousClock.now - started).components
            let ms = (Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds / 1_000_000_000_000) / 1000)
            accessLog.record(method: method.rawValue, path: path(), status: status, bytes: bytes, milliseconds: ms)
        }
    }

    /// `OPTIONS` on any path is a CORS preflight; every other request goes by `DispatchTable.api`.
    private func dispatch(_ request: Request, path: String) async -> Response {
        if request.method == .options { return preflight() }
        switch DispatchTable.api.resolve(request.method, path[...]) {
        case let .operation(operation, parameters): return await operation.handler(self, request, parameters)
        case let .methodNotAllowed(allow): return notAllowed(allow)
        case .notFound: return HTTPAnswers.error(.notFound, "no such resource: \(path)")
        }
    }

    private func preflight() -> Response {
        var headers: HTTPFields = [:]
        headers[.accessControlAllowMethods] = "GET, HEAD, POST, PUT, DELETE, OPTIONS"
        headers[.accessControlAllowHeaders] = "Authorization, Content-Type, If-None-Match"
        headers[.accessControlMaxAge] = "86400"
        return HTTPAnswers.empty(.noContent, headers: headers)
    }

    func notAllowed(_ allow: String) -> Response {
        HTTPAnswers.error(.methodNotAllowed, "method not allowed; allowed: \(allow)", headers: [.allow: allow])
    }

    /// `--public-url`, else `http://` and the request's Host; then the mount path.
    func baseURL(_ request: Request) -> String {
        if var url = state.configuration.publicURL {
            while url.hasSuffix("/") { url.removeLast() }
            return url + mountPath
        }
        let host = request.head.authority ?? "\(state.configuration.host):\(state.configuration.port)"
        return "http://\(host)" + mountPath
    }
}
