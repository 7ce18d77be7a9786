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
/// An append is RouteTiles' own feed row and nothing else (schema 5): a route's tail is its append rows newer than
/// its row's version, found by sequence number through the store's `TailLedger` (`PostgresRouteStore+Ledger`), and
/// folded into `geom` once long enough.
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
    let logger: Logger
    let timeout: Duration
    private let listenerTasks = Mutex<[Task<Void, Never>]>([])
    /// Which feed rows make each route's tail (`PostgresRouteStore+Ledger`); through `ledger(_:)`.
    let ledgerState = Mutex(LedgerState())
    /// Held over each transaction that relies on the ledger.
    let ledgerLock = AsyncLock()

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
            let rows = try await client.query(PostgresQuery(unsafeSQL: """
                SELECT to_regclass(\(PostgresRouteSchema.literal(schema.routes))) IS NOT NULL,
                    obj_description(to_regclass(\(PostgresRouteSchema.literal(schema.changes))), 'pg_class')
                """), logger: logger)
            for try await (exists, comment) in rows.decode((Bool, String?).self) { return (exists, comment) }
            return (false, nil)
        }
        guard found.0 else {
            throw RouteStoreError(store: displayName, message: "no table \(schema.routes); `routetiles load` or `serve --store` creates it")
        }
        // An older layout reads differently (schema 4 kept appended positions in a table of its own).
        guard found.1 == schema.versionComment else {
            throw RouteStoreError(store: displayName, message: "the routes table is of \(found.1 ?? "an unknown schema"), not schema \(PostgresRouteSchema.version); its owner brings it up to date with `routetiles load` or `serve --store`")
        }
    }

    // MARK: Reading

    /// The columns of a route with its tail: the feed's append rows among `$seqs` (the ledger's, for the routes
    /// read) newer than the row's version, positions flat in append order. Its version is the greater of its row's
    /// and its tail's last row's, its last fix the tail's when it has one. From `routes AS r`, joined with the
    /// lateral `t` that `tailJoin` makes.
    private var rowColumns: String {
        """
        r.id, GREATEST(r.version, t.last), r.created_seq, r.properties::text, ST_AsBinary(ST_Force2D(r.geom)), r.layer,
            r.kind, r.geodesic, t.flat, EXTRACT(EPOCH FROM COALESCE(t.fix, r.fixed_at))::float8
        """
    }

    /// The lateral join of `rowColumns` with the tail rows among the sequence numbers bound at `seqs` ("$1").
    private func tailJoin(_ seqs: String) -> String {
        """
        LEFT JOIN LATERAL (SELECT array_agg(u.p ORDER BY c.seq, u.o) AS flat, MAX(c.seq) AS last, MAX(c.changed_at) AS fix
            FROM \(schema.changes) c CROSS JOIN LATERAL unnest(c.points) WITH ORDINALITY AS u(p, o)
            WHERE c.seq = ANY(\(seqs)) AND c.seq > r.version AND c.route_id = r.id AND c.op = 'append') t ON true
        """
    }

    private typealias RowTuple = (String, Int64, Int64, String?, ByteBuffer?, String?, String?, Bool, [Double]?, Double?)

    private static func row(_ t: RowTuple) -> StoredRow {
        StoredRouteCodec.route(key: t.0, version: t.1, created: t.2, properties: t.3,
                               wkb: t.4.map { Array($0.readableBytesView) }, layer: t.5, kind: t.6, geodesic: t.7,
                               tail: coordinates(t.8 ?? []), lastFix: t.9)
    }

    /// Positions from a flat array of longitude, latitude pairs.
    static func coordinates(_ flat: [Double]) -> [Coordinate] {
        guard flat.count % 2 == 0 else { return [] }
        return stride(from: 0, to: flat.count, by: 2).map { Coordinate(longitude: flat[$0], latitude: flat[$0 + 1]) }
    }

    /// A route's tail as `loadAll` reads it: positions flat, its last row, and when that row arrived.
    private struct TailRead {
        var flat: [Double] = []
        var last: Int64 = 0
        var fix: Double?
    }

    public func loadAll() async throws -> RouteStoreSnapshot {
        try await call("cannot read the routes") { [self] in
            try await client.withConnection { connection in
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                do {
                    let sequence = try await Self.newest(connection, schema: schema, logger: logger)
                    // Every tail in one pass over the feed, then the routes.
                    var tails: [String: TailRead] = [:]
                    let tailRows = try await connection.query(PostgresQuery(unsafeSQL: """
                        SELECT c.route_id, c.seq, c.points, EXTRACT(EPOCH FROM c.changed_at)::float8
                        FROM \(schema.changes) c JOIN \(schema.routes) r ON r.id = c.route_id
                        WHERE c.op = 'append' AND c.seq > r.version ORDER BY c.seq
                        """), logger: logger)
                    for try await (key, seq, flat, fix) in tailRows.decode((String, Int64, [Double]?, Double?).self) {
                        tails[key, default: TailRead()].flat += flat ?? []
                        tails[key]?.last = seq
                        tails[key]?.fix = fix
                    }
                    var snapshot = RouteStoreSnapshot(routes: [], badRows: [], sequence: sequence)
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                        SELECT r.id, r.version, r.created_seq, r.properties::text, ST_AsBinary(ST_Force2D(r.geom)), r.layer,
                            r.kind, r.geodesic, NULL::float8[], EXTRACT(EPOCH FROM r.fixed_at)::float8
                        FROM \(schema.routes) r ORDER BY r.created_seq, r.id
                        """), logger: logger)
                    for try await tuple in rows.decode(RowTuple.self) {
                        var tuple = tuple
                        if let tail = tails[tuple.0] {
                            tuple.1 = max(tuple.1, tail.last)
                            tuple.8 = tail.flat
                            tuple.9 = tail.fix ?? tuple.9
                        }
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

    /// The rows of `keys` with their tails, as the ledger (brought up to date first) lists them: a route appended
    /// to after that reads as it was before, with its version then.
    public func rows(_ keys: [String]) async throws -> [String: StoredRow] {
        guard !keys.isEmpty else { return [:] }
        return try await call("cannot read routes") { [self] in
            let seqs = try await ledgerTransaction(writing: false) { _ in
                ledger { state in keys.flatMap { state.ledger.tail(of: $0)?.rows ?? [] } }
            }
            var query = PostgresQuery(unsafeSQL: "SELECT \(rowColumns) FROM \(schema.routes) r \(tailJoin("$2")) WHERE r.id = ANY($1)")
            query.binds.append(keys)
            query.binds.append(seqs)
            let rows = try await client.query(query, logger: logger)
            var found: [String: StoredRow] = [:]
            for try await tuple in rows.decode(RowTuple.self) { found[tuple.0] = Self.row(tuple) }
            return found
        }
    }

    public func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange] {
        try await call("cannot read the changes") { [self] in
            // The prune mark comes with the rows, in one snapshot: one row with no change when there is none.
            var query = PostgresQuery(unsafeSQL: """
                SELECT p.through, c.seq, c.route_id, c.op, c.base_version, c.points, EXTRACT(EPOCH FROM c.changed_at)::float8
                FROM (SELECT MAX(through) AS through FROM \(schema.pruned)) p
                LEFT JOIN LATERAL (SELECT * FROM \(schema.changes) WHERE seq > $1 ORDER BY seq LIMIT $2) c ON true
                ORDER BY c.seq
                """)
            query.binds.append(sequence)
            query.binds.append(Int64(limit))
            let rows = try await client.query(query, logger: logger)
            var changes: [RouteChange] = []
            var through: Int64 = 0
            for try await (pruned, seq, key, op, base, flat, changedAt)
                in rows.decode((Int64?, Int64?, String?, String?, Int64?, [Double]?, Double?).self) {
                through = max(through, pruned ?? 0)
                guard let seq, let key, let op else { continue }
                guard let operation = RouteChange.Operation(rawValue: op) else {
                    throw RouteStoreError(store: displayName, message: "change \(seq) has an unknown op '\(op)'")
                }
                let points = Self.coordinates(flat ?? [])
                changes.append(RouteChange(sequence: seq, key: key, operation: operation, baseVersion: base, points: points,
                                           time: operation == .append ? changedAt : nil))
            }
            // A prune deleted changes after `sequence` (`<table>_changes_pruned`): the reader must load everything
            // again. A hole alone is no sign of it: a writer that rolled back leaves its number unused, and a
            // prune keeps the rows still in a tail.
            if through > sequence { throw RouteChangesPruned(after: sequence, oldest: through + 1) }
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

    /// The newest change: of the feed, or of what a prune deleted when that is newer (a prune may take the newest
    /// rows, and the newest sequence must not go back).
    static func newest(_ connection: PostgresConnection, schema: PostgresRouteSchema, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT GREATEST((SELECT COALESCE(MAX(seq), 0) FROM \(schema.changes)),
                            (SELECT COALESCE(MAX(through), 0) FROM \(schema.pruned)))::int8
            """), logger: logger)
        for try await value in rows.decode(Int64.self) { return value }
        return 0
    }

    // MARK: Writing

    public func commit(_ write: RouteWrite) async throws -> RouteWriteResult {
        try await commit(batch: [write])[0].get()
    }

    /// Commits the writes in one transaction, each of several that is not an append in a savepoint of its own.
    /// Appends write one feed row each and nothing else (`AppendRowsCopy`); routes whose tail grew long enough
    /// are folded afterwards, in a transaction of their own, off the writer's answer.
    public func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        let (results, due) = try await call("the write was not committed") { [self] in
            try await writeTransaction { connection in
                var due: [String] = []
                var results: [Result<RouteWriteResult, any Error>?] = []
                results.reserveCapacity(writes.count)
                // Routes the ledger does not know are read from their rows first (a route the feed's pruned rows
                // created): an append to a route that is not there is refused without a write.
                let unknown = Set(writes.compactMap { write -> String? in
                    guard case let .append(key, _) = write else { return nil }
                    return ledger { $0.ledger.tail(of: key) == nil } ? key : nil
                })
                if !unknown.isEmpty { try await relearn(Array(unknown), connection) }
                // Consecutive appends are written together (`appendAll`); any other write first writes them.
                var group: [(index: Int, key: String, points: [Coordinate])] = []
                func flush() async throws {
                    guard !group.isEmpty else { return }
                    let made = try await appendAll(group.map { ($0.key, $0.points) }, on: connection, due: &due)
                    for (entry, change) in zip(group, made) {
                        results[entry.index] = .success(.committed(changes: [change], written: []))
                    }
                    group = []
                }
                for write in writes {
                    if case let .append(key, points) = write {
                        results.append(nil)
                        let found = ledger { $0.ledger.tail(of: key).map(\.isLine) }
                        switch found {
                        case nil: results[results.count - 1] = .success(.notFound(key: key))
                        case false?: results[results.count - 1] = .success(.notALine(key: key))
                        case true?: group.append((results.count - 1, key, points))
                        }
                        continue
                    }
                    try await flush()
                    guard writes.count > 1 else {
                        results.append(.success(try await apply(write, on: connection, due: &due)))
                        continue
                    }
                    let mark = ledger { $0.ledger.mark }
                    try await connection.query("SAVEPOINT routetiles_write", logger: logger)
                    do {
                        let result = try await apply(write, on: connection, due: &due)
                        try await connection.query("RELEASE SAVEPOINT routetiles_write", logger: logger)
                        results.append(.success(result))
                    } catch {
                        try await connection.query("ROLLBACK TO SAVEPOINT routetiles_write", logger: logger)
                        try await connection.query("RELEASE SAVEPOINT routetiles_write", logger: logger)
                        ledger { $0.ledger.rollBack(to: mark) }
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
    /// so the trigger records nothing (`routetiles.fold`), and each row takes the version of its tail's last row.
    private func fold(_ keys: [String]) async throws {
        try await writeTransaction { connection in
            try await connection.query("SELECT set_config('routetiles.fold', 'on', true)", logger: logger)
            for key in keys {
                guard let tail = ledger({ $0.ledger.tail(of: key) }), !tail.rows.isEmpty else { continue }
                // The rows newer than the row's version (another server may have folded some): written into the
                // line, and the row takes the last one's version. The version after comes back either way.
                var update = PostgresQuery(unsafeSQL: """
                    WITH t AS (SELECT array_agg(u.p ORDER BY c.seq, u.o) AS flat, MAX(c.seq) AS last, MAX(c.changed_at) AS fix
                               FROM \(schema.changes) c CROSS JOIN LATERAL unnest(c.points) WITH ORDINALITY AS u(p, o)
                               WHERE c.seq = ANY($2) AND c.route_id = $1 AND c.op = 'append'
                                   AND c.seq > (SELECT version FROM \(schema.routes) WHERE id = $1)),
                    f AS (UPDATE \(schema.routes) r SET geom = \(schema.extendFunction)(r.geom, t.flat), version = t.last, fixed_at = t.fix
                          FROM t WHERE r.id = $1 AND t.last IS NOT NULL RETURNING t.last)
                    SELECT COALESCE((SELECT last FROM f), (SELECT version FROM \(schema.routes) WHERE id = $1))
                    """)
                update.binds.append(key)
                update.binds.append(tail.rows)
                for try await version in try await connection.query(update, logger: logger).decode(Int64?.self) {
                    if let version { ledger { $0.ledger.folded(key, through: version) } }
                }
            }
        }
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
            ledger { $0.ledger.remove(key) }
            return .committed(changes: [RouteChange(sequence: sequence, key: key, operation: .delete)], written: [])
        case let .trim(key, keep):
            var select = PostgresQuery(unsafeSQL: "SELECT \(rowColumns) FROM \(schema.routes) r \(tailJoin("$2")) WHERE r.id = $1")
            select.binds.append(key)
            select.binds.append(ledger { $0.ledger.tail(of: key)?.rows ?? [] })
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
            switch ledger({ $0.ledger.tail(of: key)?.isLine }) {
            case nil: return .notFound(key: key)
            case false?: return .notALine(key: key)
            case true?: return .committed(changes: try await appendAll([(key, points)], on: connection, due: &due), written: [])
            }
        }
    }

    /// Appends to line routes the ledger knows, in order: their sequence numbers (taken under the writers' lock,
    /// so consecutive) and one feed row each, written with COPY; nothing else is written, not even the routes'
    /// rows (a route's version is its tail's last row's). One notification wakes the other servers. A route
    /// appended to twice chains its changes. Routes whose tail is now long enough to fold are added to `due`.
    private func appendAll(_ group: [(key: String, points: [Coordinate])], on connection: PostgresConnection,
                           due: inout [String]) async throws -> [RouteChange] {
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
            throw RouteStoreError(store: displayName, message: "asked \(group.count) sequence numbers, got \(sequences.count)")
        }
        let time = Date().timeIntervalSince1970
        let changedAt = AppendRowsCopy.timestamp(time)
        var rows = AppendRowsCopy(capacity: group.count * 64)
        var changes: [RouteChange] = []
        changes.reserveCapacity(group.count)
        var dueKeys: [String] = []  // `due` is inout: a closure may not capture it
        ledger { state in
            for (entry, seq) in zip(group, sequences) {
                let base = state.ledger.tail(of: entry.key)?.version ?? 0
                rows.add(seq: seq, key: entry.key, base: base, points: entry.points, changedAt: changedAt)
                changes.append(RouteChange(sequence: seq, key: entry.key, operation: .append, baseVersion: base,
                                           points: entry.points, time: time))
                if state.ledger.append(entry.key, seq: seq, count: entry.points.count, time: time) { dueKeys.append(entry.key) }
            }
        }
        let data = rows.buffer
        try await connection.copyFrom(table: schema.table + "_changes", columns: AppendRowsCopy.columns, logger: logger) { writer in
            try await writer.write(data)
        }
        due += dueKeys
        return changes
    }

    /// Whether a row of `kind` and geometry `type` (read only when the kind is NULL) is a line an append extends.
    static func isLine(kind: String?, type: String?) -> Bool {
        kind == "line" || (kind == nil && (type == "LINESTRING" || type == "MULTILINESTRING"))
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
            try await writeTransaction { connection in
                // The routes' versions, their tails' included, as the ledger knows them under the writers' lock.
                var versions: [String: Int64] = ledger { state in
                    var versions: [String: Int64] = [:]
                    for entry in entries { if let tail = state.ledger.tail(of: entry.key) { versions[entry.key] = tail.version } }
                    return versions
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
        // The new line replaces what was appended to the old one: its version leaves the old tail's rows behind.
        func written(_ version: Int64) {
            ledger { state in
                state.ledger.reset(key, version: version, line: route.pointCount, isLine: route.kind == .line, lastFix: lastFix)
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
        }
        var update = PostgresQuery(unsafeSQL: """
            UPDATE \(schema.routes) SET properties = $2::jsonb, geom = ST_GeomFromWKB($3, 4326), layer = $4, kind = $5,
                fixed_at = to_timestamp($7::float8),
                geodesic = $6 WHERE id = $1 RETURNING version, created_seq
            """)
        bind(&update)
        for try await (version, created) in try await connection.query(update, logger: logger).decode((Int64, Int64).self) {
            written(version)
            return (version, created, false)
        }
        var insert = PostgresQuery(unsafeSQL: """
            INSERT INTO \(schema.routes) (id, properties, geom, layer, kind, geodesic, fixed_at)
            VALUES ($1, $2::jsonb, ST_GeomFromWKB($3, 4326), $4, $5, $6, to_timestamp($7::float8)) RETURNING version, created_seq
            """)
        bind(&insert)
        for try await (version, created) in try await connection.query(insert, logger: logger).decode((Int64, Int64).self) {
            written(version)
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
