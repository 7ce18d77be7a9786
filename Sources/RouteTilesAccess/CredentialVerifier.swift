import RouteTiles
import Crypto
import Foundation
import JWTKit
import Synchronization

/// Turns a credential into what it grants: the write token into full access, a JWT into the grant of its claims
/// (`RouteTilesClaims`), anything else into a refusal.
///
/// A JWT is verified with jwt-kit against the configured keys, and refused when:
/// - its header's `alg` is `none`, unknown, or not one the keys can verify: HS256 tokens meet only the HS256
///   secret and the asymmetric algorithms only the JWKS keys, so that a token signed with a public key as an HMAC
///   secret (algorithm confusion) never reaches a public key, and a JWKS key with its own `alg` verifies that one;
/// - its signature does not verify;
/// - it has no `exp`, or `exp` has passed, or `nbf` is still ahead, each with `leeway` seconds of clock skew;
/// - `--jwt-audience` is set and `aud` does not include it, or `--jwt-issuer` is set and `iss` differs.
///
/// Verified tokens are remembered (`VerifiedTokenCache`) for at most a minute, and forgotten at once when the keys
/// are reloaded: a revoked key's tokens stop working on the next request after the reload.
public final class CredentialVerifier: Sendable {
    public struct Settings: Sendable, Equatable {
        /// `aud` must include this, when set (`--jwt-audience`).
        public var audience: String?
        /// `iss` must equal this, when set (`--jwt-issuer`).
        public var issuer: String?
        /// Clock skew allowed on `exp` and `nbf`, in seconds.
        public var leeway: Int64 = 60

        public init(audience: String? = nil, issuer: String? = nil, leeway: Int64 = 60) {
            self.audience = audience
            self.issuer = issuer
            self.leeway = leeway
        }
    }

    /// The keys in use, checked, and jwt-kit's collections made from them on first use (`prepare()`).
    struct Loaded: Sendable {
        var keys: CredentialKeys
        /// The JWKS's keys, decoded.
        var jwk: [JWK]
        /// Per JWKS key id, the algorithms its key may verify.
        var jwksAlgorithms: [String: Set<String>]
        /// Bumped on every reload.
        var generation: Int
        var collections: Collections?
        /// What signs and checks tile URLs, with a key derived from these keys' secret.
        var urlSigner: TileURLSigner
    }

    /// jwt-kit's key collections: the HS256 secret's, the JWKS's.
    struct Collections: Sendable {
        var hmac: JWTKeyCollection?
        var jwks: JWTKeyCollection?
    }

    public let settings: Settings
    private let loaded: Mutex<Loaded>
    public let cache: VerifiedTokenCache
    /// The time, in Unix seconds (a parameter for tests).
    private let now: @Sendable () -> Int64

    /// A verifier of credentials with `keys`. Throws `KeyProblem` for a JWKS that does not read or holds a key
    /// that cannot verify; `prepare()` then makes the keys ready (and finds keys jwt-kit refuses).
    public init(keys: CredentialKeys, settings: Settings = Settings(), cache: VerifiedTokenCache = VerifiedTokenCache(),
                now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) throws {
        self.settings = settings
        self.cache = cache
        self.now = now
        loaded = Mutex(try Self.check(keys, generation: 0))
    }

    /// The keys in use.
    public var keys: CredentialKeys { loaded.withLock { $0.keys } }

    /// What signs tile URLs with the keys in use.
    public var urlSigner: TileURLSigner { loaded.withLock { $0.urlSigner } }

    /// Signed URLs checked lately with the keys of `generation`: their `exp`, `g` and `sig` → the scope granted and
    /// the expiry. A client asks for many tiles with one query: its signature is then checked once, not per tile.
    private let signedURLs = Mutex<(generation: Int, checked: [String: (scope: GroupScope, expires: Int64)])>((0, [:]))

    /// The scope a signed tile URL's parameters grant now, or why not (`TileURLSigner.check`), remembered while the
    /// keys stay the same (at most 4,096 queries).
    public func checkSignedURL(exp: some StringProtocol, groups: (some StringProtocol)?, sig: some StringProtocol)
        -> Result<GroupScope, CredentialRefusal>
    {
        let time = now()
        var key = String(exp)
        key += "&"
        if let groups { key += groups } else { key += "*" }
        key += "&"
        key += sig
        let (signer, generation) = loaded.withLock { ($0.urlSigner, $0.generation) }
        let known = signedURLs.withLock { state in state.generation == generation ? state.checked[key] : nil }
        if let known, time < known.expires { return .success(known.scope) }
        let result = signer.check(exp: exp, groups: groups, sig: sig, now: time)
        if case let .success(scope) = result, let expires = Int64(exp) {
            signedURLs.withLock { state in
                if state.generation != generation || state.checked.count >= 4096 { state = (generation, [:]) }
                state.checked[key] = (scope, expires)
            }
        }
        return result
    }

