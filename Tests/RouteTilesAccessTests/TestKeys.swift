import Crypto
import Foundation
import JWTKit
import _CryptoExtras

/// Keys and tokens for the tests, made with jwt-kit (signing) and by hand (what no signer makes on purpose).
enum TestKeys {
    static let secret = Array("a test secret of more than thirty-two bytes".utf8)

    /// A fixed clock: 2026-11-28T08:00:00Z.
    static let now: Int64 = 1_795_852_800

    static func claims(exp: Int64? = now + 3600, nbf: Int64? = nil, aud: [String]? = nil, iss: String? = nil,
                       sub: String? = "tester", read: [String]? = ["*"], write: [String]? = nil) -> RouteTilesClaimsForTests {
        RouteTilesClaimsForTests(
            exp: exp.map { ExpirationClaim(value: Date(timeIntervalSince1970: Double($0))) },
            nbf: nbf.map { NotBeforeClaim(value: Date(timeIntervalSince1970: Double($0))) },
            aud: aud.map { AudienceClaim(value: $0) }, iss: iss.map { IssuerClaim(value: $0) },
            sub: sub.map { SubjectClaim(value: $0) }, read: read, write: write)
    }

    static func hs256(_ claims: RouteTilesClaimsForTests, secret: [UInt8] = secret) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(claims)
    }

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A token with any header, the claims as JSON, and a signature made by `sign` over `header.payload`.
    static func handMade(header: String, payload: String, sign: (Data) -> [UInt8] = { _ in [] }) -> String {
        let input = base64URL(Array(header.utf8)) + "." + base64URL(Array(payload.utf8))
        return input + "." + base64URL(sign(Data(input.utf8)))
    }

    /// An EC P-256 key pair: the private key and its JWKS entry.
    struct EC {
        let key = ES256PrivateKey()
        let kid: String

        func jwk(alg: String? = "ES256") -> String {
            let p = key.publicKey.parameters!
            return #"{"kty":"EC","crv":"P-256","kid":"\#(kid)","x":"\#(p.x)","y":"\#(p.y)"\#(alg.map { #","alg":"\#($0)""# } ?? "")}"#
        }

        func sign(_ claims: RouteTilesClaimsForTests) async throws -> String {
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
            return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
        }
    }

    /// An RSA 2048 key pair.
    struct RSA {
        let backing: _RSA.Signing.PrivateKey
        let kid: String

        init(kid: String) throws {
            backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            self.kid = kid
        }

        func jwk() throws -> String {
            let (n, e) = try Insecure.RSA.PublicKey(backing: backing.publicKey).getKeyPrimitives()
            return #"{"kty":"RSA","kid":"\#(kid)","alg":"RS256","n":"\#(base64URL(n))","e":"\#(base64URL(e))"}"#
        }

        /// The public key's PEM text: what an attacker uses as an HMAC secret in an algorithm confusion.
        var publicPEM: String { backing.publicKey.pemRepresentation }

        func sign(_ claims: RouteTilesClaimsForTests) async throws -> String {
            let keys = JWTKeyCollection()
            await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: backing), digestAlgorithm: .sha256,
                           kid: JWKIdentifier(string: kid))
            return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
        }
    }

    static func jwks(_ entries: [String]) -> String {
        #"{"keys":[\#(entries.joined(separator: ","))]}"#
    }
}

/// The claims as a signer writes them (the server's `RouteTilesClaims` reads them).
struct RouteTilesClaimsForTests: JWTPayload {
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?
    var aud: AudienceClaim?
    var iss: IssuerClaim?
    var sub: SubjectClaim?
    var read: [String]?
    var write: [String]?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
