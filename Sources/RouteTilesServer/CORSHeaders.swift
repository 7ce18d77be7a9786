import HTTPTypes
import Hummingbird

/// The CORS headers of every answer (`--cors`, default `*`), and the answer to a preflight: a wrapper around the
/// whole dispatch table, and applied by the cached-tile fast path to its answers.
struct CORSHeaders: Sendable {
    /// `Access-Control-Allow-Origin`; nil sends no CORS headers.
    let origin: String?

    /// Adds the headers every answer carries.
    func add(to headers: inout HTTPFields, method: HTTPRequest.Method) {
        guard let origin else { return }
        // No answer sets these itself: appended rather than assigned, which would first look for them.
        headers.append(HTTPField(name: .accessControlAllowOrigin, value: origin))
        if method != .options {
            headers.append(HTTPField(name: .accessControlExposeHeaders, value: "ETag, Content-Encoding"))
        }
    }

    /// `handler`'s answers with the CORS headers; `OPTIONS` on any path answered as a preflight.
    func wrap(_ handler: @escaping APIOperation.Handler) -> APIOperation.Handler {
        { request, context in
            var response = request.method == .options ? Self.preflight() : await handler(request, context)
            add(to: &response.headers, method: request.method)
            return response
        }
    }

    static func preflight() -> Response {
        var headers: HTTPFields = [:]
        headers[.accessControlAllowMethods] = "GET, HEAD, POST, PUT, DELETE, OPTIONS"
        headers[.accessControlAllowHeaders] = "Authorization, Content-Type, If-None-Match"
        headers[.accessControlMaxAge] = "86400"
        return HTTPAnswers.empty(.noContent, headers: headers)
    }
}
