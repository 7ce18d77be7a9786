import Foundation
import JWTKit
import RouteTilesAccess

/// JWTs for the tests of servers with private reads and scoped writes, signed with jwt-kit.
package enum TestTokens {
    /// An HS256 secret of the length `--jwt-secret-file` asks for.
    package static let secret = Array("routetiles test secret, longer than thirty-two bytes".utf8)

    struct Claims: JWTPayload {
        var exp: ExpirationClaim
        var sub: SubjectClaim?
        var read: [String]?
        var write: [String]?
        var aud: AudienceClaim?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// A token signed with `secret` that reads `read` and writes `write`, expiring `expiresIn` seconds from now.
    package static func hs256(read: [String]? = nil, write: [String]? = nil, subject: String? = nil,
                              audience: String? = nil, expiresIn: TimeInterval = 3600,
                              secret: [UInt8] = secret) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(Claims(exp: ExpirationClaim(value: Date().addingTimeInterval(expiresIn)),
                                          sub: subject.map(SubjectClaim.init(value:)), read: read, write: write,
                                          aud: audience.map { AudienceClaim(value: [$0]) }))
    }

    /// A verifier of `secret`'s tokens, with the write token `writeToken`.
    package static func verifier(writeToken: String? = nil, secret: [UInt8] = secret) throws -> CredentialVerifier {
        try CredentialVerifier(keys: CredentialKeys(hmacSecret: secret, writeToken: writeToken))
    }

    /// An ES256 key pair: its JWKS (the public key, kid `ec-1`), a token it signs, and a token of the algorithm
    /// confusion: HS256, signed with the public key's PEM text as the secret, naming the same kid.
    package static func ecKeyAndConfusion(read: [String], audience: String? = nil) async throws
        -> (jwks: String, signed: String, confused: String) {
        let key = ES256PrivateKey()
        guard let parameters = key.publicKey.parameters else { throw CancellationError() }
        let jwks = #"{"keys":[{"kty":"EC","crv":"P-256","kid":"ec-1","alg":"ES256","x":"\#(parameters.x)","y":"\#(parameters.y)"}]}"#
        let claims = Claims(exp: ExpirationClaim(value: Date().addingTimeInterval(3600)), sub: nil, read: read, write: ["*"],
                            aud: audience.map { AudienceClaim(value: [$0]) })
        let ec = JWTKeyCollection()
        await ec.add(ecdsa: key, kid: JWKIdentifier(string: "ec-1"))
        let signed = try await ec.sign(claims, kid: JWKIdentifier(string: "ec-1"))
        let hmac = JWTKeyCollection()
        await hmac.add(hmac: HMACKey(from: Array(key.publicKey.pemRepresentation.utf8)), digestAlgorithm: .sha256)
        let confused = try await hmac.sign(claims, kid: JWKIdentifier(string: "ec-1"))
        return (jwks, signed, confused)
    }

    /// A token with `{"alg":"none"}` and no signature.
    package static func unsigned(read: [String]) -> String {
        func b64(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let claims = #"{"exp":\#(Int(Date().timeIntervalSince1970) + 3600),"read":[\#(read.map { "\"\($0)\"" }.joined(separator: ","))],"write":["*"]}"#
        return b64(#"{"alg":"none","typ":"JWT"}"#) + "." + b64(claims) + "."
    }

    /// `token` with one character of its signature changed.
    package static func tampered(_ token: String) -> String {
        var characters = Array(token)
        let last = characters.count - 3
        characters[last] = characters[last] == "A" ? "B" : "A"
        return String(characters)
    }
}
