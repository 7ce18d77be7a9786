import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RouteTiles

/// The server's one responder: dispatches on the path, adds CORS headers, counts and logs every response.
///
/// A hand-written dispatch rather than Hummingbird's trie router: the paths are few and fixed, and the tile path is
/// the hot one, answered with one prefix test and three integer parses.
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

    private func dispatch(_ request: Request, path: String) async -> Response {
        if request.method == .options { return preflight() }
        if path.hasPrefix("/tiles/") {
            guard request.method == .get || request.method == .head else { return notAllowed("GET, HEAD") }
            return await tile(request, path: path.dropFirst("/tiles/".count))
        }
        if path == "/routes" || path.hasPrefix("/routes/") {
            return await routes(request, path: path)
        }
        if path == "/events" {
            guard request.method == .get else { return notAllowed("GET") }
            return await events(request)
        }
        if path.hasPrefix("/assets/") {
            guard request.method == .get || request.method == .head else { return notAllowed("GET, HEAD") }
            return asset(path.dropFirst("/assets/".count), head: request.method == .head)
        }
        let page: (() -> Response)?
        switch path {
        case "/", "/index.html": page = { viewer() }
        case "/tiles.json": page = { tileJSON(request) }
        case "/style.json": page = { style(request) }
        case "/viewer.js": page = { HTTPAnswers.bytes(ViewerFiles.script, contentType: "text/javascript; charset=utf-8",
                                                      headers: [.cacheControl: "no-cache"]) }
        case "/viewer.css": page = { HTTPAnswers.bytes(ViewerFiles.stylesheet, contentType: "text/css; charset=utf-8",
                                                       headers: [.cacheControl: "no-cache"]) }
        case "/health": page = { health() }
        case "/health/live": page = { HTTPAnswers.json(["status": "ok"]) }
        case "/health/ready": page = { readiness() }
        case "/metrics": page = { metricsText() }
        case "/favicon.ico": page = { HTTPAnswers.empty(.noContent, headers: [.cacheControl: "public, max-age=86400"]) }
        default: page = nil
        }
        guard let page else { return HTTPAnswers.error(.notFound, "no such resource: \(path)") }
        guard request.method == .get || request.method == .head else { return notAllowed("GET, HEAD") }
        let response = page()
        return request.method == .head ? HTTPAnswers.head(of: response) : response
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
