import Foundation
import HTTPTypes
import Hummingbird
import RouteTiles
import RouteTilesAccess

/// Who may do what, around the operations of the dispatch table: the read policy (`--read public|token`) around the
/// reads, a credential that may write around the writes, and `/metrics` for readers of every group when reads are
/// private. What a credential grants (`AccessGrant`) reaches the handler in its context, which then reads only the
/// grant's groups and writes only the routes the grant names.
///
/// A credential comes as `Authorization: Bearer …`, or as the `access_token` query parameter for clients that cannot
/// set headers (EventSource, MapKit); the header wins when both are given. A missing credential where one is needed
/// is a 401 with `WWW-Authenticate: Bearer`; one that does not verify is a 401 saying why; one that verifies but
/// does not allow the operation is a 403.
struct AccessControl: Sendable {
    let policy: ReadPolicy
    let verifier: CredentialVerifier
    /// Whether the server has routes that change (live routes, not a tileset).
    let writesOn: Bool
    /// Whether JWTs may write (`ServerConfiguration.jwtWrites`).
    let jwtWrites: Bool
    let metrics: ServerMetrics
    /// Writes a minute per credential (the write token goes unlimited), writes a minute per client address, and
    /// failed authentications a minute per client address, past which requests get 429 with `Retry-After`.
    let limits: Limits
    /// Where every write is recorded; nil for none.
    let audit: AuditLog?

    struct Limits: Sendable {
        var writes: RateLimiter
        var addressWrites: RateLimiter
        var failures: RateLimiter

        init(_ configuration: ServerConfiguration.RateLimits) {
            writes = RateLimiter(perMinute: configuration.writesPerCredential)
            addressWrites = RateLimiter(perMinute: configuration.writesPerAddress)
            failures = RateLimiter(perMinute: configuration.authenticationFailuresPerAddress)
        }
    }

    static func now() -> Double { Date().timeIntervalSince1970 }

    /// The 429 of `limit` (its name in `routetiles_rate_limited_total`), saying `what` is limited, with the seconds
    /// to wait.
    func limited(_ wait: Double, _ limit: String, _ what: String) -> AccessRefusal {
        metrics.rateLimited(limit)
        let seconds = max(1, Int(wait.rounded(.up)))
        var refusal = AccessRefusal(.tooManyRequests, "too many \(what); try again in \(seconds) s")
        refusal.retryAfter = seconds
        return refusal
    }

