import Foundation
import Logging
import NIOCore
import PostgresNIO
import RouteTiles

/// A write transaction of `PostgresRouteStore`, inside `writeTransaction` (the writers' lock held, the ledger up to
/// date): the queries that read and write routes, the feed and the import records. The ledger is changed through
/// `store.ledger`, which lets a transaction the watchdog abandoned change nothing.
///
/// Appends are queued and written together (`flushAppends`: one query for their sequence numbers, one COPY), and
/// import records at the end (`finishImport`). Only a write of several in a batch, not an append, gets a savepoint,
/// and a failed one answers with what PostgreSQL said; any other failure fails the transaction.
struct PostgresRouteTransaction: RouteStoreTransaction {
    let store: PostgresRouteStore
    let connection: PostgresConnection
    /// Routes whose tail grew long enough to fold, once the transaction has committed.
    var due: [String] = []
    private var appends: [(key: String, points: [Coordinate], times: [Int64]?)] = []
    /// The last time of each route that queued appends with times extend (the ledger learns it at `flushAppends`).
    private var queuedLastTimes: [String: Int64] = [:]
    private var remembered: [(key: String, hash: String, version: Int64)] = []
    private var forgotten: [String] = []

    /// Where a write started: the ledger's mark (a savepoint is open).
    struct Mark {
        var ledger: (undo: Int, seen: Int)
    }

    init(store: PostgresRouteStore, connection: PostgresConnection) {
        self.store = store
        self.connection = connection
    }

    private var schema: PostgresRouteSchema { store.schema }
    private var logger: Logger { store.logger }

    // MARK: Reading

    /// As the ledger knows it, under the writers' lock: no row is read.
    nonisolated(nonsending) func version(of key: String) async throws -> Int64? {
        store.ledger { $0.ledger.tail(of: key)?.version }
    }

    nonisolated(nonsending) func read(_ key: String) async throws -> StoredRow? {
        var select = PostgresQuery(unsafeSQL: """
            SELECT \(store.rowColumns) FROM \(schema.routes) r \(store.tailJoin("$2")) WHERE r.id = $1
            """)
        select.binds.append(key)
        select.binds.append(store.ledger { $0.ledger.tail(of: key)?.rows ?? [] })
        var row: StoredRow?
        for try await tuple in try await connection.query(select, logger: logger).decode(PostgresRouteStore.RowTuple.self) {
            row = PostgresRouteStore.row(tuple)
        }
        return row
    }

    /// From the ledger alone: the routes it lacked were read before the batch (`prepare(forBatch:)`).
    nonisolated(nonsending) func appendTarget(_ key: String) async throws -> AppendTarget {
        guard let tail = store.ledger({ $0.ledger.tail(of: key) }) else { return .missing }
        return tail.isLine ? .line(hasTimes: tail.hasTimes, lastTime: queuedLastTimes[key] ?? tail.lastTime) : .notALine
    }

    /// Routes appended to that the ledger does not know are read from their rows, in one query (a route the feed's
    /// pruned rows created): an append to a route that is not there is then refused without a write.
    nonisolated(nonsending) func prepare(forBatch writes: [RouteWrite]) async throws {
        let unknown = Set(writes.lazy.compactMap(\.appendKey).filter { key in
            store.ledger { $0.ledger.tail(of: key) == nil }
        })
        if !unknown.isEmpty { try await store.relearn(Array(unknown), connection) }
    }

