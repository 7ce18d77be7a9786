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
package final class PostgresRouteStore: RouteStore {
    package let url: PostgresStoreURL
    package let schema: PostgresRouteSchema
    package var displayName: String { "\(url.displayName) (\(schema.payload))" }
    package var isDurable: Bool { true }

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
    package static func open(url text: String, schema: String? = nil, table: String? = nil, create: Bool,
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
    var rowColumns: String {
        """
        r.id, GREATEST(r.version, t.last), r.created_seq, r.properties::text, ST_AsBinary(CASE ST_Zmflag(r.geom) WHEN 2 THEN ST_Force2D(r.geom) WHEN 3 THEN ST_Force3DM(r.geom) ELSE r.geom END), r.layer,
            r.kind, r.geodesic, t.flat, EXTRACT(EPOCH FROM COALESCE(t.fix, r.fixed_at))::float8, t.tflat, r.trimmed
        """
    }

    /// The lateral join of `rowColumns` with the tail rows among the sequence numbers bound at `seqs` ("$1").
    func tailJoin(_ seqs: String) -> String {
        """
        LEFT JOIN LATERAL (SELECT array_agg(u.p ORDER BY c.seq, u.o) FILTER (WHERE u.p IS NOT NULL) AS flat,
                array_agg(u.t ORDER BY c.seq, u.o) FILTER (WHERE u.t IS NOT NULL) AS tflat,
                MAX(c.seq) AS last, MAX(c.changed_at) AS fix
            FROM \(schema.changes) c CROSS JOIN LATERAL unnest(c.points, c.times) WITH ORDINALITY AS u(p, t, o)
            WHERE c.seq = ANY(\(seqs)) AND c.seq > r.version AND c.route_id = r.id AND c.op = 'append') t ON true
        """
    }

    typealias RowTuple = (String, Int64, Int64, String?, ByteBuffer?, String?, String?, Bool, [Double]?, Double?, [Double]?,
                          Int64)

    static func row(_ t: RowTuple) -> StoredRow {
        StoredRouteCodec.route(key: t.0, version: t.1, created: t.2, properties: t.3,
                               wkb: t.4.map { Array($0.readableBytesView) }, layer: t.5, kind: t.6, geodesic: t.7,
                               tail: coordinates(t.8 ?? []), tailTimes: t.10.map(milliseconds), lastFix: t.9,
                               trimmed: Int(clamping: t.11))
    }

    /// Times as the feed keeps them (Unix seconds) in milliseconds; one that is no time makes the list unfit for
    /// its positions, so that the row is read as bad.
    static func milliseconds(_ seconds: [Double]) -> [Int64] {
        var times: [Int64] = []
        times.reserveCapacity(seconds.count)
        for value in seconds {
            guard let time = TimeValue.seconds(value) else { return [] }
            times.append(time)
        }
        return times
    }

    /// Positions from a flat array of longitude, latitude pairs.
    static func coordinates(_ flat: [Double]) -> [Coordinate] {
        guard flat.count % 2 == 0 else { return [] }
        return stride(from: 0, to: flat.count, by: 2).map { Coordinate(longitude: flat[$0], latitude: flat[$0 + 1]) }
    }

    /// A route's tail as `loadAll` reads it: positions flat, its last row, and when that row arrived.
    private struct TailRead {
        var flat: [Double] = []
        var times: [Double] = []
        var last: Int64 = 0
        var fix: Double?
    }

    package func loadAll() async throws -> RouteStoreSnapshot {
        try await call("cannot read the routes") { [self] in
            try await client.withConnection { connection in
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                do {
                    let sequence = try await Self.newest(connection, schema: schema, logger: logger)
                    // Every tail in one pass over the feed, then the routes.
                    var tails: [String: TailRead] = [:]
                    let tailRows = try await connection.query(PostgresQuery(unsafeSQL: """
                        SELECT c.route_id, c.seq, c.points, EXTRACT(EPOCH FROM c.changed_at)::float8, c.times
                        FROM \(schema.changes) c JOIN \(schema.routes) r ON r.id = c.route_id
                        WHERE c.op = 'append' AND c.seq > r.version ORDER BY c.seq
                        """), logger: logger)
                    for try await (key, seq, flat, fix, times) in tailRows.decode((String, Int64, [Double]?, Double?, [Double]?).self) {
                        tails[key, default: TailRead()].flat += flat ?? []
                        tails[key]?.times += times ?? []
                        tails[key]?.last = seq
                        tails[key]?.fix = fix
                    }
                    var snapshot = RouteStoreSnapshot(routes: [], badRows: [], sequence: sequence)
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                        SELECT r.id, r.version, r.created_seq, r.properties::text, ST_AsBinary(CASE ST_Zmflag(r.geom) WHEN 2 THEN ST_Force2D(r.geom) WHEN 3 THEN ST_Force3DM(r.geom) ELSE r.geom END), r.layer,
                            r.kind, r.geodesic, NULL::float8[], EXTRACT(EPOCH FROM r.fixed_at)::float8, NULL::float8[],
                            r.trimmed
                        FROM \(schema.routes) r ORDER BY r.created_seq, r.id
                        """), logger: logger)
                    for try await tuple in rows.decode(RowTuple.self) {
                        var tuple = tuple
                        if let tail = tails[tuple.0] {
                            tuple.1 = max(tuple.1, tail.last)
                            tuple.8 = tail.flat
                            tuple.9 = tail.fix ?? tuple.9
                            tuple.10 = tail.times.isEmpty ? nil : tail.times
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
    package func rows(_ keys: [String]) async throws -> [String: StoredRow] {
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

    package func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange] {
        try await call("cannot read the changes") { [self] in
            // The prune mark comes with the rows, in one snapshot: one row with no change when there is none.
            var query = PostgresQuery(unsafeSQL: """
                SELECT p.through, c.seq, c.route_id, c.op, c.base_version, c.points, EXTRACT(EPOCH FROM c.changed_at)::float8,
                    c.times
                FROM (SELECT MAX(through) AS through FROM \(schema.pruned)) p
                LEFT JOIN LATERAL (SELECT * FROM \(schema.changes) WHERE seq > $1 ORDER BY seq LIMIT $2) c ON true
                ORDER BY c.seq
                """)
            query.binds.append(sequence)
            query.binds.append(Int64(limit))
            let rows = try await client.query(query, logger: logger)
            var changes: [RouteChange] = []
            var through: Int64 = 0
            for try await (pruned, seq, key, op, base, flat, changedAt, times)
                in rows.decode((Int64?, Int64?, String?, String?, Int64?, [Double]?, Double?, [Double]?).self) {
                through = max(through, pruned ?? 0)
                guard let seq, let key, let op else { continue }
                guard let operation = RouteChange.Operation(rawValue: op) else {
                    throw RouteStoreError(store: displayName, message: "change \(seq) has an unknown op '\(op)'")
                }
                let points = Self.coordinates(flat ?? [])
                changes.append(RouteChange(sequence: seq, key: key, operation: operation, baseVersion: base, points: points,
                                           time: operation == .append ? changedAt : nil, times: times.map(Self.milliseconds)))
            }
            // A prune deleted changes after `sequence` (`<table>_changes_pruned`): the reader must load everything
            // again. A hole alone is no sign of it: a writer that rolled back leaves its number unused, and a
            // prune keeps the rows still in a tail.
            if through > sequence { throw RouteChangesPruned(after: sequence, oldest: through + 1) }
            return changes
        }
    }

    package func newestSequence() async throws -> Int64 {
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

    // MARK: Wake-ups

    package func wakeUps() -> AsyncStream<Void> {
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

    package func close() async {
        for task in listenerTasks.withLock({ $0 }) { task.cancel() }
        running.cancel()
        await running.value
    }
}