    /// The URL key of a server with neither an HS256 secret nor a write token: random, its own.
    static let processSecret: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }

    /// The time now, in Unix seconds, as this verifier tells it.
    public var currentTime: Int64 { now() }

    /// Makes the keys ready for verification now rather than at the first token; throws `KeyProblem` for a key
    /// jwt-kit cannot use.
    public func prepare() async throws {
        let state = loaded.withLock { $0 }
        guard state.collections == nil else { return }
        let collections = try await Self.collections(of: state)
        loaded.withLock { if $0.generation == state.generation { $0.collections = collections } }
    }

    /// Uses `keys` from now on; the tokens verified with the old ones are forgotten. Throws, keeping the old keys,
    /// when the new ones cannot be used (a JWKS that does not read).
    public func reload(_ keys: CredentialKeys) async throws {
        let generation = loaded.withLock { $0.generation } + 1
        var fresh = try Self.check(keys, generation: generation)
        fresh.collections = try await Self.collections(of: fresh)
        loaded.withLock { $0 = fresh }
        cache.removeAll(generation: generation)
    }

    /// The keys decoded and checked: every JWKS key public, with a kid, of a type and `alg` that verify.
    static func check(_ keys: CredentialKeys, generation: Int) throws -> Loaded {
        var decoded: [JWK] = []
        var algorithms: [String: Set<String>] = [:]
        if let text = keys.jwks {
            let set: JWKS
            do {
                set = try JSONDecoder().decode(JWKS.self, from: Data(text.utf8))
            } catch {
                throw KeyProblem("the JWKS does not read as {\"keys\": [...]}: \(error)")
            }
            guard !set.keys.isEmpty else { throw KeyProblem("the JWKS holds no key") }
            for (index, key) in set.keys.enumerated() {
                guard let kid = key.keyIdentifier?.string else { throw KeyProblem("JWKS key \(index) has no kid") }
                guard key.privateExponent == nil else {
                    throw KeyProblem("JWKS key \(kid) holds a private key; give the public keys only")
                }
                let allowed = Self.algorithms(of: key)
                guard !allowed.isEmpty else {
                    throw KeyProblem("JWKS key \(kid): key type \(key.keyType.rawValue)\(key.algorithm.map { " with alg \($0.rawValue)" } ?? "") verifies none of RS256, PS256, ES256 or EdDSA")
                }
                guard algorithms[kid] == nil else { throw KeyProblem("JWKS key id \(kid) is given twice") }
                algorithms[kid] = allowed
                decoded.append(key)
            }
        }
        let secret = TileURLSigner.secret(of: keys) ?? Self.processSecret
        return Loaded(keys: keys, jwk: decoded, jwksAlgorithms: algorithms, generation: generation,
                      urlSigner: TileURLSigner(secret: secret))
    }

    /// jwt-kit's collections of checked keys.
    static func collections(of state: Loaded) async throws -> Collections {
        var made = Collections()
        if let secret = state.keys.hmacSecret {
            let collection = JWTKeyCollection()
            await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            made.hmac = collection
        }
        if !state.jwk.isEmpty {
            let collection = JWTKeyCollection()
            for key in state.jwk {
                do {
                    try await collection.add(jwk: key)
                } catch {
                    throw KeyProblem("JWKS key \(key.keyIdentifier?.string ?? "?") cannot be used: \(error)")
                }
            }
            made.jwks = collection
        }
        return made
    }

    /// The algorithms a JWKS key may verify: its own `alg` when it names one, else those of its key type.
    static func algorithms(of key: JWK) -> Set<String> {
        let byType: Set<String>
        switch key.keyType.rawValue {
        case "RSA": byType = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]
        case "EC": byType = ["ES256", "ES384", "ES512"]
        case "OKP": byType = ["EdDSA"]
        default: byType = []
        }
        guard let alg = key.algorithm?.rawValue else { return byType }
        return byType.contains(alg) ? [alg] : []
    }

    /// The grant of a credential already verified and still good, without waiting: the fast path's question.
    public func cachedGrant(for token: String) -> AccessGrant? {
        cache.grant(for: token, now: now())
    }

    /// What `token` grants, or why it is refused.
    public func grant(for token: String) async -> Result<AccessGrant, CredentialRefusal> {
        let time = now()
        if let known = cache.grant(for: token, now: time) { return .success(known) }
        let state = loaded.withLock { $0 }
        if let writeToken = state.keys.writeToken, Self.constantTimeEqual(Array(token.utf8), Array(writeToken.utf8)) {
            return .success(.full)
        }
        guard state.keys.verifiesJWTs else {
            return .failure(CredentialRefusal(
                "the credential is not the write token (this server verifies no JWT: no --jwt-secret-file or --jwks)"))
        }
        guard token.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2 else {
            return .failure(CredentialRefusal("the credential is neither the write token nor a JWT"))
        }
        var collections = state.collections
        if collections == nil {
            do {
                try await prepare()
            } catch {
                return .failure(CredentialRefusal("the server's keys cannot verify tokens: \(error)"))
            }
            collections = loaded.withLock { $0.generation == state.generation ? $0.collections : nil }
        }
        guard let collections else { return .failure(CredentialRefusal("the server's keys changed while verifying; send it again")) }
        switch await verify(token, with: state, collections: collections, now: time) {
        case let .success(claims):
            var grant = claims.grant
            // Limits and the audit log name every credential: without a sub, by the token's digest.
            if grant.subject == nil { grant.subject = Self.digestName(of: token) }
            cache.insert(token, grant: grant, expires: claims.exp.map { Int64($0.value.timeIntervalSince1970) },
                         now: time, generation: state.generation)
            return .success(grant)
        case let .failure(refusal):
            return .failure(refusal)
        }
    }

    /// The claims of a JWT whose header, signature and times are good.
    func verify(_ token: String, with state: Loaded, collections: Collections, now time: Int64) async
        -> Result<RouteTilesClaims, CredentialRefusal>
    {
        guard let header = JOSEHeader(token: token) else {
            return .failure(CredentialRefusal("the JWT's header does not read (base64url JSON with \"alg\")"))
        }
        let collection: JWTKeyCollection
        switch header.alg {
        case "none":
            return .failure(CredentialRefusal("the JWT is unsigned (alg none); only signed tokens are accepted"))
        case "HS256":
            guard let hmac = collections.hmac else {
                return .failure(CredentialRefusal("the JWT is signed with HS256, and this server has no HS256 secret (--jwt-secret-file)"))
            }
            collection = hmac
        default:
            guard let jwks = collections.jwks else {
                return .failure(CredentialRefusal("the JWT is signed with \(header.alg), which this server does not verify"
                    + (collections.hmac == nil ? "" : " (its secret is for HS256)")))
            }
            if let kid = header.kid {
                guard let allowed = state.jwksAlgorithms[kid] else {
                    return .failure(CredentialRefusal("the JWT names key \(kid), which is not in the JWKS"))
                }
                guard allowed.contains(header.alg) else {
                    return .failure(CredentialRefusal("the JWT is signed with \(header.alg), which key \(kid) does not verify"))
                }
            } else if !state.jwksAlgorithms.values.contains(where: { $0.contains(header.alg) }) {
                return .failure(CredentialRefusal("the JWT is signed with \(header.alg), which no key of the JWKS verifies"))
            }
            collection = jwks
        }
        let claims: RouteTilesClaims
        do {
            // Without a kid, every key of the JWKS is tried (those of other algorithms fail at once).
            claims = try await collection.verify(token, as: RouteTilesClaims.self, iteratingKeys: header.kid == nil)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            return .failure(CredentialRefusal("the JWT's signature does not verify"))
        } catch {
            return .failure(CredentialRefusal("the JWT does not verify: \(Self.reason(error))"))
        }
        return check(claims, now: time).map { claims }
    }

    /// The checks of the claims: times with the leeway, audience, issuer.
    func check(_ claims: RouteTilesClaims, now time: Int64) -> Result<Void, CredentialRefusal> {
        guard let exp = claims.exp else { return .failure(CredentialRefusal("the JWT has no exp; every token must expire")) }
        let expires = Int64(exp.value.timeIntervalSince1970)
        guard time < expires + settings.leeway else {
            return .failure(CredentialRefusal("the JWT expired at \(expires) (Unix seconds; now \(time), \(settings.leeway) s of skew allowed)"))
        }
        if let nbf = claims.nbf {
            let notBefore = Int64(nbf.value.timeIntervalSince1970)
            guard time + settings.leeway >= notBefore else {
                return .failure(CredentialRefusal("the JWT is not valid before \(notBefore) (Unix seconds; now \(time), \(settings.leeway) s of skew allowed)"))
            }
        }
        if let audience = settings.audience {
            guard let aud = claims.aud, aud.value.contains(audience) else {
                return .failure(CredentialRefusal("the JWT's aud does not include \(audience)"))
            }
        }
        if let issuer = settings.issuer {
            guard claims.iss?.value == issuer else { return .failure(CredentialRefusal("the JWT's iss is not \(issuer)")) }
        }
        return .success(())
    }

    /// `jwt:` and the first 8 bytes of the token's SHA-256, in hex.
    static func digestName(of token: String) -> String {
        "jwt:" + SHA256.hash(data: Array(token.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    static func reason(_ error: any Error) -> String {
        if let jwt = error as? JWTError { return jwt.reason ?? "\(jwt.errorType)" }
        return "\(error)"
    }

    /// Compares in a time that does not depend on where the bytes differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}
