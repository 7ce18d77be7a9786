import Foundation
import RouteTilesModel
import RouteTilesSQLite

/// A write transaction of `SQLiteRouteStore`, run on its queue (`SQLiteRouteConnection`) between `BEGIN IMMEDIATE`
/// and `COMMIT`: the statements that read and write routes, the feed and the import records, and the ledger lent by
/// the connection for the transaction. Every witness is synchronous.
///
/// Every write but an append runs under a savepoint of its own, even alone in its batch, and a failed one answers
/// with SQLite's error; an append is one statement, which SQLite undoes by itself, and needs only a ledger mark.
struct SQLiteRouteTransaction: RouteStoreTransaction {
    let db: SQLiteDatabase
    /// The store's ledger, for the transaction.
    var ledger: TailLedger
    /// Routes whose tail grew long enough to fold, once the transaction has committed.
    var due: [String] = []
    /// Adds a change to the feed; its rowid is its sequence. Looked up once a transaction, not once a write.
    private let addChange: SQLiteDatabase.Statement

    /// Where a write started: the ledger's mark, and whether a savepoint is open.
    struct Mark {
        var ledger: (undo: Int, seen: Int)
        var savepoint: Bool
    }

    init(_ db: SQLiteDatabase, ledger: TailLedger) throws {
        self.db = db
        self.ledger = ledger
        addChange = try db.cached("""
            INSERT INTO route_changes (route_id, op, base_version, points, changed_at)
            VALUES (?1, ?2, ?3, ?4, COALESCE(?5, (julianday('now') - 2440587.5) * 86400.0))
            """)
    }

    // MARK: Reading

    /// The row's version and its tail's (the row is read: a route another program deleted is gone, whatever the
    /// ledger holds).
    func version(of key: String) throws -> Int64? {
        try stored(key)?.version
    }

    func read(_ key: String) throws -> StoredRow? {
        try SQLiteRouteStore.read(key, db, ledger)
    }

    /// From the ledger; a key it lacks (it always should have it) is looked up, and learnt.
    mutating func appendTarget(_ key: String) throws -> AppendTarget {
        if let tail = ledger.tail(of: key) {
            return tail.isLine ? .line(hasTimes: tail.hasTimes, lastTime: tail.lastTime) : .notALine
        }
        guard try stored(key) != nil, try SQLiteRouteStore.relearn(key, db, &ledger), let tail = ledger.tail(of: key) else {
            return .missing
        }
        return tail.isLine ? .line(hasTimes: tail.hasTimes, lastTime: tail.lastTime) : .notALine
    }

    /// One past the largest numeric key stored now (0 when every route in `routes` has an id): the number of a
    /// route removed may be given again.
    func nextFreeNumber(after routes: [Route]) throws -> UInt64 {
        guard routes.contains(where: { $0.id == nil }) else { return 0 }
        var next: UInt64 = 0
        // Keys that are decimal numbers without a leading zero; CAST saturates past Int64, so the key is compared
        // as text of equal length too.
        let s = try db.prepare("""
            SELECT id FROM routes WHERE id NOT GLOB '*[^0-9]*' AND id <> '' AND (id = '0' OR id NOT GLOB '0*')
            ORDER BY length(id) DESC, id DESC LIMIT 1
            """)
        if try s.step(), let text = s.text(0), let n = UInt64(text) { next = max(next, n &+ 1) }
        return next
    }

    /// The version (its tail's included), whether it is a line and has times, and the creation of the route stored
    /// under `key`; the geometry's header tells the times, and the kind when the row has none (another program's).
    private func stored(_ key: String) throws -> (version: Int64, isLine: Bool, hasTimes: Bool, created: Int64)? {
        let current = try db.cached("SELECT version, kind, substr(geom, 1, 5), created_seq FROM routes WHERE id = ?")
        defer { current.reset() }
        current.bind(1, key)
        guard try current.step() else { return nil }
        let header = current.blob(2)
        let isLine = SQLiteRouteStore.isLine(kind: current.text(1), header: header)
        let rowVersion = current.int64(0)
        return (max(rowVersion, ledger.live(key, rowVersion: rowVersion).last ?? 0), isLine,
                WellKnownBinary.hasTimes(header), current.int64(3))
    }

    // MARK: Writing

