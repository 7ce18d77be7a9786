import HTTPTypes
import Hummingbird

/// Small builders for the responses the server sends.
enum HTTPAnswers {
    static func bytes(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, contentType: String,
                      headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = contentType
        headers[.contentLength] = String(bytes.count)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `body` as JSON (`JSONBody`), with a final newline; a body that cannot be encoded (a number that is not
    /// finite) is a 500 that says so.
    static func json<Body: Encodable>(_ body: Body, status: HTTPResponse.Status = .ok,
                                      contentType: String = "application/json") -> Response {
        do {
            return bytes(try JSONBody.bytes(body) + [0x0a], status: status, contentType: contentType)
        } catch {
            return Self.error(.internalServerError, "cannot encode the answer (\(Body.self)): \(error)")
        }
    }

    /// An error as `{"error": message}` (`ErrorAnswer`) with the status.
    static func error(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        // An object of one string member: its encoding cannot fail, so no path leads back to `json`.
        var response = bytes((try? JSONBody.bytes(ErrorAnswer(error: message))).map { $0 + [0x0a] } ?? Array("{}\n".utf8),
                             status: status, contentType: "application/json")
        for field in headers { response.headers.append(field) }
        return response
    }

    /// The answer to a HEAD: `response`'s status and headers, `Content-Length` included, without its body.
    /// (Assigning `Response.body` would reset `Content-Length` to the new body's 0 bytes.)
    static func head(of response: Response) -> Response {
        Response(status: response.status, headers: response.headers, body: ResponseBody())
    }

    static func empty(_ status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentLength] = "0"
        return Response(status: status, headers: headers, body: ResponseBody())
    }
}

extension HTTPField.Name {
    static let accessControlAllowOrigin = Self("Access-Control-Allow-Origin")!
    static let accessControlAllowMethods = Self("Access-Control-Allow-Methods")!
    static let accessControlAllowHeaders = Self("Access-Control-Allow-Headers")!
    static let accessControlMaxAge = Self("Access-Control-Max-Age")!
    static let accessControlExposeHeaders = Self("Access-Control-Expose-Headers")!
}
