import RouteTiles
import JWTKit

/// The claims of a RouteTiles JWT. `exp` is required; `nbf`, `aud`, `iss` and `sub` are checked or recorded when
/// present. `read` lists the groups the holder may read (`["*"]`: all); `write` the route id patterns it may write
/// (`["veh-17"]`, `["acme-*"]`, `["*"]`). A token without `read` reads nothing, without `write` writes nothing.
///
/// The times are checked by `CredentialVerifier`, against its clock and with its leeway, not here.
public struct RouteTilesClaims: JWTPayload, Equatable {
    public var exp: ExpirationClaim?
    public var nbf: NotBeforeClaim?
    public var aud: AudienceClaim?
    public var iss: IssuerClaim?
    public var sub: SubjectClaim?
    public var read: [String]?
    public var write: [String]?

    public init(exp: ExpirationClaim?, nbf: NotBeforeClaim? = nil, aud: AudienceClaim? = nil, iss: IssuerClaim? = nil,
                sub: SubjectClaim? = nil, read: [String]? = nil, write: [String]? = nil) {
        self.exp = exp
        self.nbf = nbf
        self.aud = aud
        self.iss = iss
        self.sub = sub
        self.read = read
        self.write = write
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// What the claims grant.
    public var grant: AccessGrant {
        AccessGrant(read: GroupScope(claim: read ?? []), write: (write ?? []).map(RouteIDPattern.init),
                    subject: sub?.value, expires: exp.map { Int64($0.value.timeIntervalSince1970) })
    }
}
