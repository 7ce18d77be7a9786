import Crypto
import Foundation
import JWTKit
import RouteTilesAccess
import Testing

/// JWTs and the write token through `CredentialVerifier`: what each grants, and every way a token is refused.
struct CredentialVerifierTests {
    func verifier(_ keys: CredentialKeys, _ settings: CredentialVerifier.Settings = .init(),
                  clock: @escaping @Sendable () -> Int64 = { TestKeys.now }) async throws -> CredentialVerifier {
        let verifier = try CredentialVerifier(keys: keys, settings: settings, now: clock)
        try await verifier.prepare()
        return verifier
    }

    func refusal(_ result: Result<AccessGrant, CredentialRefusal>) -> String? {
        if case let .failure(refusal) = result { return refusal.description }
        return nil
    }

    @Test func anHS256TokenGrantsItsClaims() async throws {
        let v = try await verifier(CredentialKeys(hmacSecret: TestKeys.secret))
        let token = try await TestKeys.hs256(TestKeys.claims(sub: "van-17", read: ["acme"], write: ["veh-17", "acme-*"]))
        let grant = try await v.grant(for: token).get()
        #expect(grant.subject == "van-17" && !grant.isFull)
        #expect(grant.mayRead(group: "acme") && !grant.mayRead(group: "globex") && !grant.mayRead(group: "default"))
        #expect(grant.mayWrite(id: "veh-17") && grant.mayWrite(id: "acme-9") && !grant.mayWrite(id: "veh-170"))
        #expect(!grant.writesEverything)
    }

    @Test func theWriteTokenIsFullAccessAndOtherTextIsRefused() async throws {
        let v = try await verifier(CredentialKeys(writeToken: "s3cret"))
        #expect(try await v.grant(for: "s3cret").get() == .full)
        #expect(refusal(await v.grant(for: "s3cre")) != nil)
        #expect(refusal(await v.grant(for: "a.b.c"))?.contains("verifies no JWT") == true)
    }

    @Test func unsignedAndTamperedTokensAreRefused() async throws {
        let v = try await verifier(CredentialKeys(hmacSecret: TestKeys.secret))
        let payload = #"{"exp":\#(TestKeys.now + 3600),"read":["*"],"write":["*"]}"#
        let none = TestKeys.handMade(header: #"{"alg":"none","typ":"JWT"}"#, payload: payload)
        #expect(refusal(await v.grant(for: none))?.contains("alg none") == true)
        // "None" and other spellings are not HS256 and meet no JWKS.
        let noneCased = TestKeys.handMade(header: #"{"alg":"None"}"#, payload: payload)
        #expect(refusal(await v.grant(for: noneCased)) != nil)
        // A good token whose payload is swapped for a wider one.
        let good = try await TestKeys.hs256(TestKeys.claims(read: ["acme"]))
        let parts = good.split(separator: ".")
        let widened = parts[0] + "." + TestKeys.base64URL(Array(payload.utf8)) + "." + parts[2]
        #expect(refusal(await v.grant(for: String(widened)))?.contains("signature") == true)
        // Signed with another secret.
        let other = try await TestKeys.hs256(TestKeys.claims(), secret: Array("another secret, also longer than 32 bytes".utf8))
        #expect(refusal(await v.grant(for: other))?.contains("signature") == true)
        #expect(refusal(await v.grant(for: "not.a.jwt")) != nil)
    }

    @Test func timesAreCheckedWithTheStatedLeeway() async throws {
        let v = try await verifier(CredentialKeys(hmacSecret: TestKeys.secret))
        let now = TestKeys.now
        #expect(refusal(await v.grant(for: try await TestKeys.hs256(TestKeys.claims(exp: nil))))?.contains("no exp") == true)
        // Expired 59 s ago: within the 60 s of skew. 61 s ago: refused.
        #expect(refusal(await v.grant(for: try await TestKeys.hs256(TestKeys.claims(exp: now - 59)))) == nil)
        #expect(refusal(await v.grant(for: try await TestKeys.hs256(TestKeys.claims(exp: now - 61))))?.contains("expired") == true)
        #expect(refusal(await v.grant(for: try await TestKeys.hs256(TestKeys.claims(nbf: now + 59)))) == nil)
        #expect(refusal(await v.grant(for: try await TestKeys.hs256(TestKeys.claims(nbf: now + 61))))?.contains("not valid before") == true)
    }

    @Test func audienceAndIssuerAreCheckedWhenSet() async throws {
        let v = try await verifier(CredentialKeys(hmacSecret: TestKeys.secret),
                                   .init(audience: "tiles.example", issuer: "https://auth.example"))
        let good = try await TestKeys.hs256(TestKeys.claims(aud: ["other", "tiles.example"], iss: "https://auth.example"))
        #expect(refusal(await v.grant(for: good)) == nil)
        let noAud = try await TestKeys.hs256(TestKeys.claims(iss: "https://auth.example"))
        #expect(refusal(await v.grant(for: noAud))?.contains("aud") == true)
        let wrongAud = try await TestKeys.hs256(TestKeys.claims(aud: ["other"], iss: "https://auth.example"))
        #expect(refusal(await v.grant(for: wrongAud))?.contains("aud") == true)
        let wrongIss = try await TestKeys.hs256(TestKeys.claims(aud: ["tiles.example"], iss: "https://evil.example"))
        #expect(refusal(await v.grant(for: wrongIss))?.contains("iss") == true)
    }

    @Test func jwksKeysVerifyTheirOwnAlgorithmsOnly() async throws {
        let ec = TestKeys.EC(kid: "ec-1")
        let rsa = try TestKeys.RSA(kid: "rsa-1")
        let v = try await verifier(CredentialKeys(jwks: TestKeys.jwks([ec.jwk(), try rsa.jwk()])))
        let ecGrant = try await v.grant(for: try await ec.sign(TestKeys.claims(sub: "dispatcher", read: ["acme"]))).get()
        #expect(ecGrant.subject == "dispatcher" && ecGrant.mayRead(group: "acme"))
        let rsaGrant = try await v.grant(for: try await rsa.sign(TestKeys.claims(write: ["*"]))).get()
        #expect(rsaGrant.writesEverything && !rsaGrant.isFull)
        // Algorithm confusion: HS256 signed with the RSA public key's PEM as the secret. No HS256 secret here, so
        // it never meets a key.
        let pem = Array(rsa.publicPEM.utf8)
        let payload = #"{"exp":\#(TestKeys.now + 3600),"read":["*"],"write":["*"]}"#
        let confused = TestKeys.handMade(header: #"{"alg":"HS256","kid":"rsa-1"}"#, payload: payload) { input in
            Array(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: pem)))
        }
        #expect(refusal(await v.grant(for: confused))?.contains("HS256") == true)
        // An ES256 header naming the RSA key.
        let crossed = TestKeys.handMade(header: #"{"alg":"ES256","kid":"rsa-1"}"#, payload: payload)
        #expect(refusal(await v.grant(for: crossed))?.contains("does not verify") == true)
        // An unknown kid.
        let unknown = TestKeys.handMade(header: #"{"alg":"ES256","kid":"gone"}"#, payload: payload)
        #expect(refusal(await v.grant(for: unknown))?.contains("not in the JWKS") == true)
    }

    @Test func withASecretAndAJWKSConfusionStillFails() async throws {
        let rsa = try TestKeys.RSA(kid: "rsa-1")
        let v = try await verifier(CredentialKeys(hmacSecret: TestKeys.secret, jwks: TestKeys.jwks([try rsa.jwk()])))
        let pem = Array(rsa.publicPEM.utf8)
        let payload = #"{"exp":\#(TestKeys.now + 3600),"read":["*"]}"#
        let confused = TestKeys.handMade(header: #"{"alg":"HS256","kid":"rsa-1"}"#, payload: payload) { input in
            Array(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: pem)))
        }
        #expect(refusal(await v.grant(for: confused))?.contains("signature") == true)
    }