    static let challenge: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"routetiles\""]

    /// The credential a request carries: the bearer token of `Authorization`, else the `access_token` parameter,
    /// else `field` (`/osmand`'s `token`).
    static func credential(of request: Request, field: String? = nil) -> String? {
        if let header = request.headers[.authorization] {
            guard header.count > 7, header.prefix(7).lowercased() == "bearer " else { return "" }
            return header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        }
        if let parameter = request.uri.queryParameters["access_token"] { return String(parameter) }
        return field
    }

    /// What the request's credential grants: nil without one; a 401 when it does not verify; a 429 while the
    /// client's address has failed too often.
    func grant(of request: Request, address: String?, field: String? = nil) async -> Result<AccessGrant?, AccessRefusal> {
        guard let token = Self.credential(of: request, field: field) else { return .success(nil) }
        let address = address ?? "unknown"
        if let wait = limits.failures.wait(address, now: Self.now()) {
            return .failure(limited(wait, "authentication_failures", "failed authentications from this address"))
        }
        guard !token.isEmpty else {
            failed(address)
            return .failure(AccessRefusal(.unauthorized, "Authorization must be 'Bearer <token>'", challenge: true))
        }
        switch await verifier.grant(for: token) {
        case let .success(grant): return .success(grant)
        case let .failure(refusal):
            failed(address)
            return .failure(AccessRefusal(.unauthorized, refusal.description, challenge: true))
        }
    }

    /// Counts a failed authentication from `address`.
    func failed(_ address: String) {
        metrics.authenticationFailed()
        _ = limits.failures.take(address, now: Self.now())
    }

    /// The grant a read runs with: everything where reads are public, else the credential's, which must read some
    /// group; for a tile, a signed URL's (`exp`, `g`, `sig`) when it has one.
    func readGrant(of request: Request, address: String?, signedTile: Bool = false) async -> Result<AccessGrant, AccessRefusal> {
        guard policy == .token else { return .success(.anonymous) }
        let query = request.uri.queryParameters
        if signedTile, let sig = query["sig"] {
            switch verifier.checkSignedURL(exp: query["exp"] ?? "", groups: query["g"], sig: sig) {
            case let .success(scope): return .success(AccessGrant(read: scope, write: [], subject: AccessGrant.signedURLSubject))
            case let .failure(refusal):
                failed(address ?? "unknown")
                return .failure(AccessRefusal(.forbidden, refusal.description))
            }
        }
        switch await grant(of: request, address: address) {
        case let .failure(refusal): return .failure(refusal)
        case .success(nil):
            return .failure(AccessRefusal(.unauthorized, "reads on this server need a credential: 'Authorization: Bearer <token>' "
                + "(or ?access_token=…)", challenge: true))
        case let .success(grant?):
            if case let .only(groups) = grant.read, groups.isEmpty {
                return .failure(AccessRefusal(.forbidden, "this credential reads no group (its read claim is empty)"))
            }
            return .success(grant)
        }
    }

    /// The grant a write runs with: a credential that may write some route, within its limits. Per route, the
    /// handler checks `AccessGrant.mayWrite(id:)`.
    func writeGrant(of request: Request, address: String?, field: String? = nil,
                    audit: AuditNote? = nil) async -> Result<AccessGrant, AccessRefusal> {
        let keys = verifier.keys
        guard writesOn, keys.writeToken != nil || (jwtWrites && keys.verifiesJWTs) else {
            return .failure(AccessRefusal(.forbidden, "writes are off; start the server with a write token (--write-token, "
                + "--write-token-file or ROUTETILES_WRITE_TOKEN) or JWT keys (--jwt-secret-file, --jwks) to allow them"))
        }
        switch await grant(of: request, address: address, field: field) {
        case let .failure(refusal): return .failure(refusal)
        case .success(nil):
            return .failure(AccessRefusal(.unauthorized, "this request needs 'Authorization: Bearer <token>'", challenge: true))
        case let .success(grant?):
            audit?.subject = grant.subject
            guard grant.isFull || jwtWrites else {
                return .failure(AccessRefusal(.forbidden, "JWTs do not write on this server: its routes are kept in memory "
                    + "only, so only the write token writes (start it with --store to keep JWTs' writes)"))
            }
            guard grant.writesAnything else {
                return .failure(AccessRefusal(.forbidden, "this credential may not write (its write claim is empty)"))
            }
            let now = Self.now()
            if !grant.isFull, let wait = limits.writes.take(grant.subject ?? "", now: now) {
                return .failure(limited(wait, "credential_writes", "writes with this credential"))
            }
            if let wait = limits.addressWrites.take(address ?? "unknown", now: now) {
                return .failure(limited(wait, "address_writes", "writes from this address"))
            }
            return .success(grant)
        }
    }

    /// `handler` for reads: reached with the read grant in its context.
    func reading(_ handler: @escaping APIOperation.Handler) -> APIOperation.Handler {
        { request, context in
            switch await readGrant(of: request, address: context.address, signedTile: context.path.hasPrefix("/tiles/") || OGCTilesEndpoints.isTilePath(context.path)) {
            case let .failure(refusal): return refusal.response
            case let .success(grant):
                var context = context
                context.grant = grant
                return await handler(request, context)
            }
        }
    }

    /// The query of the tile URLs handed to a reader with `grant` (`tiles.json`, `style.json`): signed for its
    /// groups, expiring on the hour, or by the credential's own expiry; nil where reads are public.
    func signedTileQuery(for grant: AccessGrant) -> String? {
        guard policy == .token else { return nil }
        let exp = TileURLSigner.expiry(now: verifier.currentTime, notAfter: grant.expires)
        return verifier.urlSigner.query(scope: grant.read, exp: exp)
    }

    /// `handler` for writes: reached with the write grant in its context.
    func writing(_ handler: @escaping APIOperation.Handler) -> APIOperation.Handler {
        { request, context in
            switch await writeGrant(of: request, address: context.address, audit: context.audit) {
            case let .failure(refusal): return refusal.response
            case let .success(grant):
                var context = context
                context.grant = grant
                return await handler(request, context)
            }
        }
    }

    /// `handler` recorded in the audit log, when there is one: every request that reaches it, refused or not, a line
    /// per route it names, as `action`.
    func auditing(_ action: String, _ handler: @escaping APIOperation.Handler) -> APIOperation.Handler {
        guard let audit else { return handler }
        return { request, context in
            let note = AuditNote()
            var context = context
            context.audit = note
            let response = await handler(request, context)
            let id = context.parameters["id"].map { _ in context.parameters.decoded("id") }
            let routes: [String?] = (note.ids ?? id.map { [$0] } ?? []).map { $0 }
            let time = TimeValue.iso(Int64((Date().timeIntervalSince1970 * 1000).rounded()))
            audit.record((routes.isEmpty ? [nil] : routes).map { route in
                AuditLog.Entry(time: time, sub: note.subject, remote: context.address, action: action, route: route,
                               method: request.method.rawValue, path: context.path, status: Int(response.status.code))
            })
            return response
        }
    }

    /// The audit log's `action` of a write operation.
    static func action(of operationId: String) -> String {
        switch operationId {
        case "createRoutes": return "create"
        case "replaceRoute": return "replace"
        case "deleteRoute": return "delete"
        default: return "append"
        }
    }

    /// `handler` for what only a full-access credential may see where reads are private: `/metrics`, whose counts
    /// are the whole fleet's. Full access: the write token, or a JWT that reads every group and writes every id.
    func readingEverything(_ handler: @escaping APIOperation.Handler) -> APIOperation.Handler {
        { request, context in
            switch await readGrant(of: request, address: context.address) {
            case let .failure(refusal): return refusal.response
            case let .success(grant):
                guard policy == .public || (grant.read.isAll && grant.writesEverything) else {
                    return AccessRefusal(.forbidden, "this resource counts every group's routes; it needs a full-access "
                        + "credential (the write token, or a JWT with \"read\": [\"*\"] and \"write\": [\"*\"])").response
                }
                return await handler(request, context)
            }
        }
    }
}

/// An operation refused for want of a credential (401) or of a grant (403), with the reason.
struct AccessRefusal: Error {
    var status: HTTPResponse.Status
    var message: String
    /// Whether to send `WWW-Authenticate` (on 401s).
    var challenge = false
    /// `Retry-After`, in seconds (on 429s).
    var retryAfter: Int?

    init(_ status: HTTPResponse.Status, _ message: String, challenge: Bool = false) {
        self.status = status
        self.message = message
        self.challenge = challenge
    }

    var response: Response {
        var headers: HTTPFields = challenge ? AccessControl.challenge : [:]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return HTTPAnswers.error(status, message, headers: headers)
    }
}
