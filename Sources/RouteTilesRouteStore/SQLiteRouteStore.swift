import Dispatch
import Foundation
import RouteTilesModel
import RouteTilesSQLite
import Synchronization

/// Routes in one SQLite file: the embedded store of a single machine (`--store routes.db`).
///
/// WAL journal with `synchronous = FULL`: a write is answered after its transaction commits, and the commit has
/// reached the disk (fsync of the WAL), so an acknowledged write survives `kill -9` and power loss alike.
/// Several processes may open the file (a server and a `routetiles load` job); a server notices the others'
/// commits through `PRAGMA data_version` and applies them from the changes table.
///
/// Tables (`Docs/FORMATS.md` has them in full): `routes` (one row a route: id, properties as JSON, the lines as
/// WKB, layer, kind, geodesic, version, created_seq) and `route_changes` (the feed: seq, route_id, op,
/// base_version and the points of an append). A route's tail, the positions appended since its line was last
/// written (`AppendedTails`), is its append rows in the feed newer than `routes.version`: the points of an append
/// are written once. A route's version is the greater of `routes.version` and its tail's last seq: SQLite rewrites
/// a whole row, geometry included, when one column changes, so an append touches no row of `routes`. Calls run on a queue of the store's own, off Swift's concurrency pool, since SQLite blocks;
/// writes that arrive together commit in one transaction (`commit(batch:)`).
public final class SQLiteRouteStore: RouteStore {
    /// The path of the database file.
    public let path: String
    /// `sqlite:` followed by the path.
    public var displayName: String { "sqlite:\(path)" }
    /// Always true: a committed write is in the file.
    public var isDurable: Bool { true }

