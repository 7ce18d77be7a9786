import Foundation
import Logging
import NIOCore
import PostgresNIO
import RouteTiles
import Synchronization

/// Routes in PostgreSQL with PostGIS, shared by any number of servers (`--store postgres://…`).
///
/// The routes live in a table that other programs may write with plain SQL (`PostgresRouteSchema`): an `INSERT`
/// of `id`, `properties` and `geom` alone is a route. A trigger records every change in `<table>_changes` in the
/// same transaction, numbered from a sequence under a transaction-level advisory lock, so sequence numbers commit
/// in order and a reader that reads past the newest it sees skips none; then `pg_notify` wakes the listeners. A
/// notification is only a wake-up: after every (re)connection the listener wakes its reader, which reads every
/// change after the last it applied.
///
/// Every call is bounded by `timeout`, so a server whose database is gone answers writes with 503 at once instead
/// of holding them.
public final class PostgresRouteStore: RouteStore {
    public let url: PostgresStoreURL
    public let schema: PostgresRouteSchema
    public var displayName: String { "\(url.displayName) (\(schema.payload))" }
    public var isDurable: Bool { true }

    let client: PostgresClient
    private let running: Task<Void, Never>
    private let logger: Logger
    private let timeout: Duration
    private let listenerTasks = Mutex<[Task<Void, Never>]>([])
    /// When to fold each route's tail into its line (`AppendedTails`).
    private let tails = Mutex(AppendedTails())

