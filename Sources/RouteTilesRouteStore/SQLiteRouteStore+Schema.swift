import Foundation
import RouteTilesModel
import RouteTilesSQLite

/// The SQLite store's tables: made when missing, brought up to date from older schemas, and checked to be a route
/// store's (`Docs/FORMATS.md` has them in full).
extension SQLiteRouteStore {
    /// Schema 2 added `route_tails`; schema 3 kept its rows in sequence order; schema 4 dropped its index by route
    /// (`TailLedger`); schema 5 drops the table: a tail is the append rows of the feed, which held the same points.
    /// A store of schema 1 to 4 is brought to 5 when opened (schema 1 gains `routes.fixed_at`; the tails of schemas
    /// 2 to 4 are folded into their lines, then their table dropped). Schema 6 adds `routes.trimmed` (positions
    /// retention trimmed from the start of the line, `Route.trimmed`), 0 for the rows of older schemas.
    static let schemaVersion = "6"

    /// The feed's append rows newer than their route's version are its tail, which the route needs: this trigger
    /// keeps them when a prune (Docs/OPERATIONS.md, "Pruning the changes table") deletes rows by age. A fold, a
    /// put, a trim or the route's removal lets them go. The feed then has holes, which readers treat as pruned rows.
    static let keepTails = """
        CREATE TRIGGER IF NOT EXISTS route_changes_keep_tails BEFORE DELETE ON route_changes
        WHEN old.op = 'append' AND old.seq > (SELECT version FROM routes WHERE id = old.route_id)
        BEGIN SELECT RAISE(IGNORE); END;
        """

    /// How much of the file SQLite reads through a memory map (`PRAGMA mmap_size`; SQLite caps it at 2 GB): the
    /// pages are the system's file cache, shared and given back under memory pressure, not the process's own.
    static let mappedBytes = 1 << 30

    static func prepare(_ db: SQLiteDatabase, path: String, create: Bool) throws {
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
        if let stored, stored != schemaVersion, !["1", "2", "3", "4", "5"].contains(stored) {
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
            // Schema 6: `routes.trimmed`, added with the new version in one transaction.
            if tables.contains("routes"),
               !(try db.strings("SELECT name FROM pragma_table_info('routes')").contains("trimmed")) {
                try db.execute("ALTER TABLE routes ADD COLUMN trimmed INTEGER NOT NULL DEFAULT 0")
            }
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
                    fixed_at REAL,
                    trimmed INTEGER NOT NULL DEFAULT 0
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
    static func rewriteMembershipChecks(_ db: SQLiteDatabase) throws {
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
    static func foldLegacyTails(_ db: SQLiteDatabase, path: String) throws {
        try splice(tails(db, """
            SELECT t.route_id, t.points, t.seq, t.fixed_at FROM route_tails t JOIN routes r ON r.id = t.route_id
            WHERE t.seq > r.version ORDER BY t.seq
            """), in: db, path: path)
    }

    /// Writes each route's tail into its stored line (`writeTail`). A tail that does not extend its line throws, so
    /// that the caller's transaction, and the upgrade, roll back and nothing is dropped.
    static func splice(_ tails: [String: TailRead], in db: SQLiteDatabase, path: String) throws {
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
