import Logging
import PostgresNIO
import RouteTiles
import Synchronization

/// The PostgreSQL store's `TailLedger`: which feed rows make each route's tail, so that an append reads and writes
/// no row of `routes` and no index by route (one feed row and its primary key, whatever the route's length), and a
/// read of a route finds its tail rows by sequence number.
///
/// The ledger is learnt from the tables once (`learn`), then brought up to date from the feed (`sync`) at the start
/// of every transaction that relies on it, under the writers' lock: no other writer can commit in between, so it
/// is exact there. What the feed does not record, another server's fold, only ever takes rows out of a tail, and
/// every read filters the ledger's rows by the route's row version. `ledgerLock` keeps this process's transactions
/// that use the ledger one at a time; a transaction that fails leaves the ledger to be learnt again.
extension PostgresRouteStore {
    /// What the process knows of every route's tail, and whether it was learnt yet.
    struct LedgerState: Sendable {
        var ledger = TailLedger()
        var learnt = false
        /// Counts the holds abandoned (`holdingLedger`): only a task of the current epoch changes the ledger.
        var epoch = 0
    }

    /// The epoch of the hold of `ledgerLock` this task runs in (`holdingLedger`); -1 outside any.
    @TaskLocal static var holdEpoch = -1

    /// A hold of `ledgerLock`, let go once: by its task, or by the watchdog that abandons it.
    final class LedgerHold: Sendable {
        private let released = Mutex(false)

        /// True the first time only.
        func letGo() -> Bool { released.withLock { released in defer { released = true }; return !released } }
    }

    /// Runs `body` on the ledger when this task's hold is current; a task whose hold was abandoned works on a copy
    /// that goes nowhere.
    func ledger<T: Sendable>(_ body: (inout LedgerState) -> T) -> T {
        let epoch = Self.holdEpoch
        return ledgerState.withLock { state in
            if state.epoch == epoch { return body(&state) }
            var scratch = state
            return body(&scratch)
        }
    }

    /// Runs `body` holding `ledgerLock` with `connection`. A hold still held a little after the time limit of every
    /// call (its caller was answered then) is abandoned: a query on a connection whose server went away mid-answer
    /// was seen to wait for ever, and every other read and write of this process would wait behind it. The ledger
    /// is then learnt again by the next holder, the connection closed, and what the abandoned task does to the
    /// ledger afterwards goes nowhere (`ledger(_:)`).
    nonisolated(nonsending) func holdingLedger<T: Sendable>(_ connection: PostgresConnection, _ body: () async throws -> T) async throws -> T {
        await ledgerLock.acquire()
        let epoch = ledgerState.withLock { $0.epoch }
        let hold = LedgerHold()
        let watchdog = Task { [self] in
            try await Task.sleep(for: timeout + .seconds(1))
            guard hold.letGo() else { return }
            ledgerState.withLock { state in
                state.epoch += 1
                state.learnt = false
            }
            logger.warning("route store \(displayName): a transaction got no answer from the database within \(timeout); left behind, its connection closed")
            ledgerLock.release()
            try? await connection.close()
        }
        defer {
            watchdog.cancel()
            if hold.letGo() { ledgerLock.release() }
        }
        return try await Self.$holdEpoch.withValue(epoch) { try await body() }
    }

