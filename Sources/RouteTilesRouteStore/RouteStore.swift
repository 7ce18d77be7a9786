import RouteTilesModel

/// A durable home for routes, shared by every server that serves them: the SQLite file of one machine, PostgreSQL
/// for many, or memory for a demo.
///
/// Every change is committed to the store first and gets a sequence number there, in the same transaction. Servers
/// then apply the store's changes in sequence order (`LiveRouteSync`), so that every replica, the writer included,
/// reaches the same routes. A change names the route, the operation and the sequence; the route itself is read from
/// the store as it is now, so a change made by another program looks like one made through the HTTP API.
///
/// Implementations: `MemoryRouteStore`, `SQLiteRouteStore` (both in this library) and `PostgresRouteStore` (the
/// `RouteTilesPostgres` library, which keeps PostgreSQL's client out of this one).
public protocol RouteStore: AnyObject, Sendable {
    /// What to call the store in messages and `/health`: "sqlite:routes.db", "postgres://tiles@db:5432/gis
    /// (public.routes)". Never a password.
    var displayName: String { get }

    /// Whether a committed write survives the end of the process.
    var isDurable: Bool { get }

    /// Every route and the sequence of the last change they include, read in one consistent snapshot. Rows that
    /// do not make a route are returned apart, so the caller can report them.
    func loadAll() async throws -> RouteStoreSnapshot

    /// The routes stored under `keys` as they are now; a key with no row is absent from the answer.
    func rows(_ keys: [String]) async throws -> [String: StoredRow]

    /// The committed changes after `sequence`, in sequence order, at most `limit` of them.
    func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange]

    /// The newest committed sequence (0 when there has been no change).
    func newestSequence() async throws -> Int64

    /// Commits one write. Returns only after the transaction has committed, with the changes it made.
    func commit(_ write: RouteWrite) async throws -> RouteWriteResult

    /// Commits several writes in one transaction: one commit (and one fsync) for writes that arrived together
    /// (`LiveRouteSync`'s group commit). Returns only after the transaction has committed, with each write's
    /// result in order: a write that fails alone (its own savepoint rolled back) gets its error, and the others
    /// commit. Throws when the transaction failed as a whole: then none of the writes is acknowledged.
    func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>]

    /// What the store remembers of the routes imported from files, by key: the content each file held and the
    /// route's version after that import (`RouteStoreImport`).
    func importRecords() async throws -> [String: RouteImportRecord]

    /// Applies an import from files in one transaction, taking turns with `commit`'s writers: an entry applies only
    /// while the route is still at the entry's expected version (absent for nil), else it is skipped. Changes are
    /// recorded in the feed as for any write.
    func importRoutes(_ entries: [RouteImportEntry]) async throws -> RouteImportResult

    /// Yields whenever changes may have been committed by anyone (another process, another replica); the reader
    /// then reads every change after the last it applied. The stream may yield when nothing changed, and ends when
    /// the store is closed. A stream that reconnects yields after each reconnect, since what was sent meanwhile is
    /// lost.
    func wakeUps() -> AsyncStream<Void>

    /// Ends the wake-ups and releases connections.
    func close() async
}

extension RouteStore {
    /// One transaction per write, in order: for stores that cannot group writes. Each write's error is its own.
    public func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        var results: [Result<RouteWriteResult, any Error>] = []
        results.reserveCapacity(writes.count)
        for write in writes {
            do { results.append(.success(try await commit(write))) } catch { results.append(.failure(error)) }
        }
        return results
    }
}

/// What a store holds at one moment: its routes and the sequence they include.
public struct RouteStoreSnapshot: Sendable {
    /// The routes that make a route, in the order of their creation.
    public var routes: [StoredRoute]
    /// Rows that do not make a route (bad geometry, properties that are not an object), with what is wrong.
    public var badRows: [RouteRowProblem]
    /// Every change up to this sequence is in `routes`; none after it.
    public var sequence: Int64

    /// A snapshot of `routes` as of `sequence`, with the rows that could not be read.
    public init(routes: [StoredRoute], badRows: [RouteRowProblem], sequence: Int64) {
        self.routes = routes
        self.badRows = badRows
        self.sequence = sequence
    }
}

