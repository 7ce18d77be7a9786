import Foundation
import Hummingbird

/// The bearer token every write needs (`bearerAuth` in `openapi.json`): `--write-token`, `--write-token-file` or
/// `ROUTETILES_WRITE_TOKEN`. A wrapper around the write operations of the dispatch table.
struct WriteAuthorization: Sendable {
    /// The token; nil turns writes off.
    let token: String?

    /// `handler`, reached only by requests that may write.
    func wrap(_ handler: @escaping APIOperation.Handler) -> APIOperation.Handler {
        { request, context in
            if let refusal = refusal(of: request) { return refusal }
            return await handler(request, context)
        }
    }

    /// Nil when the request may write; else the refusal: 403 with writes off or another token, 401 (with
    /// `WWW-Authenticate`) without a bearer token.
    func refusal(of request: Request) -> Response? {
        refusal(of: request, tokenField: nil)
    }

    /// `refusal(of:)`, where the token may also come as a field of the request (`/osmand`'s `token`, for apps that
    /// cannot set headers); the header wins when both are given.
    func refusal(of request: Request, tokenField: String?) -> Response? {
        if request.headers[.authorization] == nil, let tokenField, let token {
            return Self.constantTimeEqual(Array(tokenField.utf8), Array(token.utf8))
                ? nil : HTTPAnswers.error(.forbidden, "the token is not the server's write token")
        }
        guard let token else {
            return HTTPAnswers.error(.forbidden, "writes are off; start the server with a write token (--write-token, "
                + "--write-token-file or ROUTETILES_WRITE_TOKEN) to allow them")
        }
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return HTTPAnswers.error(.unauthorized, "this request needs 'Authorization: Bearer <token>'",
                                     headers: [.wwwAuthenticate: "Bearer realm=\"routetiles\""])
        }
        let given = Array(header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces).utf8)
        guard Self.constantTimeEqual(given, Array(token.utf8)) else {
            return HTTPAnswers.error(.forbidden, "the bearer token is not the server's write token")
        }
        return nil
    }

    /// Compares in a time that does not depend on where the bytes differ.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}
