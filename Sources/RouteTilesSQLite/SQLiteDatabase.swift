import CSQLite
import Foundation
import RouteTilesModel

/// A small wrapper on one SQLite connection: statements, prepared statements and transactions, with errors that
/// carry SQLite's message and the file. Not thread-safe: its owner serialises access.
package final class SQLiteDatabase {
    package let path: String
    private var handle: OpaquePointer?

    package init(path: String, readOnly: Bool) throws {
        self.path = path
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close(db)
            throw StoreError(path: path, message: "cannot open the SQLite database: \(message)")
        }
        handle = db
    }

    deinit { close() }

    package func close() {
        statements = [:]
        sqlite3_close_v2(handle)
        handle = nil
    }

    package func error(_ what: String) -> StoreError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "the database is closed"
        return StoreError(path: path, message: "\(what): \(message)")
    }

    /// Runs one or more statements without results.
    package func execute(_ sql: String) throws {
        guard let handle else { throw error(sql) }
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    /// The rowid of the last row inserted through this connection.
    package var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` when it writes, so that it waits for the writer lock up
    /// front rather than failing half-way); rolls back when it throws.
    package func transaction<T>(writing: Bool, _ body: () throws -> T) throws -> T {
        try execute(writing ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Statements prepared once and kept for the connection's life (`cached(_:)`).
    private var statements: [String: Statement] = [:]

    /// The statement for `sql`, prepared on first use and reused after: for statements a hot path runs again and
    /// again. The statement comes reset, with no bindings; the caller steps it to its end or resets it.
    package func cached(_ sql: String) throws -> Statement {
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    package func prepare(_ sql: String) throws -> Statement {
        guard let handle else { throw error(sql) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw error("cannot prepare '\(sql)'")
        }
        return Statement(database: self, handle: statement, sql: sql)
    }

    /// A prepared statement: bind, step, read columns, reset.
    package final class Statement {
        unowned let database: SQLiteDatabase
        package let handle: OpaquePointer
        package let sql: String

        package init(database: SQLiteDatabase, handle: OpaquePointer, sql: String) {
            self.database = database
            self.handle = handle
            self.sql = sql
        }

        deinit { sqlite3_finalize(handle) }

        package func bind(_ index: Int32, _ value: Int) {
            sqlite3_bind_int64(handle, index, Int64(value))
        }

        package func bind(_ index: Int32, _ value: Int64) {
            sqlite3_bind_int64(handle, index, value)
        }

        package func bind(_ index: Int32, _ value: Double) {
            sqlite3_bind_double(handle, index, value)
        }

        package func bindNull(_ index: Int32) {
            sqlite3_bind_null(handle, index)
        }

        package func bind(_ index: Int32, _ value: String?) {
            if let value { bind(index, value) } else { bindNull(index) }
        }

        package func bind(_ index: Int32, _ value: String) {
            sqlite3_bind_text(handle, index, value, -1, csqlite_transient())
        }

        package func bind(_ index: Int32, _ bytes: [UInt8]) {
            bytes.withUnsafeBytes { raw in
                _ = sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), csqlite_transient())
            }
        }

        /// Steps once: true when a row is ready, false when done.
        package func step() throws -> Bool {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            default: throw database.error("'\(sql)' failed")
            }
        }

        /// Runs the statement to its end and resets it for the next bindings.
        package func run() throws {
            defer { reset() }
            while try step() {}
        }

        package func reset() {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }

        package func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

        package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

        package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

        package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

        package func text(_ column: Int32) -> String? {
            guard let c = sqlite3_column_text(handle, column) else { return nil }
            return String(cString: c)
        }

        package func blob(_ column: Int32) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: base, count: count))
        }
    }
}
