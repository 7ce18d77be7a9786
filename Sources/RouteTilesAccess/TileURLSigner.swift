import Crypto
import Foundation
import RouteTiles

/// Signs and checks tile URLs for clients that cannot send a credential with each tile request (a map in a web page
/// given a link, MapKit's tile overlays): `/tiles/{z}/{x}/{y}.mvt?exp=E&g=SCOPE&sig=S`, where `S` is the HMAC-SHA256
/// of the path template, the group scope and the expiry (`exp`, Unix seconds) under a key derived from the server's
/// secret, in base64url. `g` is left out for a scope of every group.
///
/// `exp` is rounded up to a whole hour (`expiry(now:notAfter:)`), so that every client of the same scope in the
/// same hour gets the same URLs, and caches in front keep one copy of each tile per scope and hour.
public struct TileURLSigner: Sendable {
    /// The path template every signature covers.
    public static let template = "/tiles/{z}/{x}/{y}.mvt"
    /// How long a signed URL lasts at least, before rounding up to the hour.
    public static let lifetime: Int64 = 3600

    private let key: SymmetricKey

    /// A signer with a key derived (HKDF-SHA256) from `secret`, so that the URL key is never the secret itself.
    public init(secret: [UInt8]) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: Array("routetiles".utf8),
                                     info: Array("signed tile urls v1".utf8), outputByteCount: 32)
    }

    /// The signer of `keys`: from the HS256 secret, else from the write token; nil with neither (then each
    /// server makes a random key of its own, and replicas do not share URLs).
    public static func secret(of keys: CredentialKeys) -> [UInt8]? {
        keys.hmacSecret ?? keys.writeToken.map { Array($0.utf8) }
    }

    /// The expiry of URLs signed at `now`: at least `lifetime` ahead, rounded up to the hour, and never past
    /// `notAfter` (the expiry of the credential they were signed for).
    public static func expiry(now: Int64, notAfter: Int64?) -> Int64 {
        let rounded = (now + lifetime + 3599) / 3600 * 3600
        return min(rounded, notAfter ?? .max)
    }

    func mac(scope: GroupScope, exp: Int64) -> HashedAuthenticationCode<SHA256> {
        HMAC<SHA256>.authenticationCode(for: Array("\(Self.template)\n\(scope.key)\n\(exp)".utf8), using: key)
    }

    /// The query of signed tile URLs: `exp=…&g=…&sig=…` (`g` only for a scope of some groups).
    public func query(scope: GroupScope, exp: Int64) -> String {
        let sig = Self.base64URL(Data(mac(scope: scope, exp: exp)))
        var query = "exp=\(exp)"
        if !scope.isAll { query += "&g=" + Self.percentEncoded(scope.key) }
        return query + "&sig=" + sig
    }

    /// The scope a signed URL's parameters grant at `now`, or why not.
    public func check(exp: some StringProtocol, groups: (some StringProtocol)?, sig: some StringProtocol, now: Int64)
        -> Result<GroupScope, CredentialRefusal>
    {
        guard let expiry = Int64(exp) else { return .failure(CredentialRefusal("the signed URL's exp is not a number")) }
        let scope: GroupScope
        if let groups {
            guard let named = GroupScope(key: String(groups)), !named.isAll else {
                return .failure(CredentialRefusal("the signed URL's g names no group scope"))
            }
            scope = named
        } else {
            scope = .all
        }
        guard let given = Self.base64URLDecoded(String(sig)),
              HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: Array("\(Self.template)\n\(scope.key)\n\(expiry)".utf8),
                                                     using: key)
        else {
            return .failure(CredentialRefusal("the URL's signature does not verify (changed, or signed with another key)"))
        }
        guard now < expiry else { return .failure(CredentialRefusal("the signed URL expired at \(expiry) (Unix seconds; now \(now))")) }
        return .success(scope)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecoded(_ text: String) -> Data? {
        guard text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
        return JOSEHeader.base64URLDecoded(Substring(text))
    }

    /// A scope key as a query value: ASCII letters, digits, `-._~` and the commas between names as they are,
    /// everything else (the key's own `%` escapes included) percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~,")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
