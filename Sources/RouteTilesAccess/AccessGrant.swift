import RouteTiles

/// What one credential may do: read routes of some groups, write routes whose ids match some patterns.
///
/// The server's write token grants everything (`full`); a JWT grants what its `read` and `write` claims name
/// (`RouteTilesClaims`); with `--read public`, a request without a credential reads every group and writes nothing
/// (`anonymous`).
public struct AccessGrant: Sendable, Hashable {
    /// The groups whose routes may be read.
    public var read: GroupScope
    /// The route ids that may be written (created, replaced, deleted, appended to); empty: none.
    public var write: [RouteIDPattern]
    /// Who holds it, for logs and limits: a JWT's `sub`, `write-token`, or nil for a request without a credential.
    public var subject: String?
    /// Whether it is the server's write token.
    public var isFull: Bool
    /// When it expires (a JWT's `exp`, Unix seconds); nil for the write token. Tile URLs signed for it expire by
    /// then.
    public var expires: Int64?

    public init(read: GroupScope, write: [RouteIDPattern], subject: String?, isFull: Bool = false, expires: Int64? = nil) {
        self.read = read
        self.write = write
        self.subject = subject
        self.isFull = isFull
        self.expires = expires
    }

    /// The write token's grant: every group, every id.
    public static let full = AccessGrant(read: .all, write: [RouteIDPattern("*")], subject: "write-token", isFull: true)

    /// The subject of the grant of a signed tile URL.
    public static let signedURLSubject = "signed URL"

    /// A request without a credential where reads are public: every group, no write.
    public static let anonymous = AccessGrant(read: .all, write: [], subject: nil)

    /// Whether routes of `group` may be read.
    public func mayRead(group: some StringProtocol) -> Bool { read.contains(group) }

    /// Whether the route `id` may be written.
    public func mayWrite(id: some StringProtocol) -> Bool { write.contains { $0.matches(id) } }

    /// Whether any route may be written (a write endpoint is worth reaching).
    public var writesAnything: Bool { !write.isEmpty }

    /// Whether every route may be written: the only grant that may create a route without an id (the server
    /// numbers it) and name any id.
    public var writesEverything: Bool { write.contains(where: \.matchesAll) }
}