    /// Runs `body` in a transaction that holds the writers' lock, marks its writes as RouteTiles' own
    /// (`routetiles.own`), and has the ledger up to date (`ledgerTransaction`).
    func writeTransaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await ledgerTransaction(writing: true, body)
    }

    /// Runs `body` with the ledger up to date, in a transaction: with `writing`, one that holds the writers' lock;
    /// else a read-only one, whose single snapshot a ledger being learnt needs (several statements). The ledger
    /// keeps what the transaction changed when it commits; otherwise (rolled back, or not known whether it
    /// committed) it is learnt again before its next use.
    ///
    /// `ledgerLock` is taken once a connection is held: a wait for a connection while the database is away must
    /// not keep this process's other reads and writes waiting behind it.
    func ledgerTransaction<T: Sendable>(writing: Bool, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await holdingLedger(connection) {
                do {
                    if writing {
                        try await connection.query("BEGIN", logger: logger)
                        // A ledger not learnt yet is learnt before the writers' lock is taken (a scan of the feed
                        // must not hold up every writer of the table), then brought up to date under it.
                        if !ledger({ $0.learnt }) { try await learn(connection) }
                        // COPY names a table without its schema: this store's schema comes first in the search path.
                        try await connection.query(PostgresQuery(unsafeSQL: """
                            SELECT pg_advisory_xact_lock(\(schema.lockKeys)), set_config('routetiles.own', 'on', true),
                                set_config('search_path', \(PostgresRouteSchema.literal(PostgresRouteSchema.quote(schema.schema))) || ', '
                                    || current_setting('search_path'), true)
                            """), logger: logger)
                    } else {
                        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                    }
                    try await bringLedgerUpToDate(connection)
                    let result = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    ledger { $0.ledger.keep() }
                    return result
                } catch {
                    ledger { $0.learnt = false }
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    /// Learns the ledger if need be, and brings it up to date from the feed. Called holding `ledgerLock`; within a
    /// transaction that holds the writers' lock, or in a read-only one of its own (a read).
    func bringLedgerUpToDate(_ connection: PostgresConnection) async throws {
        if !ledger({ $0.learnt }) { try await learn(connection) }
        if try await sync(connection) { return }
        // A prune deleted changes the ledger had not seen: learnt again.
        try await learn(connection)
        _ = try await sync(connection)
    }

    /// The ledger as the tables hold it: every route's row version, line size, kind and last fix, and its tail
    /// rows. The statements need not read one snapshot: the newest change is read first, and `sync` takes in
    /// everything after it again (an append it already holds, an insert or update it reads again, a fold that
    /// moved a row's version only takes rows out of a tail).
    private func learn(_ connection: PostgresConnection) async throws {
        let seen = try await Self.newest(connection, schema: schema, logger: logger)
        var tails = try await rowTails(PostgresQuery(unsafeSQL: "SELECT \(ledgerColumns) FROM \(schema.routes)"), connection)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT c.route_id, c.seq, (COALESCE(cardinality(c.points), 0) / 2)::int8, EXTRACT(EPOCH FROM c.changed_at)::float8,
                c.times[cardinality(c.times)]
            FROM \(schema.changes) c JOIN \(schema.routes) r ON r.id = c.route_id
            WHERE c.op = 'append' AND c.seq > r.version ORDER BY c.seq
            """), logger: logger)
        for try await (key, seq, count, fix, lastM) in rows.decode((String, Int64, Int64, Double?, Double?).self) {
            guard var tail = tails[key] else { continue }
            tail.rows.append(seq)
            tail.positions += Int(count)
            tail.lastFix = fix ?? tail.lastFix
            if let time = lastM.flatMap(TimeValue.seconds) { tail.lastTime = time }
            tails[key] = tail
        }
        ledger { state in
            state.ledger.replace(with: tails, seen: seen)
            state.learnt = true
        }
    }

    /// Takes in the changes committed after the last the ledger saw (other servers' and other programs': this
    /// process's own update it as they are written), in one statement. False when a prune deleted changes it had
    /// not seen (`<table>_changes_pruned`): it must be learnt again.
    private func sync(_ connection: PostgresConnection) async throws -> Bool {
        let seen = ledger { $0.ledger.seen }
        var query = PostgresQuery(unsafeSQL: """
            SELECT p.through, c.seq, c.route_id, c.op, (COALESCE(cardinality(c.points), 0) / 2)::int8,
                EXTRACT(EPOCH FROM c.changed_at)::float8, c.times[cardinality(c.times)]
            FROM (SELECT MAX(through) AS through FROM \(schema.pruned)) p
            LEFT JOIN LATERAL (SELECT * FROM \(schema.changes) WHERE seq > $1 ORDER BY seq) c ON true
            ORDER BY c.seq
            """)
        query.binds.append(seen)
        var changes: [(seq: Int64, key: String, op: String, count: Int64, fix: Double?, lastTime: Int64?)] = []
        for try await (through, seq, key, op, count, fix, lastM)
            in try await connection.query(query, logger: logger).decode((Int64?, Int64?, String?, String?, Int64?, Double?, Double?).self) {
            if (through ?? 0) > seen { return false }
            guard let seq, let key, let op else { continue }
            changes.append((seq, key, op, count ?? 0, fix, lastM.flatMap(TimeValue.seconds)))
        }
        guard !changes.isEmpty else { return true }
        // Routes written whole (inserted, updated) are read as they are now; their older rows in this read, and
        // appends older than their version, then change nothing.
        let rewritten = Set(changes.lazy.filter { $0.op == "insert" || $0.op == "update" }.map(\.key))
        if !rewritten.isEmpty { try await relearn(Array(rewritten), connection) }
        ledger { state in
            for change in changes {
                switch change.op {
                case "append":
                    state.ledger.append(change.key, seq: change.seq, count: Int(change.count), time: change.fix,
                                        lastTime: change.lastTime)
                case "delete" where !rewritten.contains(change.key):
                    state.ledger.remove(change.key)
                default:
                    break
                }
                state.ledger.saw(change.seq)
            }
        }
        return true
    }

    /// What the ledger reads of a route's row: its version, line size, fix time, kind, (only when the kind does
    /// not tell) its geometry's type, and whether it has times (M).
    private var ledgerColumns: String {
        """
        id, version, (pg_column_size(geom) / 16)::int8, EXTRACT(EPOCH FROM fixed_at)::float8, kind,
            CASE WHEN kind IS NULL THEN GeometryType(geom) END, ST_Zmflag(geom) IN (1, 3),
            CASE WHEN ST_Zmflag(geom) IN (1, 3) THEN ST_M(ST_PointN(ST_GeometryN(geom, ST_NumGeometries(geom)), -1)) END
        """
    }

    /// Whether a row of `kind` and geometry `type` (read only when the kind is NULL) is a line an append extends.
    static func isLine(kind: String?, type: String?) -> Bool {
        kind == "line" || (kind == nil && (type == "LINESTRING" || type == "MULTILINESTRING"))
    }

    /// The rows `query` selects (`ledgerColumns`), each as a ledger entry with an empty tail.
    private func rowTails(_ query: PostgresQuery, _ connection: PostgresConnection) async throws -> [String: TailLedger.Tail] {
        var tails: [String: TailLedger.Tail] = [:]
        for try await (key, version, line, fix, kind, type, hasTimes, lastM)
            in try await connection.query(query, logger: logger).decode((String, Int64, Int64, Double?, String?, String?, Bool, Double?).self) {
            var tail = TailLedger.Tail(rowVersion: version, line: Int(line))
            tail.isLine = Self.isLine(kind: kind, type: type)
            tail.hasTimes = hasTimes
            tail.lastTime = lastM.flatMap(TimeValue.seconds)
            tail.lastFix = fix
            tails[key] = tail
        }
        return tails
    }

    /// Sets the ledger's entries for `keys` from their rows as they are now, with empty tails; a key with no row is
    /// taken out.
    func relearn(_ keys: [String], _ connection: PostgresConnection) async throws {
        var query = PostgresQuery(unsafeSQL: "SELECT \(ledgerColumns) FROM \(schema.routes) WHERE id = ANY($1)")
        query.binds.append(keys)
        let found = try await rowTails(query, connection)
        ledger { state in
            for key in keys {
                if let row = found[key] {
                    state.ledger.reset(key, version: row.rowVersion, line: row.line, isLine: row.isLine,
                                       hasTimes: row.hasTimes, lastTime: row.lastTime, lastFix: row.lastFix)
                } else {
                    state.ledger.remove(key)
                }
            }
        }
    }
}
