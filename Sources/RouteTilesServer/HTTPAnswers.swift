import Foundation
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

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return bytes(Array(data) + [0x0a], status: status, contentType: "application/json")
    }

    /// An error as `{"error": message}` with the status.
    static func error(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        var response = json(["error": message], status: status)
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