    @Test func badKeyFilesAreRefusedWithAReason() async throws {
        await #expect(throws: KeyProblem.self) { _ = try await self.verifier(CredentialKeys(jwks: "{}")) }
        await #expect(throws: KeyProblem.self) { _ = try await self.verifier(CredentialKeys(jwks: #"{"keys":[]}"#)) }
        let ec = TestKeys.EC(kid: "ec-1")
        let noKid = ec.jwk().replacingOccurrences(of: #""kid":"ec-1","#, with: "")
        await #expect(throws: KeyProblem.self) { _ = try await self.verifier(CredentialKeys(jwks: TestKeys.jwks([noKid]))) }
        let mismatched = ec.jwk(alg: "RS256")
        await #expect(throws: KeyProblem.self) { _ = try await self.verifier(CredentialKeys(jwks: TestKeys.jwks([mismatched]))) }
        #expect(throws: KeyProblem.self) { _ = try CredentialKeys.hmacSecret(fileBytes: Array("short\n".utf8), path: "s") }
        #expect(try CredentialKeys.hmacSecret(fileBytes: TestKeys.secret + [10], path: "s") == TestKeys.secret)
        #expect(try CredentialKeys.hmacSecret(fileBytes: TestKeys.secret + [13, 10], path: "s") == TestKeys.secret + [13])
        #expect(try CredentialKeys.hmacSecret(fileBytes: TestKeys.secret + [10, 10], path: "s") == TestKeys.secret + [10])
    }

    @Test func verifiedTokensAreCachedUntilTheyExpireOrTheKeysChange() async throws {
        let clock = TestClock(TestKeys.now)
        let v = try await verifier(CredentialKeys(hmacSecret: TestKeys.secret), clock: { clock.value })
        let token = try await TestKeys.hs256(TestKeys.claims(exp: TestKeys.now + 30))
        #expect(v.cachedGrant(for: token) == nil)
        _ = try await v.grant(for: token).get()
        #expect(v.cachedGrant(for: token) != nil)
        // Past exp, the cache no longer answers (the leeway is the verifier's, for tokens it checks).
        clock.value = TestKeys.now + 31
        #expect(v.cachedGrant(for: token) == nil)
        clock.value = TestKeys.now
        _ = try await v.grant(for: token).get()
        // A reload with another secret: the token is forgotten and refused.
        try await v.reload(CredentialKeys(hmacSecret: Array("the new secret, at least thirty-two bytes".utf8)))
        #expect(v.cachedGrant(for: token) == nil)
        #expect(refusal(await v.grant(for: token))?.contains("signature") == true)
        // A reload that fails keeps the keys in use.
        await #expect(throws: KeyProblem.self) { try await v.reload(CredentialKeys(jwks: "[]")) }
        #expect(v.keys.hmacSecret != nil)
    }
}

final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var time: Int64
    init(_ time: Int64) { self.time = time }
    var value: Int64 {
        get { lock.withLock { time } }
        set { lock.withLock { time = newValue } }
    }
}