    /// Connects and, with `create`, creates what is missing (PostGIS, schema, tables, trigger) in one transaction;
    /// without it, checks that the table is there.
    public static func open(url text: String, schema: String? = nil, table: String? = nil, create: Bool,
                            timeout: Duration = .seconds(10), logger: Logger = Logger(label: "routetiles.postgres"))
        async throws -> PostgresRouteStore
    {
        let url = try PostgresStoreURL(text)
        for warning in url.warnings { logger.warning("\(warning)") }
        let names = PostgresRouteSchema(schema: url.schema ?? schema ?? "public", table: url.table ?? table ?? "routes")
        let store = PostgresRouteStore(url: url, schema: names, timeout: timeout, logger: logger)
        do {
            if create {
                try await store.setUp()
            } else {
                try await store.checkTable()
            }
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    private init(url: PostgresStoreURL, schema: PostgresRouteSchema, timeout: Duration, logger: Logger) {
        self.url = url
        self.schema = schema
        self.timeout = timeout
        self.logger = logger
        // The pool logs every failed connection attempt at info, many a second while the database is down; the
        // store's own errors say it once a call.
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: url.configuration, backgroundLogger: background)
        self.client = client
        running = Task { await client.run() }
    }

    private func setUp() async throws {
        let current = try await call("cannot read the routes table") { [schema, client, logger] in
            let rows = try await client.query(PostgresQuery(unsafeSQL: """
                SELECT to_regclass(\(PostgresRouteSchema.literal(schema.routes))) IS NOT NULL
                   AND obj_description(to_regclass(\(PostgresRouteSchema.literal(schema.changes))), 'pg_class')
                       IS NOT DISTINCT FROM \(PostgresRouteSchema.literal(schema.versionComment))
                """), logger: logger)
            for try await found in rows.decode(Bool.self) { return found }
            return false
        }
        if current { return }
        try await call("cannot set up the routes table") { [schema, client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                // One setter-up at a time: replicas starting together would otherwise race on CREATE.
                try await connection.query("SELECT pg_advisory_xact_lock(1381258323, 0)", logger: logger)
                for statement in schema.setupStatements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        }
    }

    private func checkTable() async throws {
        let found = try await call("cannot read the routes table") { [schema, client, logger] in
            let rows = try await client.query("SELECT to_regclass(\(schema.routes)) IS NOT NULL", logger: logger)
            for try await exists in rows.decode(Bool.self) { return exists }
            return false
        }
        guard found else {
            throw RouteStoreError(store: displayName, message: "no table \(schema.routes); `routetiles load` or `serve --store` creates it")
        }
    }

    // MARK: Reading

    /// The columns of a route, its tail's positions last (flat, in append order), from `routes AS r`.
    private var rowColumns: String {
        """
        r.id, r.version, r.created_seq, r.properties::text, ST_AsBinary(ST_Force2D(r.geom)), r.layer, r.kind, r.geodesic,
            (SELECT array_agg(u.p ORDER BY t.seq, u.o) FROM \(schema.tails) t
                CROSS JOIN LATERAL unnest(t.points) WITH ORDINALITY AS u(p, o) WHERE t.route_id = r.id),
            EXTRACT(EPOCH FROM r.fixed_at)::float8
        """
    }

    private typealias RowTuple = (String, Int64, Int64, String?, ByteBuffer?, String?, String?, Bool, [Double]?, Double?)

    private static func row(_ t: RowTuple) -> StoredRow {
        StoredRouteCodec.route(key: t.0, version: t.1, created: t.2, properties: t.3,
                               wkb: t.4.map { Array($0.readableBytesView) }, layer: t.5, kind: t.6, geodesic: t.7,
                               tail: coordinates(t.8 ?? []), lastFix: t.9)
    }

    /// Positions from a flat array of longitude, latitude pairs.
    private static func coordinates(_ flat: [Double]) -> [Coordinate] {
        guard flat.count % 2 == 0 else { return [] }
        return stride(from: 0, to: flat.count, by: 2).map { Coordinate(longitude: flat[$0], latitude: flat[$0 + 1]) }
    }

    public func loadAll() async throws -> RouteStoreSnapshot {
        try await call("cannot read the routes") { [self] in
            try await client.withConnection { connection in
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                do {
                    let sequence = try await Self.newest(connection, schema: schema, logger: logger)
                    var snapshot = RouteStoreSnapshot(routes: [], badRows: [], sequence: sequence)
                    let rows = try await connection.query(
                        PostgresQuery(unsafeSQL: "SELECT \(rowColumns) FROM \(schema.routes) r ORDER BY r.created_seq, r.id"),
                        logger: logger)
                    for try await tuple in rows.decode(RowTuple.self) {
                        switch Self.row(tuple) {
                        case let .route(route): snapshot.routes.append(route)
                        case let .bad(problem): snapshot.badRows.append(problem)
                        }
                    }
                    try await connection.query("COMMIT", logger: logger)
                    return snapshot
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    public func rows(_ keys: [String]) async throws -> [String: StoredRow] {
        guard !keys.isEmpty else { return [:] }
        return try await call("cannot read routes") { [self] in
            var query = PostgresQuery(unsafeSQL: "SELECT \(rowColumns) FROM \(schema.routes) r WHERE r.id = ANY($1)")
            query.binds.append(keys)
            let rows = try await client.query(query, logger: logger)
            var found: [String: StoredRow] = [:]
            for try await tuple in rows.decode(RowTuple.self) { found[tuple.0] = Self.row(tuple) }
            return found
        }
    }

    public func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange] {
        try await call("cannot read the changes") { [self] in
            var query = PostgresQuery(unsafeSQL: """
                SELECT seq, route_id, op, base_version, points, EXTRACT(EPOCH FROM changed_at)::float8 FROM \(schema.changes)
                WHERE seq > $1 ORDER BY seq LIMIT $2
                """)
            query.binds.append(sequence)
            query.binds.append(Int64(limit))
            let rows = try await client.query(query, logger: logger)
            var changes: [RouteChange] = []
            for try await (seq, key, op, base, flat, changedAt) in rows.decode((Int64, String, String, Int64?, [Double]?, Double?).self) {
                guard let operation = RouteChange.Operation(rawValue: op) else {
                    throw RouteStoreError(store: displayName, message: "change \(seq) has an unknown op '\(op)'")
                }
                let points = Self.coordinates(flat ?? [])
                changes.append(RouteChange(sequence: seq, key: key, operation: operation, baseVersion: base, points: points,
                                           time: operation == .append ? changedAt : nil))
            }
            // The first change after `sequence` is missing when a writer rolled back (its number is never used)
            // or when rows were pruned (`DELETE FROM <table>_changes WHERE …`). Pruned: the reader must load
            // everything again.
            if changes.first?.sequence != sequence + 1 {
                let rows = try await client.query(
                    PostgresQuery(unsafeSQL: "SELECT COALESCE(MIN(seq), 0)::int8 FROM \(schema.changes)"), logger: logger)
                var oldest: Int64 = 0
                for try await value in rows.decode(Int64.self) { oldest = value }
                if oldest > sequence + 1 { throw RouteChangesPruned(after: sequence, oldest: oldest) }
            }
            return changes
        }
    }

    public func newestSequence() async throws -> Int64 {
        try await call("cannot read the changes") { [self] in
            try await client.withConnection { connection in
                try await Self.newest(connection, schema: schema, logger: logger)
            }
        }
    }

    private static func newest(_ connection: PostgresConnection, schema: PostgresRouteSchema, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT COALESCE(MAX(seq), 0)::int8 FROM \(schema.changes)"), logger: logger)
        for try await value in rows.decode(Int64.self) { return value }
        return 0
    }

    // MARK: Writing

    public func commit(_ write: RouteWrite) async throws -> RouteWriteResult {
        try await commit(batch: [write])[0].get()
    }

    /// Commits the writes in one transaction, each of several in a savepoint of its own. Routes whose tail grew
    /// long enough are folded afterwards, in a transaction of their own, off the writer's answer.
    public func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        let (results, due) = try await call("the write was not committed") { [self] in
            try await client.withTransaction(logger: logger) { connection in
                // Writers of this table take turns until they commit (the trigger takes the same lock), so the
                // changes of one write have consecutive sequence numbers and commit in order. `routetiles.own`
                // tells the trigger that this transaction keeps the routes' tails itself.
                try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT pg_advisory_xact_lock(\(schema.lockKeys)), set_config('routetiles.own', 'on', true)
                    """), logger: logger)
                var due: [String] = []
                var results: [Result<RouteWriteResult, any Error>?] = []
                // The routes appended to, read and locked in one query: an append to a route known here needs no
                // savepoint (what could refuse it alone, a missing route or one of points, is known before it
                // writes), which saves three round trips an append. A route another write of the batch touches
                // first is read again by its append.
                var known: [String: (version: Int64, isLine: Bool)] = [:]
                let appended = Array(Set(writes.compactMap { write -> String? in
                    if case let .append(key, _) = write { return key } else { return nil }
                }))
                if writes.count > 1, !appended.isEmpty {
                    var select = PostgresQuery(unsafeSQL: """
                        SELECT id, version, kind, CASE WHEN kind IS NULL THEN GeometryType(geom) END FROM \(schema.routes)
                        WHERE id = ANY($1) ORDER BY id FOR UPDATE
                        """)
                    select.binds.append(appended)
                    for try await (key, version, kind, type) in try await connection.query(select, logger: logger)
                        .decode((String, Int64, String?, String?).self) {
                        known[key] = (version, Self.isLine(kind: kind, type: type))
                    }
                }
                var touched = Set<String>()
                // Consecutive appends to known routes are written together, set-based (`appendAll`).
                var group: [(index: Int, key: String, points: [Coordinate], base: Int64)] = []
                func flush() async throws {
                    guard !group.isEmpty else { return }
                    let made = try await appendAll(group.map { ($0.key, $0.points, $0.base) }, on: connection, due: &due)
                    for (entry, change) in zip(group, made) {
                        results[entry.index] = .success(.committed(changes: [change], written: []))
                        known[entry.key]?.version = change.sequence
                    }
                    group = []
                }
                for write in writes {
                    if case let .append(key, points) = write, !touched.contains(key), writes.count > 1 {
                        results.append(nil)
                        guard let route = known[key] else {
                            results[results.count - 1] = .success(.notFound(key: key))
                            continue
                        }
                        guard route.isLine else {
                            results[results.count - 1] = .success(.notALine(key: key))
                            continue
                        }
                        group.append((results.count - 1, key, points, route.version))
                        continue
                    }
                    try await flush()
                    if let key = write.key { touched.insert(key) }
                    if case let .put(routes) = write { for route in routes { if let id = route.id { touched.insert(StoredRouteCodec.key(for: id)) } } }
                    guard writes.count > 1 else {
                        results.append(.success(try await apply(write, on: connection, due: &due)))
                        continue
                    }
                    try await connection.query("SAVEPOINT routetiles_write", logger: logger)
                    do {
                        let result = try await apply(write, on: connection, due: &due)
                        try await connection.query("RELEASE SAVEPOINT routetiles_write", logger: logger)
                        results.append(.success(result))
                    } catch {
                        try await connection.query("ROLLBACK TO SAVEPOINT routetiles_write", logger: logger)
                        try await connection.query("RELEASE SAVEPOINT routetiles_write", logger: logger)
                        results.append(.failure(RouteStoreError(store: displayName, message: Self.describe(error))))
                    }
                }
                try await flush()
                return (results.map { $0 ?? .failure(RouteStoreError(store: displayName, message: "the write has no result")) }, due)
            }
        }
        if !due.isEmpty {
            let keys = Array(Set(due))
            Task { [self] in
                do {
                    try await call("cannot fold appended positions") { [self] in try await fold(keys) }
                } catch {
                    logger.warning("route store: \(Self.describe(error)); the routes stay whole, with their appended positions kept apart")
                }
            }
        }
        return results
    }

    /// Folds the tails of `keys` into their lines, in one transaction: the routes read the same before and after,
    /// so the trigger records nothing (`routetiles.fold`) and versions stay.
    private func fold(_ keys: [String]) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT pg_advisory_xact_lock(\(schema.lockKeys)), set_config('routetiles.fold', 'on', true)
                """), logger: logger)
            for key in keys {
                var read = PostgresQuery(unsafeSQL: "SELECT seq, points FROM \(schema.tails) WHERE route_id = $1 ORDER BY seq")
                read.binds.append(key)
                var points: [Coordinate] = []
                var last: Int64 = 0
                for try await (seq, flat) in try await connection.query(read, logger: logger).decode((Int64, [Double]).self) {
                    points += Self.coordinates(flat)
                    last = seq
                }
                guard !points.isEmpty else { continue }
                var update = PostgresQuery(unsafeSQL: "UPDATE \(schema.routes) SET geom = \(extendedGeometry) WHERE id = $1")
                update.binds.append(key)
                update.binds.append(ByteBuffer(bytes: WellKnownBinary.multiPoint(points)))
                try await connection.query(update, logger: logger)
                var drop = PostgresQuery(unsafeSQL: "DELETE FROM \(schema.tails) WHERE route_id = $1 AND seq <= $2")
                drop.binds.append(key)
                drop.binds.append(last)
                try await connection.query(drop, logger: logger)
            }
        }
        tails.withLock { ledger in for key in keys { ledger.folded(key) } }
    }

    /// The route's line (`geom` of the row being updated) with the positions of the MultiPoint WKB `$2` added to
    /// the end of its last part.
    private var extendedGeometry: String {
        let routes = schema.routes
        return """
            CASE WHEN GeometryType(geom) = 'LINESTRING'
                THEN ST_MakeLine(ARRAY[geom, ST_GeomFromWKB($2, 4326)])
                ELSE ST_Collect(ARRAY(
                    SELECT CASE WHEN d.path[1] = ST_NumGeometries(\(routes).geom)
                        THEN ST_MakeLine(ARRAY[d.geom, ST_GeomFromWKB($2, 4326)]) ELSE d.geom END
                    FROM ST_Dump(\(routes).geom) d ORDER BY d.path[1]))
            END
            """
    }

    private func apply(_ write: RouteWrite, on connection: PostgresConnection, due: inout [String]) async throws
        -> RouteWriteResult
    {
        switch write {
        case let .put(routes):
            let first = try await nextFreeNumber(connection, after: routes)
            var changes: [RouteChange] = []
            var written: [StoredRoute] = []
            for route in RouteStoreImport.numbered(routes, from: first) {
                let key = StoredRouteCodec.key(for: route.id ?? .number(0))
                let (version, created, inserted) = try await upsert(route, key: key, on: connection)
                changes.append(RouteChange(sequence: version, key: key, operation: inserted ? .insert : .update))
                written.append(StoredRoute(key: key, route: route, version: version, created: created))
            }
            return .committed(changes: changes, written: written)
        case let .replace(key, route):
            var route = route
            route.id = StoredRouteCodec.id(forKey: key)
            return try await apply(.put([route]), on: connection, due: &due)
        case let .remove(key):
            var query = PostgresQuery(unsafeSQL: "DELETE FROM \(schema.routes) WHERE id = $1 RETURNING currval(\(PostgresRouteSchema.literal(schema.sequence)))")
            query.binds.append(key)
            let rows = try await connection.query(query, logger: logger)
            var sequence: Int64?
            for try await seq in rows.decode(Int64.self) { sequence = seq }
            guard let sequence else { return .notFound(key: key) }
            tails.withLock { $0.forget(key) }  // its tail went with it (ON DELETE CASCADE)
            return .committed(changes: [RouteChange(sequence: sequence, key: key, operation: .delete)], written: [])
        case let .trim(key, keep):
            var select = PostgresQuery(unsafeSQL: "SELECT \(rowColumns) FROM \(schema.routes) r WHERE r.id = $1 FOR UPDATE OF r")
            select.binds.append(key)
            var row: StoredRow?
            for try await tuple in try await connection.query(select, logger: logger).decode(RowTuple.self) {
                row = Self.row(tuple)
            }
            guard case let .route(held)? = row else { return .notFound(key: key) }
            guard let route = TrackRetention.trimmed(held.route, keeping: keep) else {
                return .committed(changes: [], written: [])
            }
            let (version, created, _) = try await upsert(route, key: key, lastFix: held.lastFix, on: connection)
            return .committed(changes: [RouteChange(sequence: version, key: key, operation: .update)],
                              written: [StoredRoute(key: key, route: route, version: version, created: created,
                                                    lastFix: held.lastFix)])
        case let .append(key, points):
            // The geometry's type is read only when the kind does not tell (a row written by another program).
            var select = PostgresQuery(unsafeSQL: """
                SELECT version, kind, CASE WHEN kind IS NULL THEN GeometryType(geom) END FROM \(schema.routes)
                WHERE id = $1 FOR UPDATE
                """)
            select.binds.append(key)
            var current: (Int64, String?, String?)?
            for try await row in try await connection.query(select, logger: logger).decode((Int64, String?, String?).self) {
                current = row
            }
            guard let (base, kind, type) = current else { return .notFound(key: key) }
            guard Self.isLine(kind: kind, type: type) else { return .notALine(key: key) }
            return try await append(points, to: key, base: base, on: connection, due: &due)
        }
    }

    /// Appends to line routes whose rows are locked, in order, set-based: four round trips for the whole group
    /// instead of two an append. The changes are numbered here (under the writers' lock, so consecutively) and
    /// written with the tails in one statement; the rows take their last version in one `UPDATE`, which the trigger
    /// lets through unrecorded (`routetiles.fold`), and one notification wakes the other servers. `base` is the
    /// version of each route before the group; a route appended to twice chains its changes.
    private func appendAll(_ group: [(key: String, points: [Coordinate], base: Int64)], on connection: PostgresConnection,
                           due: inout [String]) async throws -> [RouteChange] {
        var numbers = PostgresQuery(unsafeSQL: """
            SELECT nextval(\(PostgresRouteSchema.literal(schema.sequence))), set_config('routetiles.fold', 'on', true)
            FROM generate_series(1, $1)
            """)
        numbers.binds.append(Int64(group.count))
        var sequences: [Int64] = []
        for try await (seq, _) in try await connection.query(numbers, logger: logger).decode((Int64, String).self) {
            sequences.append(seq)
        }
        sequences.sort()
        guard sequences.count == group.count else {
            throw RouteStoreError(store: displayName, message: "asked \(group.count) sequence numbers, got \(sequences.count)")
        }
        let time = Date().timeIntervalSince1970
        var flat: [Double] = []
        var lows: [Int64] = [], highs: [Int64] = [], bases: [Int64] = []
        var last: [String: Int64] = [:]
        var changes: [RouteChange] = []
        for (entry, seq) in zip(group, sequences) {
            let base = last[entry.key] ?? entry.base
            last[entry.key] = seq
            lows.append(Int64(flat.count + 1))
            for c in entry.points { flat.append(c.longitude); flat.append(c.latitude) }
            highs.append(Int64(flat.count))
            bases.append(base)
            changes.append(RouteChange(sequence: seq, key: entry.key, operation: .append, baseVersion: base,
                                       points: entry.points, time: time))
        }
        var insert = PostgresQuery(unsafeSQL: """
            WITH a AS (SELECT * FROM unnest($1::int8[], $2::text[], $3::int8[], $4::int8[], $5::int8[]) AS a(seq, id, base, lo, hi)),
            c AS (INSERT INTO \(schema.changes) (seq, route_id, op, base_version, points, changed_at)
                  SELECT a.seq, a.id, 'append', a.base, ($6::float8[])[a.lo:a.hi], to_timestamp($7) FROM a)
            INSERT INTO \(schema.tails) (route_id, seq, points) SELECT a.id, a.seq, ($6::float8[])[a.lo:a.hi] FROM a
            """)
        insert.binds.append(sequences)
        insert.binds.append(group.map(\.key))
        insert.binds.append(bases)
        insert.binds.append(lows)
        insert.binds.append(highs)
        insert.binds.append(flat)
        insert.binds.append(time)
        try await connection.query(insert, logger: logger)
        var update = PostgresQuery(unsafeSQL: """
            UPDATE \(schema.routes) r SET version = v.seq, fixed_at = to_timestamp($3)
            FROM unnest($1::text[], $2::int8[]) AS v(id, seq) WHERE r.id = v.id
            """)
        update.binds.append(Array(last.keys))
        update.binds.append(Array(last.values))
        update.binds.append(time)
        try await connection.query(update, logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT set_config('routetiles.fold', 'off', true)::text, pg_notify(\(PostgresRouteSchema.literal(PostgresRouteSchema.channel)), \(PostgresRouteSchema.literal(schema.payload)))::text
            """), logger: logger)
        try await noteAppended(group.map { ($0.key, $0.points.count) }, on: connection, due: &due)
        return changes
    }

    /// Counts positions appended (already written in this transaction) in the fold ledger, and adds the routes due
    /// for a fold to `due`. The counts of a route not seen before are learnt from the store first, for all such
    /// routes in one query.
    private func noteAppended(_ appended: [(key: String, count: Int)], on connection: PostgresConnection,
                              due: inout [String]) async throws {
        let unknown = Array(Set(appended.map(\.key)).filter { key in tails.withLock { $0.counts(of: key) == nil } })
        if !unknown.isEmpty {
            var sizes = PostgresQuery(unsafeSQL: """
                SELECT r.id, ST_NPoints(r.geom)::int8,
                    (SELECT COALESCE(SUM(array_length(t.points, 1)), 0) / 2 FROM \(schema.tails) t WHERE t.route_id = r.id)::int8
                FROM \(schema.routes) r WHERE r.id = ANY($1)
                """)
            sizes.binds.append(unknown)
            for try await (key, line, tail) in try await connection.query(sizes, logger: logger).decode((String, Int64, Int64).self) {
                // The tail read includes what this transaction appended, which is counted below.
                let added = appended.filter { $0.key == key }.reduce(0) { $0 + $1.count }
                tails.withLock { $0.learn(key, AppendedTails.Counts(line: Int(line), tail: Int(tail) - added)) }
            }
        }
        for (key, count) in appended where tails.withLock({ $0.append(count, to: key) }) { due.append(key) }
    }

    /// Whether a row of `kind` and geometry `type` (read only when the kind is NULL) is a line an append extends.
    private static func isLine(kind: String?, type: String?) -> Bool {
        kind == "line" || (kind == nil && (type == "LINESTRING" || type == "MULTILINESTRING"))
    }

    /// Appends to a line route stored under `key` at version `base`, its row locked.
    private func append(_ points: [Coordinate], to key: String, base: Int64, on connection: PostgresConnection,
                        due: inout [String]) async throws -> RouteWriteResult {
        // The positions go to the route's tail; the row only takes its new version (the trigger numbers it),
        // which leaves its line where it is (a TOASTed geometry is not copied by an UPDATE of another column).
        let time = Date().timeIntervalSince1970
        var update = PostgresQuery(unsafeSQL: """
            UPDATE \(schema.routes) SET version = version, fixed_at = to_timestamp($2) WHERE id = $1 RETURNING version
            """)
        update.binds.append(key)
        update.binds.append(time)
        var sequence: Int64 = 0
        for try await version in try await connection.query(update, logger: logger).decode(Int64.self) {
            sequence = version
        }
        let flat = points.flatMap { [$0.longitude, $0.latitude] }
        var mark = PostgresQuery(unsafeSQL: """
            WITH marked AS (UPDATE \(schema.changes) SET op = 'append', base_version = $2, points = $3,
                changed_at = to_timestamp($5) WHERE seq = $1)
            INSERT INTO \(schema.tails) (route_id, seq, points) VALUES ($4, $1, $3)
            """)
        mark.binds.append(sequence)
        mark.binds.append(base)
        mark.binds.append(flat)
        mark.binds.append(key)
        mark.binds.append(time)
        try await connection.query(mark, logger: logger)
        try await noteAppended([(key, points.count)], on: connection, due: &due)
        return .committed(changes: [RouteChange(sequence: sequence, key: key, operation: .append,
                                                baseVersion: base, points: points, time: time)], written: [])
    }

    // MARK: Imports from files

    public func importRecords() async throws -> [String: RouteImportRecord] {
        try await call("cannot read the imports") { [self] in
            let rows = try await client.query(
                PostgresQuery(unsafeSQL: "SELECT id, content_hash, version FROM \(schema.imports)"), logger: logger)
            var records: [String: RouteImportRecord] = [:]
            for try await (key, hash, version) in rows.decode((String, String, Int64).self) {
                records[key] = RouteImportRecord(contentHash: hash, version: version)
            }
            return records
        }
    }

    public func importRoutes(_ entries: [RouteImportEntry]) async throws -> RouteImportResult {
        guard !entries.isEmpty else { return RouteImportResult() }
        return try await call("the import was not committed") { [self] in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock(\(schema.lockKeys)), set_config('routetiles.own', 'on', true)"),
                                           logger: logger)
                var select = PostgresQuery(unsafeSQL: "SELECT id, version FROM \(schema.routes) WHERE id = ANY($1) FOR UPDATE")
                select.binds.append(entries.map(\.key))
                var versions: [String: Int64] = [:]
                for try await (key, version) in try await connection.query(select, logger: logger).decode((String, Int64).self) {
                    versions[key] = version
                }
                var result = RouteImportResult()
                var remembered: [(key: String, hash: String, version: Int64)] = []
                var forgotten: [String] = []
                for entry in entries {
                    guard versions[entry.key] == entry.expectedVersion else {
                        result.skipped.append(entry.key)
                        continue
                    }
                    switch entry.action {
                    case let .write(route):
                        var route = route
                        route.id = StoredRouteCodec.id(forKey: entry.key)
                        let (version, created, inserted) = try await upsert(route, key: entry.key, on: connection)
                        versions[entry.key] = version
                        result.changes.append(RouteChange(sequence: version, key: entry.key, operation: inserted ? .insert : .update))
                        result.written.append(StoredRoute(key: entry.key, route: route, version: version, created: created))
                        remembered.append((entry.key, entry.contentHash, version))
                    case .record:
                        if let version = versions[entry.key] { remembered.append((entry.key, entry.contentHash, version)) }
                    case .remove:
                        var due: [String] = []
                        if case let .committed(changes, _) = try await apply(.remove(key: entry.key), on: connection, due: &due) {
                            result.changes += changes
                        }
                        versions[entry.key] = nil
                        forgotten.append(entry.key)
                    }
                }
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
                return result
            }
        }
    }

    /// Writes one route: UPDATE, else INSERT (an INSERT … ON CONFLICT would fire the insert trigger too and
    /// record a change that did not happen). Returns its new version, its creation, and whether it is new.
    private func upsert(_ route: Route, key: String, lastFix: Double? = nil, on connection: PostgresConnection) async throws
        -> (version: Int64, created: Int64, inserted: Bool)
    {
        let properties = StoredRouteCodec.propertiesJSON(route.properties)
        let wkb = ByteBuffer(bytes: WellKnownBinary.encode(route))
        // The new line replaces what was appended to the old one.
        var dropTail = PostgresQuery(unsafeSQL: "DELETE FROM \(schema.tails) WHERE route_id = $1")
        dropTail.binds.append(key)
        try await connection.query(dropTail, logger: logger)
        tails.withLock { $0.forget(key) }
        func bind(_ query: inout PostgresQuery) {
            query.binds.append(key)
            query.binds.append(properties)
            query.binds.append(wkb)
            if let layer = route.layer { query.binds.append(layer) } else { query.binds.appendNull() }
            query.binds.append(StoredRouteCodec.kindName(route.kind))
            query.binds.append(route.geodesic)
            if let lastFix { query.binds.append(lastFix) } else { query.binds.appendNull() }
        }
        var update = PostgresQuery(unsafeSQL: """
            UPDATE \(schema.routes) SET properties = $2::jsonb, geom = ST_GeomFromWKB($3, 4326), layer = $4, kind = $5,
                fixed_at = to_timestamp($7::float8),
                geodesic = $6 WHERE id = $1 RETURNING version, created_seq
            """)
        bind(&update)
        for try await (version, created) in try await connection.query(update, logger: logger).decode((Int64, Int64).self) {
            return (version, created, false)
        }
        var insert = PostgresQuery(unsafeSQL: """
            INSERT INTO \(schema.routes) (id, properties, geom, layer, kind, geodesic, fixed_at)
            VALUES ($1, $2::jsonb, ST_GeomFromWKB($3, 4326), $4, $5, $6, to_timestamp($7::float8)) RETURNING version, created_seq
            """)
        bind(&insert)
        for try await (version, created) in try await connection.query(insert, logger: logger).decode((Int64, Int64).self) {
            return (version, created, true)
        }
        throw RouteStoreError(store: displayName, message: "route \(key) was written but its version did not come back")
    }

    /// One past the largest numeric key stored, when a route has no id (`RouteStoreImport.numbered` also steps past
    /// the ids given).
    private func nextFreeNumber(_ connection: PostgresConnection, after routes: [Route]) async throws -> UInt64 {
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

    // MARK: Wake-ups

    public func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let payload = schema.payload
        let task = Task { [client, logger] in
            var backoff = Duration.milliseconds(100)
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: PostgresRouteSchema.channel) { notifications in
                            // Listening now: whatever was committed before is read by the catch-up this wakes.
                            continuation.yield()
                            backoff = .milliseconds(100)
                            for try await notification in notifications where notification.payload == payload {
                                continuation.yield()
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { break }
                    logger.debug("route store listener: \(Self.describe(error))")
                }
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
            continuation.finish()
        }
        listenerTasks.withLock { $0.append(task) }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    public func close() async {
        for task in listenerTasks.withLock({ $0 }) { task.cancel() }
        running.cancel()
        await running.value
    }

    // MARK: Errors and time limits

    /// Runs `body` within `timeout`; any failure becomes a `RouteStoreError` that says what failed and why.
    ///
    /// The caller gets its answer at the deadline even when `body` does not end there: a query on a connection
    /// whose server went away can ignore cancellation until the socket closes, and a task group would wait for
    /// it. `body` is cancelled and left to end on its own; a write it was making either commits or not, and the
    /// caller, told it failed, acknowledges nothing (the feed brings it if it committed).
    private func call<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = OneShot<Result<T, any Error>>()
        let timeout = self.timeout
        let work = Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.resolve(result)
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            outcome.resolve(.failure(CallTimedOut()))
        }
        let result = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            outcome.resolve(.failure(CancellationError()))
        }
        timer.cancel()
        work.cancel()
        switch result {
        case let .success(value):
            return value
        case let .failure(error as RouteStoreError):
            throw error
        case let .failure(error as RouteChangesPruned):
            throw error
        case .failure(is CallTimedOut):
            throw RouteStoreError(store: displayName, message: "\(what): no answer within \(timeout)")
        case let .failure(error):
            throw RouteStoreError(store: displayName, message: "\(what): \(Self.describe(error))")
        }
    }

    private struct CallTimedOut: Error {}

    /// What PostgreSQL or the connection said, without the query's values.
    static func describe(_ error: any Error) -> String {
        if let transaction = error as? PostgresTransactionError {
            // What went wrong inside the transaction, not the wrapper (whose description dumps every query).
            if let inner = transaction.beginError ?? transaction.closureError ?? transaction.commitError {
                return describe(inner)
            }
            return transaction.rollbackError.map { "rollback: " + describe($0) } ?? "the transaction failed"
        }
        if let error = error as? RouteStoreError { return error.message }
        if let error = error as? RouteChangesPruned { return "\(error)" }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