    /// One past the largest numeric key stored now, when a route has no id: the number of a route removed may be
    /// given again.
    nonisolated(nonsending) func nextFreeNumber(after routes: [Route]) async throws -> UInt64 {
        guard routes.contains(where: { $0.id == nil }) else { return 0 }
        var next: UInt64 = 0
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT id FROM \(schema.routes) WHERE id ~ '^(0|[1-9][0-9]*)$' ORDER BY length(id) DESC, id DESC LIMIT 1
            """), logger: logger)
        for try await id in rows.decode(String.self) {
            if let n = UInt64(id) { next = max(next, n &+ 1) }
        }
        return next
    }

    // MARK: Writing

    /// UPDATE, else INSERT (an INSERT … ON CONFLICT would fire the insert trigger too and record a change that did
    /// not happen); the trigger writes the change.
    nonisolated(nonsending) func upsert(_ route: Route, key: String, lastFix: Double?) async throws -> Upserted {
        let properties = StoredRouteCodec.propertiesJSON(route.properties)
        let wkb = ByteBuffer(bytes: WellKnownBinary.encode(route))
        // The new line replaces what was appended to the old one: its version leaves the old tail's rows behind.
        func written(_ version: Int64) {
            store.ledger { state in
                state.ledger.reset(key, version: version, line: route.pointCount, isLine: route.kind == .line,
                                   hasTimes: route.times != nil, lastTime: route.times?.last, lastFix: lastFix)
            }
        }
        func bind(_ query: inout PostgresQuery) {
            query.binds.append(key)
            query.binds.append(properties)
            query.binds.append(wkb)
            if let layer = route.layer { query.binds.append(layer) } else { query.binds.appendNull() }
            query.binds.append(StoredRouteCodec.kindName(route.kind))
            query.binds.append(route.geodesic)
            if let lastFix { query.binds.append(lastFix) } else { query.binds.appendNull() }
            query.binds.append(Int64(max(route.trimmed, 0)))
        }
        var update = PostgresQuery(unsafeSQL: """
            UPDATE \(schema.routes) SET properties = $2::jsonb, geom = ST_GeomFromWKB($3, 4326), layer = $4, kind = $5,
                fixed_at = to_timestamp($7::float8), trimmed = $8,
                geodesic = $6 WHERE id = $1 RETURNING version, created_seq
            """)
        bind(&update)
        for try await (version, created) in try await connection.query(update, logger: logger).decode((Int64, Int64).self) {
            written(version)
            return Upserted(version: version, created: created, inserted: false)
        }
        var insert = PostgresQuery(unsafeSQL: """
            INSERT INTO \(schema.routes) (id, properties, geom, layer, kind, geodesic, fixed_at, trimmed)
            VALUES ($1, $2::jsonb, ST_GeomFromWKB($3, 4326), $4, $5, $6, to_timestamp($7::float8), $8)
            RETURNING version, created_seq
            """)
        bind(&insert)
        for try await (version, created) in try await connection.query(insert, logger: logger).decode((Int64, Int64).self) {
            written(version)
            return Upserted(version: version, created: created, inserted: true)
        }
        throw RouteStoreError(store: store.displayName, message: "route \(key) was written but its version did not come back")
    }

    /// The trigger writes the change.
    nonisolated(nonsending) func delete(_ key: String) async throws -> Int64? {
        var query = PostgresQuery(unsafeSQL: """
            DELETE FROM \(schema.routes) WHERE id = $1 RETURNING currval(\(PostgresRouteSchema.literal(schema.sequence)))
            """)
        query.binds.append(key)
        var sequence: Int64?
        for try await seq in try await connection.query(query, logger: logger).decode(Int64.self) { sequence = seq }
        guard let sequence else { return nil }
        store.ledger { $0.ledger.remove(key) }
        return sequence
    }

    /// Queued for `flushAppends`; the ledger's last time moves at once, so that the next fixes of the batch are
    /// judged against these.
    nonisolated(nonsending) mutating func append(_ points: [Coordinate], times: [Int64]?, to key: String) async throws
        -> RouteChange?
    {
        appends.append((key, points, times))
        if let last = times?.last { queuedLastTimes[key] = last }
        return nil
    }

    /// Writes the queued appends, in order: their sequence numbers (taken under the writers' lock, so consecutive)
    /// and one feed row each, written with COPY; nothing else is written, not even the routes' rows (a route's
    /// version is its tail's last row's). One notification wakes the other servers, and one time stamps them all.
    /// A route appended to twice chains its changes. Routes whose tail is now long enough to fold are added to `due`.
    nonisolated(nonsending) mutating func flushAppends() async throws -> [RouteChange] {
        guard !appends.isEmpty else { return [] }
        let group = appends
        appends.removeAll(keepingCapacity: true)
        queuedLastTimes.removeAll(keepingCapacity: true)
        var numbers = PostgresQuery(unsafeSQL: """
            SELECT n.s FROM (SELECT nextval(\(PostgresRouteSchema.literal(schema.sequence))) AS s FROM generate_series(1, $1)) n,
                (SELECT pg_notify(\(PostgresRouteSchema.literal(PostgresRouteSchema.channel)), \(PostgresRouteSchema.literal(schema.payload)))) w
            """)
        numbers.binds.append(Int64(group.count))
        var sequences: [Int64] = []
        sequences.reserveCapacity(group.count)
        for try await seq in try await connection.query(numbers, logger: logger).decode(Int64.self) {
            sequences.append(seq)
        }
        sequences.sort()
        guard sequences.count == group.count else {
            throw RouteStoreError(store: store.displayName, message: "asked \(group.count) sequence numbers, got \(sequences.count)")
        }
        let time = Date().timeIntervalSince1970
        let changedAt = AppendRowsCopy.timestamp(time)
        var rows = AppendRowsCopy(capacity: group.count * 64)
        var changes: [RouteChange] = []
        changes.reserveCapacity(group.count)
        let dueKeys = store.ledger { state in
            var dueKeys: [String] = []
            for (entry, seq) in zip(group, sequences) {
                let base = state.ledger.tail(of: entry.key)?.version ?? 0
                rows.add(seq: seq, key: entry.key, base: base, points: entry.points, changedAt: changedAt, times: entry.times)
                changes.append(RouteChange(sequence: seq, key: entry.key, operation: .append, baseVersion: base,
                                           points: entry.points, time: time, times: entry.times))
                if state.ledger.append(entry.key, seq: seq, count: entry.points.count, time: time, lastTime: entry.times?.last) {
                    dueKeys.append(entry.key)
                }
            }
            return dueKeys
        }
        let data = rows.buffer
        try await connection.copyFrom(table: schema.table + "_changes", columns: AppendRowsCopy.columns, logger: logger) { writer in
            try await writer.write(data)
        }
        due += dueKeys
        return changes
    }

    // MARK: Imports from files

    /// Gathered, and written by `finishImport`.
    nonisolated(nonsending) mutating func recordImport(_ key: String, contentHash: String, version: Int64) async throws {
        remembered.append((key, contentHash, version))
    }

    /// Gathered, and written by `finishImport`.
    nonisolated(nonsending) mutating func forgetImport(_ key: String) async throws {
        forgotten.append(key)
    }

    /// The records gathered, in one statement, then the records forgotten, in another.
    nonisolated(nonsending) func finishImport() async throws {
        if !remembered.isEmpty {
            var insert = PostgresQuery(unsafeSQL: """
                INSERT INTO \(schema.imports) (id, content_hash, version)
                SELECT * FROM unnest($1::text[], $2::text[], $3::int8[])
                ON CONFLICT (id) DO UPDATE SET content_hash = excluded.content_hash, version = excluded.version,
                    imported_at = excluded.imported_at
                """)
            insert.binds.append(remembered.map(\.key))
            insert.binds.append(remembered.map(\.hash))
            insert.binds.append(remembered.map(\.version))
            try await connection.query(insert, logger: logger)
        }
        if !forgotten.isEmpty {
            var delete = PostgresQuery(unsafeSQL: "DELETE FROM \(schema.imports) WHERE id = ANY($1)")
            delete.binds.append(forgotten)
            try await connection.query(delete, logger: logger)
        }
    }

    // MARK: One write's failure

    /// A savepoint only for a write of several that is not an append: alone, its failure fails the transaction, and
    /// an append cannot fail alone (COPY aborts the transaction).
    nonisolated(nonsending) func beginWrite(_ scope: WriteScope, inBatchOf count: Int) async throws -> Mark? {
        guard scope == .whole, count > 1 else { return nil }
        let mark = Mark(ledger: store.ledger { $0.ledger.mark })
        try await connection.query("SAVEPOINT routetiles_write", logger: logger)
        return mark
    }

    nonisolated(nonsending) func endWrite(_ mark: Mark) async throws {
        try await connection.query("RELEASE SAVEPOINT routetiles_write", logger: logger)
    }

    /// Rolls back to the savepoint and the ledger's mark; the writer gets what PostgreSQL said.
    nonisolated(nonsending) func undoWrite(_ mark: Mark, after error: any Error) async throws -> any Error {
        try await connection.query("ROLLBACK TO SAVEPOINT routetiles_write", logger: logger)
        try await connection.query("RELEASE SAVEPOINT routetiles_write", logger: logger)
        store.ledger { $0.ledger.rollBack(to: mark.ledger) }
        return RouteStoreError(store: store.displayName, message: PostgresRouteStore.describe(error))
    }
}
