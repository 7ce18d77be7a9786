import Foundation
import RouteTilesModel
import RouteTilesSQLite

/// Routes in one SQLite file: the embedded store of a single machine (`--store routes.db`).
///
/// WAL journal with `synchronous = FULL`: a write is answered after its transaction commits, and the commit has
/// reached the disk (fsync of the WAL), so an acknowledged write survives `kill -9` and power loss alike.
/// Several processes may open the file (a server and a `routetiles load` job); a server notices the others'
/// commits through `PRAGMA data_version` and applies them from the changes table.
///
/// Tables (`SQLiteRouteStore+Schema`; `Docs/FORMATS.md` has them in full): `routes` (one row a route: id, properties
/// as JSON, the lines as WKB, layer, kind, geodesic, version, created_seq) and `route_changes` (the feed: seq,
/// route_id, op, base_version and the points of an append). A route's tail, the positions appended since its line was
/// last written (`AppendedTails`), is its append rows in the feed newer than `routes.version`: the points of an append
/// are written once. A route's version is the greater of `routes.version` and its tail's last seq: SQLite rewrites a
/// whole row, geometry included, when one column changes, so an append touches no row of `routes`; the store's
/// `TailLedger` (`SQLiteRouteStore+Ledger`) knows every tail.
///
/// Calls run on a queue of the store's own, off Swift's concurrency pool, since SQLite blocks
/// (`SQLiteRouteConnection`). Writes that arrive together commit in one transaction (`SQLiteRouteStore+Writes`),
/// applied by `RouteWriteRule` through `SQLiteRouteTransaction`, as imports are (`SQLiteRouteStore+Imports`).
public final class SQLiteRouteStore: RouteStore {
    /// The path of the database file.
    public let path: String
    /// `sqlite:` followed by the path.
    public var displayName: String { "sqlite:\(path)" }
    /// Always true: a committed write is in the file.
    public var isDurable: Bool { true }

    /// The open file and the ledger, on the store's queue.
    let connection: SQLiteRouteConnection
    private let pollInterval: Duration

    /// Opens the file, creating it and the tables when missing (unless `create` is false: a job that reads routes
    /// from a store wants an error for a wrong path, not an empty store). A file that holds other tables is
    /// refused, so a tileset or another program's database is never written into.
    public init(path: String, create: Bool = true, pollInterval: Duration = .milliseconds(100)) throws {
        self.path = path
        self.pollInterval = pollInterval
        if !create && !FileManager.default.fileExists(atPath: path) {
            throw StoreError(path: path, message: "no such route store")
        }
        let db = try SQLiteDatabase(path: path, readOnly: false)
        try Self.prepare(db, path: path, create: create)
        let learnt = try db.transaction(writing: false) { try Self.learn(db) }
        var ledger = TailLedger()
        ledger.replace(with: learnt.tails, seen: learnt.seen)
        connection = SQLiteRouteConnection(db, ledger: ledger, store: "sqlite:\(path)")
    }

    // MARK: Reading
    static let rowColumns = "id, version, properties, geom, layer, kind, geodesic, created_seq, fixed_at, trimmed"

    /// The route of a `rowColumns` row with its tail: its version is the greater of its row's and its tail's last
    /// row's, and its last fix the tail's when it has one.
    static func row(_ s: SQLiteDatabase.Statement, tail: TailRead) -> StoredRow {
        let rowFix = s.isNull(8) ? nil : s.double(8)
        return StoredRouteCodec.route(key: s.text(0) ?? "", version: max(s.int64(1), tail.last), created: s.int64(7),
                                      properties: s.text(2), wkb: s.isNull(3) ? nil : s.blob(3), layer: s.text(4),
                                      kind: s.text(5), geodesic: s.int(6) != 0, tail: tail.points,
                                      tailTimes: tail.tailTimes, lastFix: tail.last > 0 ? tail.lastFix : rowFix,
                                      trimmed: s.int(9))
    }

    /// Every route and the newest sequence, read in one transaction.
    public func loadAll() async throws -> RouteStoreSnapshot {
        try await connection.withDatabase { db in
            try db.transaction(writing: false) {
                let sequence = try db.int64("SELECT COALESCE(MAX(seq), 0) FROM route_changes")
                var tails = try Self.allTails(db)
                let s = try db.prepare("SELECT \(Self.rowColumns) FROM routes ORDER BY created_seq, id")
                var snapshot = RouteStoreSnapshot(routes: [], badRows: [], sequence: sequence)
                while try s.step() {
                    switch Self.row(s, tail: tails.removeValue(forKey: s.text(0) ?? "") ?? TailRead()) {
                    case let .route(route): snapshot.routes.append(route)
                    case let .bad(problem): snapshot.badRows.append(problem)
                    }
                }
                return snapshot
            }
        }
    }

    /// The routes stored under `keys`; absent keys are left out.
    public func rows(_ keys: [String]) async throws -> [String: StoredRow] {
        try await connection.withLedger(writing: false) { db, ledger in
            var rows: [String: StoredRow] = [:]
            for key in keys { rows[key] = try Self.read(key, db, ledger) }
            return rows
        }
    }

    /// The changes after `sequence`, at most `limit`, in order.
    public func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange] {
        try await connection.withDatabase { [displayName] db in
            let s = try db.prepare("""
                SELECT seq, route_id, op, base_version, points, changed_at FROM route_changes WHERE seq > ? ORDER BY seq LIMIT ?
                """)
            s.bind(1, sequence)
            s.bind(2, limit)
            var changes: [RouteChange] = []
            while try s.step() {
                guard let operation = s.text(2).flatMap(RouteChange.Operation.init(rawValue:)) else {
                    throw RouteStoreError(store: displayName, message: "change \(s.int64(0)) has an unknown op '\(s.text(2) ?? "")'")
                }
                var points: [Coordinate] = []
                var times: [Int64]?
                if operation == .append, !s.isNull(4) {
                    if case let (.points(p), t)? = try? WellKnownBinary.decodeTimed(s.blob(4)) { (points, times) = (p, t) }
                }
                changes.append(RouteChange(sequence: s.int64(0), key: s.text(1) ?? "", operation: operation,
                                           baseVersion: s.isNull(3) ? nil : s.int64(3), points: points,
                                           time: operation == .append ? s.double(5) : nil, times: times))
            }
            // Rows may have been pruned (`DELETE FROM route_changes WHERE …`): a reader that needs changes older
            // than the oldest kept must load everything again. Sequence numbers leave no gap of their own
            // (AUTOINCREMENT takes back what a rolled-back write took), and a prune keeps the rows still in a tail,
            // so a hole anywhere in the page is a prune.
            var expected = sequence + 1
            for change in changes {
                guard change.sequence == expected else {
                    throw RouteChangesPruned(after: sequence, oldest: change.sequence)
                }
                expected += 1
            }
            return changes
        }
    }

    /// The newest sequence (0 before the first change).
    public func newestSequence() async throws -> Int64 {
        try await connection.withDatabase { db in try db.int64("SELECT COALESCE(MAX(seq), 0) FROM route_changes") }
    }

    // MARK: Wake-ups

    /// Yields when the database changed, found by polling SQLite's data version every poll interval, so that writes
    /// of other processes are noticed too.
    public func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task { [self] in
            var seen = try? await connection.withDatabase { db in try db.int64("PRAGMA data_version") }
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                guard let now = try? await connection.withDatabase({ db in try db.int64("PRAGMA data_version") }) else {
                    break
                }
                if now != seen {
                    seen = now
                    continuation.yield()
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Ends the wake-ups and closes the database.
    public func close() async {
        await connection.close()
    }
}