/// A row as read: a route, or what is wrong with it.
public enum StoredRow: Sendable {
    /// The row makes a route.
    case route(StoredRoute)
    /// The row does not make a route, and why.
    case bad(RouteRowProblem)
}

/// A route, the sequence of the change that last wrote it, and that of the change that created it.
public struct StoredRoute: Sendable {
    /// The key the route is stored and addressed under (`/routes/{key}`).
    public var key: String
    /// The route as stored.
    public var route: Route
    /// The sequence of the change that last wrote the route.
    public var version: Int64
    /// Routes are served in the order they were created (the order of their features in a tile), so every
    /// replica, and a server started later, cuts the same bytes.
    public var created: Int64
    /// When the route's last position arrived by an append (Unix seconds); nil when it came with the route.
    public var lastFix: Double?

    /// A stored route with its key and sequences.
    public init(key: String, route: Route, version: Int64, created: Int64, lastFix: Double? = nil) {
        self.key = key
        self.route = route
        self.version = version
        self.created = created
        self.lastFix = lastFix
    }
}

/// A row that does not make a route: logged, counted and skipped, never served.
public struct RouteRowProblem: Error, Sendable, CustomStringConvertible {
    /// The key of the route stored in the row.
    public var key: String
    /// The sequence of the change that last wrote the row.
    public var version: Int64
    /// What is wrong with the row.
    public var message: String

    /// A problem with the row stored under `key`.
    public init(key: String, version: Int64, message: String) {
        self.key = key
        self.version = version
        self.message = message
    }

    /// The key and what is wrong, for logs.
    public var description: String { "route \(key): \(message)" }
}

/// One write, as the HTTP API and `routetiles load` make them.
public enum RouteWrite: Sendable {
    /// Adds routes or replaces those whose id is stored; a route without an id gets the next free number.
    case put([Route])
    /// Replaces (or adds) the route stored under `key`, giving it that id.
    case replace(key: String, route: Route)
    /// Removes the route stored under `key`.
    case remove(key: String)
    /// Extends the last part of the line route stored under `key`.
    case append(key: String, points: [Coordinate])
    /// Extends the line route stored under `key`, which has a time on every position, with fixes and their times
    /// (milliseconds since 1970, one per point, in any order): a fix whose time the route holds already is a
    /// duplicate (a client's retry) and is dropped; fixes after the route's last are appended; a fix before it is put
    /// in time order, which rewrites the route (`RouteWriteRule`).
    case appendTimed(key: String, points: [Coordinate], times: [Int64])
    /// Keeps only the last `keep` positions of the line route stored under `key` (`TrackRetention.trimmed`), its
    /// last fix as it was; a route no longer than that is left as it is (no change).
    case trim(key: String, keep: Int)
    /// Drops the positions of the line route stored under `key` recorded before `time` (milliseconds since 1970),
    /// keeping at least its last two (`TrackRetention.trimmed(_:before:)`), its last fix as it was; a route with no
    /// such position, or without times, is left as it is (no change).
    case trimOlder(key: String, than: Int64)

    /// The key the write names, if it names one (a `put` names its routes' ids).
    public var key: String? {
        switch self {
        case .put: return nil
        case let .replace(key, _), let .remove(key), let .append(key, _), let .appendTimed(key, _, _), let .trim(key, _),
             let .trimOlder(key, _):
            return key
        }
    }
}

/// What a committed write did.
public enum RouteWriteResult: Sendable {
    /// The changes it made, in sequence order, and the routes as written (for `put` and `replace`), so that the
    /// writer can apply them without reading them back.
    case committed(changes: [RouteChange], written: [StoredRoute])
    /// Nothing is stored under that key (`remove`, `append`): nothing was written.
    case notFound(key: String)
    /// The route is a set of points, which cannot be extended: nothing was written.
    case notALine(key: String)
    /// The route keeps a time on every position and the positions sent have none, or the other way round: nothing
    /// was written (a route has times on all of its positions or on none).
    case timesDiffer(key: String, routeHasTimes: Bool)
}
