import Foundation

/// The two fields of a JWT's header that choose the key, read before any verification: `alg` and `kid`.
struct JOSEHeader: Equatable {
    var alg: String
    var kid: String?

    /// The header of a compact JWT (`header.payload.signature`); nil when it is not base64url JSON with an `alg`.
    init?(token: String) {
        guard let dot = token.firstIndex(of: "."),
              let data = Self.base64URLDecoded(token[..<dot]),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let alg = object["alg"] as? String
        else { return nil }
        self.alg = alg
        kid = object["kid"] as? String
    }

    static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
