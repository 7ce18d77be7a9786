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
}