    private let connection: Mutex<SQLiteDatabase?>
    /// When to fold each route's tail into its line; only touched on the store's queue.
    private let ledger = Mutex(TailLedger())
    private let queue = DispatchQueue(label: "routetiles.sqlite-route-store")
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
        ledger.withLock { $0.replace(with: learnt.tails, seen: learnt.seen) }
        connection = Mutex(db)
    }

    /// Schema 2 added `route_tails`; schema 3 kept its rows in sequence order; schema 4 dropped its index by route
    /// (`TailLedger`); schema 5 drops the table: a tail is the append rows of the feed, which held the same points.
    /// A store of schema 1 to 4 is brought to 5 when opened (schema 1 gains `routes.fixed_at`; the tails of schemas
    /// 2 to 4 are folded into their lines, then their table dropped).
    static let schemaVersion = "5"

    /// The feed's append rows newer than their route's version are its tail, which the route needs: this trigger
    /// keeps them when a prune (Docs/OPERATIONS.md, "Pruning the changes table") deletes rows by age. A fold, a
    /// put, a trim or the route's removal lets them go. The feed then has holes, which readers treat as pruned rows.
    private static let keepTails = """
        CREATE TRIGGER IF NOT EXISTS route_changes_keep_tails BEFORE DELETE ON route_changes
        WHEN old.op = 'append' AND old.seq > (SELECT version FROM routes WHERE id = old.route_id)
        BEGIN SELECT RAISE(IGNORE); END;
        """

    /// How much of the file SQLite reads through a memory map (`PRAGMA mmap_size`; SQLite caps it at 2 GB): the
    /// pages are the system's file cache, shared and given back under memory pressure, not the process's own.
    static let mappedBytes = 1 << 30

    private static func prepare(_ db: SQLiteDatabase, path: String, create: Bool) throws {
        try db.execute("PRAGMA busy_timeout = 10000")
        let tables = Set(try db.strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
        let ours: Set = ["routes", "route_changes", "route_imports", "routetiles_store"]
        if tables.isEmpty && !create {
            throw StoreError(path: path, message: "not a RouteTiles route store: the database is empty")
        }
        if !tables.isEmpty && !tables.contains("routetiles_store") {
            throw StoreError(path: path, message: "not a RouteTiles route store: it holds the tables "
                             + tables.sorted().joined(separator: ", "))
        }
        let stored = tables.isEmpty ? nil : try db.strings("SELECT value FROM routetiles_store WHERE key = 'schema'").first
        if let stored, stored != schemaVersion, !["1", "2", "3", "4"].contains(stored) {
            throw StoreError(path: path, message: "route store schema \(stored); this RouteTiles reads schema \(schemaVersion)")
        }
        guard try db.strings("PRAGMA journal_mode = WAL").first?.lowercased() == "wal" else {
            throw StoreError(path: path, message: "cannot switch the database to WAL journal mode")
        }
        try db.execute("PRAGMA synchronous = FULL")
        // Reads through a memory map of the file rather than read calls into SQLite's 2 MB page cache: a fold reads
        // its route's tail rows by sequence, each on a page of its own spread over the newest part of the feed
        // (hundreds of MB under a fleet), and those reads made a fold cost a system call and a copy a row.
        try db.execute("PRAGMA mmap_size = \(Self.mappedBytes)")
        if create && tables.isSuperset(of: ours) { try rewriteMembershipChecks(db) }
        if tables.isSuperset(of: ours) && stored == schemaVersion { return }
        // New, or older (schema 1 lacks `routes.fixed_at`, and `route_imports` when older still): every table is
        // created where missing, and the version written.
        if stored == "1", !(try db.strings("SELECT name FROM pragma_table_info('routes')").contains("fixed_at")) {
            try db.execute("ALTER TABLE routes ADD COLUMN fixed_at REAL")
        }
        if tables.contains("route_tails") {
            // Schemas 2 to 4 kept tails in a table of their own (whose rows the feed may have lost to a prune):
            // they are folded into their lines, which then read the same, and the table goes.
            try db.transaction(writing: true) {
                try foldLegacyTails(db, path: path)
                try db.execute("DROP TABLE route_tails")
            }
        }
        try db.transaction(writing: true) {
            try db.execute("""
                CREATE TABLE IF NOT EXISTS routetiles_store (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                INSERT OR IGNORE INTO routetiles_store (key, value) VALUES ('schema', '\(schemaVersion)');
                CREATE TABLE IF NOT EXISTS routes (
                    id TEXT PRIMARY KEY,
                    properties TEXT NOT NULL DEFAULT '{}',
                    geom BLOB NOT NULL,
                    layer TEXT,
                    kind TEXT CHECK (kind = 'line' OR kind = 'point'),
                    geodesic INTEGER NOT NULL DEFAULT 0,
                    version INTEGER NOT NULL,
                    created_seq INTEGER NOT NULL,
                    fixed_at REAL
                );
                CREATE INDEX IF NOT EXISTS routes_created_seq ON routes (created_seq);
                CREATE TABLE IF NOT EXISTS route_changes (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    route_id TEXT NOT NULL,
                    op TEXT NOT NULL CHECK (op = 'insert' OR op = 'update' OR op = 'delete' OR op = 'append'),
                    base_version INTEGER,
                    points BLOB,
                    changed_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
                );
                \(keepTails)
                CREATE TABLE IF NOT EXISTS route_imports (
                    id TEXT PRIMARY KEY,
                    content_hash TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    imported_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
                );
                UPDATE routetiles_store SET value = '\(schemaVersion)' WHERE key = 'schema';
                """)
        }
    }

    /// The CHECK constraints as stores made before this release wrote them, and as they are written now. The rule is
    /// the same; SQLite 3.40 (Debian 12's) evaluates `x IN (…)` of constants by building a temporary index for every
    /// row written, which took half the cost of an append's row (3.9 µs against 2.1 µs measured with Python's
    /// `sqlite3` on this machine).
    package static let membershipChecks = [
        ("kind TEXT CHECK (kind IN ('line', 'point'))", "kind TEXT CHECK (kind = 'line' OR kind = 'point')"),
        ("op TEXT NOT NULL CHECK (op IN ('insert', 'update', 'delete', 'append'))",
         "op TEXT NOT NULL CHECK (op = 'insert' OR op = 'update' OR op = 'delete' OR op = 'append')"),
    ]

    /// Rewrites the `IN` checks of a store made before (`membershipChecks`) in its schema text, in place: the way
    /// SQLite documents for a change that leaves every stored row valid and the file's format as it was (ALTER
    /// TABLE, "Making other kinds of table schema changes"). The schema version is raised in the same transaction,
    /// so other connections read the new text before their next statement.
    private static func rewriteMembershipChecks(_ db: SQLiteDatabase) throws {
        var rewritten: [(name: String, sql: String)] = []
        do {
            let read = try db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN ('routes', 'route_changes')")
            while try read.step() {
                guard let name = read.text(0), let sql = read.text(1) else { continue }
                var new = sql
                for (before, after) in membershipChecks { new = new.replacingOccurrences(of: before, with: after) }
                if new != sql { rewritten.append((name, new)) }
            }
        }
        guard !rewritten.isEmpty else { return }
        try db.transaction(writing: true) {
            let version = try db.int64("PRAGMA schema_version")
            try db.execute("PRAGMA writable_schema = ON")
            defer { try? db.execute("PRAGMA writable_schema = OFF") }
            let update = try db.prepare("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?")
            for (name, sql) in rewritten {
                update.bind(1, sql)
                update.bind(2, name)
                try update.run()
            }
            try db.execute("PRAGMA schema_version = \(version + 1)")
        }
    }

    /// Folds every tail of a `route_tails` table (schemas 2 to 4: one row per append, part of its route's tail while
    /// newer than `routes.version`) into its line, within the caller's transaction.
    private static func foldLegacyTails(_ db: SQLiteDatabase, path: String) throws {
        try splice(tails(db, """
            SELECT t.route_id, t.points, t.seq, t.fixed_at FROM route_tails t JOIN routes r ON r.id = t.route_id
            WHERE t.seq > r.version ORDER BY t.seq
            """), in: db, path: path)
    }

    /// Writes each route's tail into its stored line (`writeTail`). A tail that does not extend its line throws, so
    /// that the caller's transaction, and the upgrade, roll back and nothing is dropped.
    private static func splice(_ tails: [String: TailRead], in db: SQLiteDatabase, path: String) throws {
        let read = try db.cached("SELECT geom FROM routes WHERE id = ?")
        for (key, tail) in tails where !tail.points.isEmpty {
            read.bind(1, key)
            guard try read.step() else { read.reset(); continue }
            let wkb = read.blob(0)
            read.reset()
            guard try writeTail(tail, onto: wkb, of: key, in: db) else {
                throw RouteStoreError(store: "sqlite:\(path)", message: "upgrading to schema \(schemaVersion): route \(key): its appended positions (route_tails) do not extend its stored line; the file is left as it was")
            }
        }
    }

    /// Writes `tail` at the end of `key`'s stored line `wkb`, with the version of the tail's last row and its fix
    /// time: the route reads the same, and the tail's rows leave it (none is deleted). False when the positions do not
    /// extend that geometry; nothing is written then.
    private static func writeTail(_ tail: TailRead, onto wkb: [UInt8], of key: String, in db: SQLiteDatabase) throws -> Bool {
        guard let spliced = try? WellKnownBinary.appending(tail.points, to: wkb) else { return false }
        let update = try db.cached("UPDATE routes SET geom = ?, version = MAX(version, ?), fixed_at = ? WHERE id = ?")
        update.bind(1, spliced)
        update.bind(2, tail.last)
        if let fix = tail.lastFix { update.bind(3, fix) } else { update.bindNull(3) }
        update.bind(4, key)
        try update.run()
        return true
    }

    /// Runs `body` with the connection on the store's queue.
    private func withConnection<T: Sendable>(_ body: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                continuation.resume(with: Result {
                    try connection.withLock { db in
                        guard let db else { throw RouteStoreError(store: displayName, message: "the store is closed") }
                        return try body(db)
                    }
                })
            }
        }
    }

    // MARK: Reading

    private static let rowColumns = "id, version, properties, geom, layer, kind, geodesic, created_seq, fixed_at"

    /// A route's tail as read: its positions, the sequence number of its last row and when that row arrived.
    struct TailRead {
        var points: [Coordinate] = []
        var last: Int64 = 0
        var lastFix: Double?
    }

    /// The route of a `rowColumns` row with its tail: its version is the greater of its row's and its tail's last
    /// row's, and its last fix the tail's when it has one.
    private static func row(_ s: SQLiteDatabase.Statement, tail: TailRead) -> StoredRow {
        let rowFix = s.isNull(8) ? nil : s.double(8)
        return StoredRouteCodec.route(key: s.text(0) ?? "", version: max(s.int64(1), tail.last), created: s.int64(7),
                                      properties: s.text(2), wkb: s.isNull(3) ? nil : s.blob(3), layer: s.text(4),
                                      kind: s.text(5), geodesic: s.int(6) != 0, tail: tail.points,
                                      lastFix: tail.last > 0 ? tail.lastFix : rowFix)
    }

    /// Every route's tail, in one pass over the feed in sequence order.
    private static func allTails(_ db: SQLiteDatabase) throws -> [String: TailRead] {
        try tails(db, """
            SELECT c.route_id, c.points, c.seq, c.changed_at FROM route_changes c JOIN routes r ON r.id = c.route_id
            WHERE c.op = 'append' AND c.seq > r.version ORDER BY c.seq
            """)
    }

    /// Each route's tail from the rows of `sql`: route id, points (WKB), sequence and fix time, in sequence order.
    private static func tails(_ db: SQLiteDatabase, _ sql: String) throws -> [String: TailRead] {
        let s = try db.prepare(sql)
        var tails: [String: TailRead] = [:]
        while try s.step() {
            let key = s.text(0) ?? ""
            var tail = tails[key] ?? TailRead()
            if case let .points(points)? = try? WellKnownBinary.decode(s.blob(1)) { tail.points += points }
            tail.last = s.int64(2)
            tail.lastFix = s.double(3)
            tails[key] = tail
        }
        return tails
    }

    /// The rows `seqs` of one route's tail, read by primary key, in order.
    private static func tail(_ seqs: [Int64], _ db: SQLiteDatabase) throws -> TailRead {
        let s = try db.cached("SELECT points, changed_at FROM route_changes WHERE seq = ?")
        var tail = TailRead()
        for seq in seqs {
            s.bind(1, seq)
            if try s.step() {
                if case let .points(points)? = try? WellKnownBinary.decode(s.blob(0)) { tail.points += points }
                tail.last = seq
                tail.lastFix = s.double(1)
            }
            s.reset()
        }
        return tail
    }

    /// Whether a row's `kind` (or, when it has none, its geometry's first bytes) makes it a line.
    private static func isLine(kind: String?, header: [UInt8]) -> Bool {
        kind == nil ? WellKnownBinary.startsALine(header) : kind == "line"
    }

    /// What `learn` and `relearn` read of a route's row: version, line size, fix time, kind and geometry header.
    private static let ledgerColumns = """
        version, length(geom) / 16, fixed_at, kind, CASE WHEN kind IS NULL THEN substr(geom, 1, 5) END
        """

    /// The ledger entry of a row read with `ledgerColumns` from column `first` on.
    private static func ledgerTail(_ s: SQLiteDatabase.Statement, from first: Int32) -> TailLedger.Tail {
        var tail = TailLedger.Tail(rowVersion: s.int64(first), line: s.int(first + 1))
        tail.lastFix = s.isNull(first + 2) ? nil : s.double(first + 2)
        tail.isLine = isLine(kind: s.text(first + 3), header: s.blob(first + 4))
        return tail
    }

    /// The ledger as the file holds it: every route's row version, line size, kind and tail rows, in one pass over
    /// the routes and one over the feed's append rows.
    static func learn(_ db: SQLiteDatabase) throws -> (tails: [String: TailLedger.Tail], seen: Int64) {
        var tails: [String: TailLedger.Tail] = [:]
        let routes = try db.prepare("SELECT id, \(ledgerColumns) FROM routes")
        while try routes.step() {
            tails[routes.text(0) ?? ""] = ledgerTail(routes, from: 1)
        }
        // A WKB MultiPoint of n positions is 9 + 21 n bytes.
        let rows = try db.prepare("""
            SELECT c.route_id, c.seq, (length(c.points) - 9) / 21, c.changed_at FROM route_changes c
            JOIN routes r ON r.id = c.route_id WHERE c.op = 'append' AND c.seq > r.version ORDER BY c.seq
            """)
        while try rows.step() {
            let key = rows.text(0) ?? ""
            guard var tail = tails[key] else { continue }
            tail.rows.append(rows.int64(1))
            tail.positions += rows.int(2)
            tail.lastFix = rows.double(3)
            tails[key] = tail
        }
        return (tails, try db.int64("SELECT COALESCE(MAX(seq), 0) FROM route_changes"))
    }

    /// Brings the ledger up to date with the changes committed after the last it took in (another process's: this
    /// one's own update it as they are written). Within a write transaction, nothing can commit in between.
    static func sync(_ db: SQLiteDatabase, _ ledger: inout TailLedger) throws {
        let s = try db.cached("SELECT seq, route_id, op, length(points), changed_at FROM route_changes WHERE seq > ? ORDER BY seq")
        s.bind(1, ledger.seen)
        defer { s.reset() }
        while try s.step() {
            let seq = s.int64(0)
            if seq > ledger.seen + 1 {
                // Changes were pruned past what the ledger took in (a prune leaves the rows still in a tail, so
                // the hole may follow some): learn it all again.
                s.reset()
                let learnt = try learn(db)
                ledger.replace(with: learnt.tails, seen: learnt.seen)
                return
            }
            let key = s.text(1) ?? ""
            switch s.text(2) {
            case "append":
                ledger.append(key, seq: seq, count: s.isNull(3) ? 0 : max(0, (s.int(3) - 9) / 21), time: s.double(4))
            case "delete":
                ledger.remove(key)
            default:
                if try !relearn(key, db, &ledger) { ledger.remove(key) }
            }
            ledger.saw(seq)
        }
    }

    /// Sets the ledger's entry for `key` from its row as it is now, with an empty tail; false when there is no row.
    private static func relearn(_ key: String, _ db: SQLiteDatabase, _ ledger: inout TailLedger) throws -> Bool {
        let row = try db.cached("SELECT \(ledgerColumns) FROM routes WHERE id = ?")
        defer { row.reset() }
        row.bind(1, key)
        guard try row.step() else { return false }
        let tail = ledgerTail(row, from: 0)
        ledger.reset(key, version: tail.rowVersion, line: tail.line, isLine: tail.isLine, lastFix: tail.lastFix)
        return true
    }

    /// Every route and the newest sequence, read in one transaction.
    public func loadAll() async throws -> RouteStoreSnapshot {
        try await withConnection { db in
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
        try await withConnection { [self] db in
            try self.withLedger(db, writing: false) { ledger in
                var rows: [String: StoredRow] = [:]
                for key in keys { rows[key] = try Self.read(key, db, ledger) }
                return rows
            }
        }
    }

    /// Runs `body` in a transaction with the ledger brought up to date first (`sync`); what the ledger learnt or
    /// was told is undone if the transaction does not commit.
    private func withLedger<T: Sendable>(_ db: SQLiteDatabase, writing: Bool, _ body: (inout TailLedger) throws -> T) throws -> T {
        try ledger.withLock { ledger in
            let start = ledger.mark
            do {
                let result = try db.transaction(writing: writing) {
                    try Self.sync(db, &ledger)
                    return try body(&ledger)
                }
                ledger.keep()
                return result
            } catch {
                ledger.rollBack(to: start)
                throw error
            }
        }
    }

    /// The route stored under `key` with its tail, if any (the ledger brought up to date in this transaction).
    private static func read(_ key: String, _ db: SQLiteDatabase, _ ledger: TailLedger) throws -> StoredRow? {
        let s = try db.cached("SELECT \(rowColumns) FROM routes WHERE id = ?")
        defer { s.reset() }
        s.bind(1, key)
        guard try s.step() else { return nil }
        return row(s, tail: try tail(of: key, rowVersion: s.int64(1), db, ledger))
    }

    /// `key`'s tail past `rowVersion` (its row's version, read in this transaction): from the positions the ledger
    /// kept when it knows them all, with the fix time of the last row (one lookup); otherwise row by row.
    private static func tail(of key: String, rowVersion: Int64, _ db: SQLiteDatabase, _ ledger: TailLedger) throws -> TailRead {
        let rows = ledger.live(key, rowVersion: rowVersion)
        guard let points = ledger.knownPoints(key, rowVersion: rowVersion), let last = rows.last else {
            return try tail(rows, db)
        }
        let time = try db.cached("SELECT changed_at FROM route_changes WHERE seq = ?")
        defer { time.reset() }
        time.bind(1, last)
        // The ledger lists only rows it saw written in this file: a row missing is a broken file, read row by row.
        guard try time.step() else { return try tail(rows, db) }
        return TailRead(points: points, last: last, lastFix: time.double(0))
    }

    /// The changes after `sequence`, at most `limit`, in order.
    public func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange] {
        try await withConnection { [displayName] db in
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
                if operation == .append, !s.isNull(4) {
                    if case let .points(p)? = try? WellKnownBinary.decode(s.blob(4)) { points = p }
                }
                changes.append(RouteChange(sequence: s.int64(0), key: s.text(1) ?? "", operation: operation,
                                           baseVersion: s.isNull(3) ? nil : s.int64(3), points: points,
                                           time: operation == .append ? s.double(5) : nil))
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
        try await withConnection { db in try db.int64("SELECT COALESCE(MAX(seq), 0) FROM route_changes") }
    }

    // MARK: Writing

    /// Commits one write in a transaction and returns once it is in the file.
    public func commit(_ write: RouteWrite) async throws -> RouteWriteResult {
        try await commit(batch: [write])[0].get()
    }

    /// Commits the writes in one transaction, each in a savepoint of its own, and returns once it is in the file.
    /// Routes whose tail grew long enough are folded afterwards, in a transaction of their own, before the next
    /// write runs.
    public func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        let (results, due) = try await withConnection { [self] db in
            try self.withLedger(db, writing: true) { ledger in
                var due: [String] = []
                let savepoint = try db.cached("SAVEPOINT routetiles_write")
                let release = try db.cached("RELEASE routetiles_write")
                let results = try writes.map { write -> Result<RouteWriteResult, any Error> in
                    // An append writes one row with one statement, which SQLite undoes by itself when it fails:
                    // it needs no savepoint of its own (two statements fewer for each fix).
                    let single: Bool
                    if case .append = write { single = true } else { single = false }
                    if !single { try savepoint.run() }
                    let mark = ledger.mark
                    do {
                        let result = try Self.apply(write, to: db, ledger: &ledger, due: &due)
                        if !single { try release.run() }
                        return .success(result)
                    } catch {
                        if !single { try db.execute("ROLLBACK TO routetiles_write; RELEASE routetiles_write") }
                        ledger.rollBack(to: mark)
                        return .failure(error)
                    }
                }
                return (results, due)
            }
        }
        if !due.isEmpty {
            queue.async { [self] in
                // A fold that fails leaves the tails as they are: the routes are whole either way.
                _ = try? connection.withLock { db in
                    guard let db else { return }
                    try self.withLedger(db, writing: true) { ledger in try Self.fold(due.uniqued(), in: db, ledger: &ledger) }
                }
            }
        }
        return results
    }

    /// Folds the tails of `keys` into their lines, within the caller's write transaction: the routes read the same
    /// before and after, so no change is recorded and versions stay. The ledger, brought up to date in the same
    /// transaction, lists every row of each tail; the row's version, read here, leaves out rows another process
    /// folded already.
    private static func fold(_ keys: [String], in db: SQLiteDatabase, ledger: inout TailLedger) throws {
        let read = try db.cached("SELECT geom, version FROM routes WHERE id = ?")
        for key in keys {
            read.bind(1, key)
            guard try read.step() else { read.reset(); continue }
            let wkb = read.blob(0)
            let rowVersion = read.int64(1)
            read.reset()
            let tail = try Self.tail(of: key, rowVersion: rowVersion, db, ledger)
            guard !tail.points.isEmpty, try writeTail(tail, onto: wkb, of: key, in: db) else { continue }
            ledger.folded(key, through: tail.last)
        }
    }

    private static func apply(_ write: RouteWrite, to db: SQLiteDatabase, ledger: inout TailLedger,
                              due: inout [String]) throws -> RouteWriteResult {
        let addChange = try db.cached("""
            INSERT INTO route_changes (route_id, op, base_version, points, changed_at)
            VALUES (?1, ?2, ?3, ?4, COALESCE(?5, (julianday('now') - 2440587.5) * 86400.0))
            """)
        func change(_ key: String, _ operation: RouteChange.Operation, base: Int64? = nil,
                    points: [Coordinate] = [], time: Double? = nil) throws -> RouteChange {
            addChange.bind(1, key)
            addChange.bind(2, operation.rawValue)
            if let base { addChange.bind(3, base) } else { addChange.bindNull(3) }
            if operation == .append { addChange.bind(4, WellKnownBinary.multiPoint(points)) } else { addChange.bindNull(4) }
            if let time { addChange.bind(5, time) } else { addChange.bindNull(5) }
            try addChange.run()
            ledger.saw(db.lastInsertRowID)
            return RouteChange(sequence: db.lastInsertRowID, key: key, operation: operation, baseVersion: base,
                               points: points, time: time)
        }
        // The geometry's header is read only when the kind does not tell (a row written by another program).
        let current = try db.cached("""
            SELECT version, kind, CASE WHEN kind IS NULL THEN substr(geom, 1, 5) END, created_seq FROM routes WHERE id = ?
            """)
        /// The version, kind, whether it is a line, and creation of the route stored under `key`, if any.
        func stored(_ key: String) throws -> (version: Int64, kind: String?, isLine: Bool, created: Int64)? {
            defer { current.reset() }
            current.bind(1, key)
            guard try current.step() else { return nil }
            let kind = current.text(1)
            let isLine = Self.isLine(kind: kind, header: current.blob(2))
            let rowVersion = current.int64(0)
            return (max(rowVersion, ledger.live(key, rowVersion: rowVersion).last ?? 0), kind, isLine, current.int64(3))
        }

        /// Writes whole routes (a put, or a trim, which keeps the route's last fix).
        func put(_ routes: [Route], lastFix: Double?) throws -> RouteWriteResult {
            let upsert = try db.cached("""
                INSERT INTO routes (id, properties, geom, layer, kind, geodesic, version, created_seq, fixed_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                ON CONFLICT (id) DO UPDATE SET properties = excluded.properties, geom = excluded.geom,
                    layer = excluded.layer, kind = excluded.kind, geodesic = excluded.geodesic, version = excluded.version,
                    fixed_at = excluded.fixed_at
                """)
            var changes: [RouteChange] = []
            var written: [StoredRoute] = []
            for route in RouteStoreImport.numbered(routes, from: try nextFreeNumber(db, after: routes)) {
                let key = StoredRouteCodec.key(for: route.id ?? .number(0))
                let existing = try stored(key)
                let made = try change(key, existing == nil ? .insert : .update)
                let wkb = WellKnownBinary.encode(route), kind = StoredRouteCodec.kindName(route.kind)
                upsert.bind(1, key)
                upsert.bind(2, StoredRouteCodec.propertiesJSON(route.properties))
                upsert.bind(3, wkb)
                upsert.bind(4, route.layer)
                upsert.bind(5, kind)
                upsert.bind(6, route.geodesic ? 1 : 0)
                upsert.bind(7, made.sequence)
                upsert.bind(8, made.sequence)
                if let lastFix { upsert.bind(9, lastFix) } else { upsert.bindNull(9) }
                try upsert.run()
                // The route's tail rows leave its tail by themselves (the new version passes them).
                ledger.reset(key, version: made.sequence, line: route.pointCount,
                             isLine: route.kind == .line, lastFix: lastFix)
                changes.append(made)
                written.append(StoredRoute(key: key, route: route, version: made.sequence,
                                           created: existing?.created ?? made.sequence, lastFix: lastFix))
            }
            return .committed(changes: changes, written: written)
        }

        switch write {
        case let .put(routes):
            return try put(routes, lastFix: nil)
        case let .trim(key, keep):
            guard case let .route(held)? = try Self.read(key, db, ledger) else { return .notFound(key: key) }
            guard let route = TrackRetention.trimmed(held.route, keeping: keep) else {
                return .committed(changes: [], written: [])
            }
            return try put([route], lastFix: held.lastFix)
        case let .replace(key, route):
            var route = route
            route.id = StoredRouteCodec.id(forKey: key)
            return try apply(.put([route]), to: db, ledger: &ledger, due: &due)
        case let .remove(key):
            guard try stored(key) != nil else { return .notFound(key: key) }
            let made = try change(key, .delete)
            let delete = try db.cached("DELETE FROM routes WHERE id = ?")
            delete.bind(1, key)
            try delete.run()
            ledger.remove(key) // its tail rows went with its row
            return .committed(changes: [made], written: [])
        case let .append(key, points):
            // The ledger, brought up to date in this transaction, knows the route without reading its row; a key
            // it lacks (it always should have it) is looked up.
            let version: Int64, isLine: Bool
            if let tail = ledger.tail(of: key) {
                (version, isLine) = (tail.version, tail.isLine)
            } else {
                guard let found = try stored(key) else { return .notFound(key: key) }
                (version, isLine) = (found.version, found.isLine)
                _ = try Self.relearn(key, db, &ledger)
            }
            guard isLine else { return .notALine(key: key) }
            // The positions go to the route's tail, the feed's row of the append: the stored line is not rewritten
            // (`AppendedTails`).
            let made = try change(key, .append, base: version, points: points, time: Date().timeIntervalSince1970)
            if ledger.append(key, seq: made.sequence, count: points.count, time: made.time, points: points) { due.append(key) }
            return .committed(changes: [made], written: [])
        }
    }

    // MARK: Imports from files

    /// What the `route_imports` table remembers.
    public func importRecords() async throws -> [String: RouteImportRecord] {
        try await withConnection { db in
            let s = try db.prepare("SELECT id, content_hash, version FROM route_imports")
            var records: [String: RouteImportRecord] = [:]
            while try s.step() {
                records[s.text(0) ?? ""] = RouteImportRecord(contentHash: s.text(1) ?? "", version: s.int64(2))
            }
            return records
        }
    }

    /// Applies an import in one transaction; an entry whose route moved on since the importer looked is skipped.
    public func importRoutes(_ entries: [RouteImportEntry]) async throws -> RouteImportResult {
        try await withConnection { [self] db in
            try self.withLedger(db, writing: true) { ledger in
                let current = try db.prepare("SELECT version FROM routes WHERE id = ?")
                let record = try db.prepare("""
                    INSERT INTO route_imports (id, content_hash, version) VALUES (?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET content_hash = excluded.content_hash, version = excluded.version,
                        imported_at = excluded.imported_at
                    """)
                let forget = try db.prepare("DELETE FROM route_imports WHERE id = ?")
                func remember(_ key: String, _ hash: String, _ version: Int64) throws {
                    record.bind(1, key)
                    record.bind(2, hash)
                    record.bind(3, version)
                    try record.run()
                }
                var result = RouteImportResult()
                for entry in entries {
                    current.bind(1, entry.key)
                    let version: Int64? = try current.step()
                        ? max(current.int64(0), ledger.live(entry.key, rowVersion: current.int64(0)).last ?? 0) : nil
                    current.reset()
                    guard version == entry.expectedVersion else {
                        result.skipped.append(entry.key)
                        continue
                    }
                    switch entry.action {
                    case let .write(route):
                        var route = route
                        route.id = StoredRouteCodec.id(forKey: entry.key)
                        var due: [String] = []
                        guard case let .committed(changes, written) = try Self.apply(.put([route]), to: db,
                                                                                      ledger: &ledger, due: &due),
                              let stored = written.first else { continue }
                        result.changes += changes
                        result.written.append(stored)
                        try remember(entry.key, entry.contentHash, stored.version)
                    case .record:
                        if let version { try remember(entry.key, entry.contentHash, version) }
                    case .remove:
                        var due: [String] = []
                        if case let .committed(changes, _) = try Self.apply(.remove(key: entry.key), to: db,
                                                                            ledger: &ledger, due: &due) {
                            result.changes += changes
                        }
                        forget.bind(1, entry.key)
                        try forget.run()
                    }
                }
                return result
            }
        }
    }

    /// Where numbering the routes without an id starts: one past the largest numeric key stored (0 when every
    /// route in `routes` has an id). `RouteStoreImport.numbered` also steps past the ids given in `routes`.
    private static func nextFreeNumber(_ db: SQLiteDatabase, after routes: [Route]) throws -> UInt64 {
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

    // MARK: Wake-ups

    /// Yields when the database changed, found by polling SQLite's data version every poll interval, so that writes
    /// of other processes are noticed too.
    public func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task { [self] in
            var seen = try? await withConnection { db in try db.int64("PRAGMA data_version") }
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                guard let now = try? await withConnection({ db in try db.int64("PRAGMA data_version") }) else {
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
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                connection.withLock { db in
                    db?.close()
                    db = nil
                }
                done.resume()
            }
        }
    }
}

extension SQLiteDatabase {
    /// The first column of every row.
    func strings(_ sql: String) throws -> [String] {
        let s = try prepare(sql)
        var values: [String] = []
        while try s.step() { values.append(s.text(0) ?? "") }
        return values
    }

    /// The first column of the first row, as an integer (0 when there is none).
    func int64(_ sql: String) throws -> Int64 {
        let s = try prepare(sql)
        return try s.step() ? s.int64(0) : 0
    }
}