    /// The change, then the row (its creation kept on conflict). The route's tail rows leave its tail by themselves:
    /// the new version passes them.
    mutating func upsert(_ route: Route, key: String, lastFix: Double?) throws -> Upserted {
        let existing = try stored(key)
        let made = try change(key, existing == nil ? .insert : .update)
        let upsert = try db.cached("""
            INSERT INTO routes (id, properties, geom, layer, kind, geodesic, version, created_seq, fixed_at, trimmed)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT (id) DO UPDATE SET properties = excluded.properties, geom = excluded.geom,
                layer = excluded.layer, kind = excluded.kind, geodesic = excluded.geodesic, version = excluded.version,
                fixed_at = excluded.fixed_at, trimmed = excluded.trimmed
            """)
        upsert.bind(1, key)
        upsert.bind(2, StoredRouteCodec.propertiesJSON(route.properties))
        upsert.bind(3, WellKnownBinary.encode(route))
        upsert.bind(4, route.layer)
        upsert.bind(5, StoredRouteCodec.kindName(route.kind))
        upsert.bind(6, route.geodesic ? 1 : 0)
        upsert.bind(7, made.sequence)
        upsert.bind(8, made.sequence)
        if let lastFix { upsert.bind(9, lastFix) } else { upsert.bindNull(9) }
        upsert.bind(10, Int64(max(route.trimmed, 0)))
        try upsert.run()
        ledger.reset(key, version: made.sequence, line: route.pointCount, isLine: route.kind == .line,
                     hasTimes: route.times != nil, lastTime: route.times?.last, lastFix: lastFix)
        return Upserted(version: made.sequence, created: existing?.created ?? made.sequence, inserted: existing == nil)
    }

    mutating func delete(_ key: String) throws -> Int64? {
        guard try stored(key) != nil else { return nil }
        let made = try change(key, .delete)
        let delete = try db.cached("DELETE FROM routes WHERE id = ?")
        delete.bind(1, key)
        try delete.run()
        ledger.remove(key) // its tail rows went with its row
        return made.sequence
    }

    /// The positions go to the route's tail, the feed's row of the append: the stored line is not rewritten
    /// (`AppendedTails`). Written now: nothing is queued.
    mutating func append(_ points: [Coordinate], times: [Int64]?, to key: String) throws -> RouteChange? {
        let base = ledger.tail(of: key)?.version ?? 0
        let made = try change(key, .append, base: base, points: points, time: Date().timeIntervalSince1970, times: times)
        if ledger.append(key, seq: made.sequence, count: points.count, time: made.time, points: points,
                         lastTime: times?.last) {
            due.append(key)
        }
        return made
    }

    /// Adds a change to the feed.
    private mutating func change(_ key: String, _ operation: RouteChange.Operation, base: Int64? = nil,
                                 points: [Coordinate] = [], time: Double? = nil, times: [Int64]? = nil) throws -> RouteChange {
        addChange.bind(1, key)
        addChange.bind(2, operation.rawValue)
        if let base { addChange.bind(3, base) } else { addChange.bindNull(3) }
        if operation == .append {
            addChange.bind(4, WellKnownBinary.multiPoint(points, times: times))
        } else {
            addChange.bindNull(4)
        }
        if let time { addChange.bind(5, time) } else { addChange.bindNull(5) }
        try addChange.run()
        ledger.saw(db.lastInsertRowID)
        return RouteChange(sequence: db.lastInsertRowID, key: key, operation: operation, baseVersion: base,
                           points: points, time: time, times: times)
    }

    // MARK: Imports from files

    /// Written at once, one entry at a time.
    func recordImport(_ key: String, contentHash: String, version: Int64) throws {
        let record = try db.cached("""
            INSERT INTO route_imports (id, content_hash, version) VALUES (?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET content_hash = excluded.content_hash, version = excluded.version,
                imported_at = excluded.imported_at
            """)
        record.bind(1, key)
        record.bind(2, contentHash)
        record.bind(3, version)
        try record.run()
    }

    func forgetImport(_ key: String) throws {
        let forget = try db.cached("DELETE FROM route_imports WHERE id = ?")
        forget.bind(1, key)
        try forget.run()
    }

    // MARK: One write's failure

    /// A savepoint for every write but an append (two statements fewer for each fix).
    func beginWrite(_ scope: WriteScope, inBatchOf count: Int) throws -> Mark? {
        let savepoint = scope == .whole
        if savepoint { try db.cached("SAVEPOINT routetiles_write").run() }
        return Mark(ledger: ledger.mark, savepoint: savepoint)
    }

    func endWrite(_ mark: Mark) throws {
        if mark.savepoint { try db.cached("RELEASE routetiles_write").run() }
    }

    /// Rolls back to the savepoint and the ledger's mark; the writer gets SQLite's error as it is.
    mutating func undoWrite(_ mark: Mark, after error: any Error) throws -> any Error {
        if mark.savepoint { try db.execute("ROLLBACK TO routetiles_write; RELEASE routetiles_write") }
        ledger.rollBack(to: mark.ledger)
        return error
    }
}
