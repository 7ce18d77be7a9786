import Foundation
import PostgresNIO
import RouteTiles

/// The PostgreSQL store's writes: applied by `RouteWriteRule` through `PostgresRouteTransaction`, in a transaction
/// that holds the writers' lock (`writeTransaction`), and the folds of long tails that follow them.
extension PostgresRouteStore {
    package func commit(_ write: RouteWrite) async throws -> RouteWriteResult {
        try await commit(batch: [write])[0].get()
    }

    /// Commits the writes in one transaction, each of several that is not an append in a savepoint of its own.
    /// Appends write one feed row each and nothing else, consecutive ones together (`AppendRowsCopy`); routes whose
    /// tail grew long enough are folded afterwards, in a transaction of their own, off the writer's answer.
    package func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        let (results, due) = try await call("the write was not committed") { [self] in
            try await writeTransaction { connection in
                var transaction = PostgresRouteTransaction(store: self, connection: connection)
                return (try await RouteWriteRule.commit(batch: writes, in: &transaction), transaction.due)
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
                    WITH t AS (SELECT array_agg(u.p ORDER BY c.seq, u.o) FILTER (WHERE u.p IS NOT NULL) AS flat,
                                      array_agg(u.t ORDER BY c.seq, u.o) FILTER (WHERE u.t IS NOT NULL) AS tflat,
                                      MAX(c.seq) AS last, MAX(c.changed_at) AS fix
                               FROM \(schema.changes) c CROSS JOIN LATERAL unnest(c.points, c.times) WITH ORDINALITY AS u(p, t, o)
                               WHERE c.seq = ANY($2) AND c.route_id = $1 AND c.op = 'append'
                                   AND c.seq > (SELECT version FROM \(schema.routes) WHERE id = $1)),
                    f AS (UPDATE \(schema.routes) r SET geom = \(schema.extendFunction)(r.geom, t.flat, t.tflat), version = t.last, fixed_at = t.fix
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
}
