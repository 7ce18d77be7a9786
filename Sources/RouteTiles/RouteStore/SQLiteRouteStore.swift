import Dispatch
import Foundation
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
/// base_version and the points of an append). Calls run on a queue of the store's own, off Swift's concurrency
/// pool, since SQLite blocks.
public final class SQLiteRouteStore: RouteStore {
    /// The path of the database file.
    public let path: String
    /// `sqlite:` followed by the path.
    public var displayName: String { "sqlite:\(path)" }
    /// Always true: a committed write is in the file.
    public var isDurable: Bool { true }

    private let connection: Mutex<SQLiteDatabase?>
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
        connection = Mutex(db)
    }

    static let schemaVersion = "1"

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
        if !tables.isEmpty, let version = try db.strings("SELECT value FROM routetiles_store WHERE key = 'schema'").first,
           version != schemaVersion {
            throw StoreError(path: path, message: "route store schema \(version); this RouteTiles reads schema \(schemaVersion)")
        }
        guard try db.strings("PRAGMA journal_mode = WAL").first?.lowercased() == "wal" else {
            throw StoreError(path: path, message: "cannot switch the database to WAL journal mode")
        }
        try db.execute("PRAGMA synchronous = FULL")
        if tables.isSuperset(of: ours) { return }
        try db.transaction(writing: true) {
            try db.execute("""
                CREATE TABLE IF NOT EXISTS routetiles_store (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                INSERT OR IGNORE INTO routetiles_store (key, value) VALUES ('schema', '\(schemaVersion)');
                CREATE TABLE IF NOT EXISTS routes (
                    id TEXT PRIMARY KEY,
                    properties TEXT NOT NULL DEFAULT '{}',
                    geom BLOB NOT NULL,
                    layer TEXT,
                    kind TEXT CHECK (kind IN ('line', 'point')),
                    geodesic INTEGER NOT NULL DEFAULT 0,
                    version INTEGER NOT NULL,
                    created_seq INTEGER NOT NULL
                );
                CREATE INDEX IF NOT EXISTS routes_created_seq ON routes (created_seq);
                CREATE TABLE IF NOT EXISTS route_changes (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    route_id TEXT NOT NULL,
                    op TEXT NOT NULL CHECK (op IN ('insert', 'update', 'delete', 'append')),
                    base_version INTEGER,
                    points BLOB,
                    changed_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
                );
                CREATE TABLE IF NOT EXISTS route_imports (
                    id TEXT PRIMARY KEY,
                    content_hash TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    imported_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
                );
                """)
        }
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

    private static let rowColumns = "id, version, properties, geom, layer, kind, geodesic, created_seq"

    private static func row(_ s: SQLiteDatabase.Statement) -> StoredRow {
        StoredRouteCodec.route(key: s.text(0) ?? "", version: s.int64(1), created: s.int64(7), properties: s.text(2),
                               wkb: s.isNull(3) ? nil : s.blob(3), layer: s.text(4), kind: s.text(5),
                               geodesic: s.int(6) != 0)
    }

    /// Every route and the newest sequence, read in one transaction.
    public func loadAll() async throws -> RouteStoreSnapshot {
        try await withConnection { db in
            try db.transaction(writing: false) {
                let sequence = try db.int64("SELECT COALESCE(MAX(seq), 0) FROM route_changes")
                let s = try db.prepare("SELECT \(Self.rowColumns) FROM routes ORDER BY created_seq, id")
                var snapshot = RouteStoreSnapshot(routes: [], badRows: [], sequence: sequence)
                while try s.step() {
                    switch Self.row(s) {
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
        try await withConnection { db in
            let s = try db.prepare("SELECT \(Self.rowColumns) FROM routes WHERE id = ?")
            var rows: [String: StoredRow] = [:]
            for key in keys {
                s.bind(1, key)
                if try s.step() { rows[key] = Self.row(s) }
                s.reset()
            }
            return rows
        }
    }

    /// The changes after `sequence`, at most `limit`, in order.
    public func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange] {
        try await withConnection { [displayName] db in
            let s = try db.prepare("""
                SELECT seq, route_id, op, base_version, points FROM route_changes WHERE seq > ? ORDER BY seq LIMIT ?
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
                                           baseVersion: s.isNull(3) ? nil : s.int64(3), points: points))
            }
            // Rows may have been pruned (`DELETE FROM route_changes WHERE …`): a reader that needs changes older
            // than the oldest kept must load everything again.
            if changes.first?.sequence != sequence + 1 {
                let oldest = try db.int64("SELECT COALESCE(MIN(seq), 0) FROM route_changes")
                if oldest > sequence + 1 { throw RouteChangesPruned(after: sequence, oldest: oldest) }
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
        try await withConnection { db in
            try db.transaction(writing: true) { try Self.apply(write, to: db) }
        }
    }

    private static func apply(_ write: RouteWrite, to db: SQLiteDatabase) throws -> RouteWriteResult {
        let addChange = try db.prepare("INSERT INTO route_changes (route_id, op, base_version, points) VALUES (?, ?, ?, ?)")
        func change(_ key: String, _ operation: RouteChange.Operation, base: Int64? = nil,
                    points: [Coordinate] = []) throws -> RouteChange {
            addChange.bind(1, key)
            addChange.bind(2, operation.rawValue)
            if let base { addChange.bind(3, base) } else { addChange.bindNull(3) }
            if operation == .append { addChange.bind(4, WellKnownBinary.multiPoint(points)) } else { addChange.bindNull(4) }
            try addChange.run()
            return RouteChange(sequence: db.lastInsertRowID, key: key, operation: operation, baseVersion: base,
                               points: points)
        }
        let current = try db.prepare("SELECT version, kind, geom, created_seq FROM routes WHERE id = ?")
        /// The version, kind, WKB and creation stored under `key`, if any.
        func stored(_ key: String) throws -> (version: Int64, kind: String?, wkb: [UInt8], created: Int64)? {
            defer { current.reset() }
            current.bind(1, key)
            guard try current.step() else { return nil }
            return (current.int64(0), current.text(1), current.blob(2), current.int64(3))
        }

        switch write {
        case let .put(routes):
            let upsert = try db.prepare("""
                INSERT INTO routes (id, properties, geom, layer, kind, geodesic, version, created_seq)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET properties = excluded.properties, geom = excluded.geom,
                    layer = excluded.layer, kind = excluded.kind, geodesic = excluded.geodesic, version = excluded.version
                """)
            var changes: [RouteChange] = []
            var written: [StoredRoute] = []
            for route in RouteStoreImport.numbered(routes, from: try nextFreeNumber(db, after: routes)) {
                let key = StoredRouteCodec.key(for: route.id ?? .number(0))
                let existing = try stored(key)
                let made = try change(key, existing == nil ? .insert : .update)
                upsert.bind(1, key)
                upsert.bind(2, StoredRouteCodec.propertiesJSON(route.properties))
                upsert.bind(3, WellKnownBinary.encode(route))
                upsert.bind(4, route.layer)
                upsert.bind(5, StoredRouteCodec.kindName(route.kind))
                upsert.bind(6, route.geodesic ? 1 : 0)
                upsert.bind(7, made.sequence)
                upsert.bind(8, made.sequence)
                try upsert.run()
                changes.append(made)
                written.append(StoredRoute(key: key, route: route, version: made.sequence,
                                           created: existing?.created ?? made.sequence))
            }
            return .committed(changes: changes, written: written)
        case let .replace(key, route):
            var route = route
            route.id = StoredRouteCodec.id(forKey: key)
            return try apply(.put([route]), to: db)
        case let .remove(key):
            guard try stored(key) != nil else { return .notFound(key: key) }
            let made = try change(key, .delete)
            let delete = try db.prepare("DELETE FROM routes WHERE id = ?")
            delete.bind(1, key)
            try delete.run()
            return .committed(changes: [made], written: [])
        case let .append(key, points):
            guard let (version, kind, wkb, _) = try stored(key) else { return .notFound(key: key) }
            if kind == "point" { return .notALine(key: key) }
            let extended: [UInt8]
            do {
                guard let spliced = try WellKnownBinary.appending(points, to: wkb) else { return .notALine(key: key) }
                extended = spliced
            } catch {
                throw StoreError(path: db.path, message: "route \(key) has a geometry that cannot be extended: \(error.message)")
            }
            let made = try change(key, .append, base: version, points: points)
            let update = try db.prepare("UPDATE routes SET geom = ?, version = ? WHERE id = ?")
            update.bind(1, extended)
            update.bind(2, made.sequence)
            update.bind(3, key)
            try update.run()
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
        try await withConnection { db in
            try db.transaction(writing: true) {
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
                    let version: Int64? = try current.step() ? current.int64(0) : nil
                    current.reset()
                    guard version == entry.expectedVersion else {
                        result.skipped.append(entry.key)
                        continue
                    }
                    switch entry.action {
                    case let .write(route):
                        var route = route
                        route.id = StoredRouteCodec.id(forKey: entry.key)
                        guard case let .committed(changes, written) = try Self.apply(.put([route]), to: db),
                              let stored = written.first else { continue }
                        result.changes += changes
                        result.written.append(stored)
                        try remember(entry.key, entry.contentHash, stored.version)
                    case .record:
                        if let version { try remember(entry.key, entry.contentHash, version) }
                    case .remove:
                        if case let .committed(changes, _) = try Self.apply(.remove(key: entry.key), to: db) {
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
