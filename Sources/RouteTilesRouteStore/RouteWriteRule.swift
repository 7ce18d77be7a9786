import RouteTilesModel

/// How every route store applies writes and imports, written once for memory, SQLite and PostgreSQL: the one
/// `switch` over `RouteWrite` and the one import loop. A store gives the primitives of its transactions
/// (`RouteStoreTransaction`); what the stores do differently (numbering, savepoints, when appends are written)
/// stays in those.
package enum RouteWriteRule {
    /// Applies the writes of one transaction in order and answers each. An append to no route or to a route of
    /// points is refused without a write; an append the store queues is written before the next write of another
    /// kind, and at the end. A write the store undoes alone (`beginWrite`) gets its error and the others go on; any
    /// other failure throws, and fails the transaction.
    nonisolated(nonsending)
    package static func commit<T: RouteStoreTransaction>(batch writes: [RouteWrite], in tx: inout T) async throws
        -> [Result<RouteWriteResult, any Error>]
    {
        try await tx.prepare(forBatch: writes)
        var results: [Result<RouteWriteResult, any Error>] = []
        results.reserveCapacity(writes.count)
        var queued: [Int] = []  // the results that wait for `flushAppends`; stays empty (unallocated) for most stores
        for write in writes {
            let isAppend = try await isAppend(write, in: &tx)
            if !isAppend { try await flush(&queued, into: &results, in: &tx) }
            let mark = try await tx.beginWrite(isAppend ? .append : .whole, inBatchOf: writes.count)
            do {
                let result = try await apply(write, in: &tx)
                if let mark { try await tx.endWrite(mark) }
                if let result {
                    results.append(.success(result))
                } else {
                    queued.append(results.count)
                    results.append(unanswered)
                }
            } catch {
                guard let mark else { throw error }
                results.append(.failure(try await tx.undoWrite(mark, after: error)))
            }
        }
        try await flush(&queued, into: &results, in: &tx)
        return results
    }

    /// Whether `write` is an append (one feed row, which a store may queue): an append, or fixes with times that all
    /// come after the route's last. A late fix rewrites the route, and is a whole write.
    nonisolated(nonsending)
    private static func isAppend<T: RouteStoreTransaction>(_ write: RouteWrite, in tx: inout T) async throws -> Bool {
        switch write {
        case .append: return true
        case let .appendTimed(key, points, times):
            guard case let .line(hasTimes: true, lastTime) = try await tx.appendTarget(key) else { return true }
            return TimedFixes(points: points, times: times).plan(after: lastTime) != .merge
        default: return false
        }
    }

    /// The result of a queued append until `flush` gives it its change (allocates nothing).
    private static let unanswered: Result<RouteWriteResult, any Error> = .success(.committed(changes: [], written: []))

    /// One write; nil for an append the store queued.
    nonisolated(nonsending)
    private static func apply<T: RouteStoreTransaction>(_ write: RouteWrite, in tx: inout T) async throws
        -> RouteWriteResult?
    {
        switch write {
        case let .put(routes):
            return try await put(routes, in: &tx)
        case let .replace(key, route):
            var route = route
            route.id = StoredRouteCodec.id(forKey: key)
            return try await put([route], in: &tx)
        case let .remove(key):
            guard let sequence = try await tx.delete(key) else { return .notFound(key: key) }
            return .committed(changes: [RouteChange(sequence: sequence, key: key, operation: .delete)], written: [])
        case .trim(let key, _), .trimOlder(let key, _):
            guard case let .route(held)? = try await tx.read(key) else { return .notFound(key: key) }
            let trimmed: Route? = switch write {
            case let .trimOlder(_, cutoff): TrackRetention.trimmed(held.route, before: cutoff)
            case let .trim(_, keep): TrackRetention.trimmed(held.route, keeping: keep)
            default: nil
            }
            guard let route = trimmed else { return .committed(changes: [], written: []) }
            let upserted = try await tx.upsert(route, key: key, lastFix: held.lastFix)
            return .committed(changes: [RouteChange(sequence: upserted.version, key: key, operation: .update)],
                              written: [StoredRoute(key: key, route: route, version: upserted.version,
                                                    created: upserted.created, lastFix: held.lastFix)])
        case let .append(key, points):
            switch try await tx.appendTarget(key) {
            case .missing: return .notFound(key: key)
            case .notALine: return .notALine(key: key)
            // Positions without times cannot extend a route that has a time on every position.
            case .line(hasTimes: true, _): return .timesDiffer(key: key, routeHasTimes: true)
            case .line: return try await tx.append(points, times: nil, to: key).map { .committed(changes: [$0], written: []) }
            }
        case let .appendTimed(key, points, times):
            switch try await tx.appendTarget(key) {
            case .missing: return .notFound(key: key)
            case .notALine: return .notALine(key: key)
            case .line(hasTimes: false, _): return .timesDiffer(key: key, routeHasTimes: false)
            case let .line(hasTimes: true, lastTime):
                let fixes = TimedFixes(points: points, times: times)
                switch fixes.plan(after: lastTime) {
                case let .append(fresh, _):
                    // Every fix a duplicate of the last: nothing to write.
                    guard !fresh.points.isEmpty else { return .committed(changes: [], written: []) }
                    return try await tx.append(fresh.points, times: fresh.times, to: key)
                        .map { .committed(changes: [$0], written: []) }
                case .merge:
                    return try await merge(fixes, into: key, in: &tx)
                }
            }
        }
    }

    /// Fixes of which one is late (before the route's last): the route is read, the fixes merged into its
    /// timeline, and it is written whole, its last fix kept.
    nonisolated(nonsending)
    private static func merge<T: RouteStoreTransaction>(_ fixes: TimedFixes, into key: String, in tx: inout T) async throws
        -> RouteWriteResult
    {
        guard case let .route(held)? = try await tx.read(key) else { return .notFound(key: key) }
        guard held.route.times != nil else { return .timesDiffer(key: key, routeHasTimes: false) }
        guard let route = fixes.merged(into: held.route).route else { return .committed(changes: [], written: []) }
        let upserted = try await tx.upsert(route, key: key, lastFix: held.lastFix)
        return .committed(changes: [RouteChange(sequence: upserted.version, key: key, operation: .update)],
                          written: [StoredRoute(key: key, route: route, version: upserted.version,
                                                created: upserted.created, lastFix: held.lastFix)])
    }

    /// Writes routes whole: those without an id get the store's next free numbers.
    nonisolated(nonsending)
    private static func put<T: RouteStoreTransaction>(_ routes: [Route], in tx: inout T) async throws -> RouteWriteResult {
        let first = try await tx.nextFreeNumber(after: routes)
        var changes: [RouteChange] = []
        var written: [StoredRoute] = []
        changes.reserveCapacity(routes.count)
        written.reserveCapacity(routes.count)
        for route in RouteStoreImport.numbered(routes, from: first) {
            let key = StoredRouteCodec.key(for: route.id ?? .number(0))
            let stored = try await upsert(route, key: key, in: &tx, changes: &changes)
            written.append(stored)
        }
        return .committed(changes: changes, written: written)
    }

    /// Writes one route whole, as a put does; its change goes to `changes`.
    nonisolated(nonsending)
    private static func upsert<T: RouteStoreTransaction>(_ route: Route, key: String, in tx: inout T,
                                                         changes: inout [RouteChange]) async throws -> StoredRoute {
        let upserted = try await tx.upsert(route, key: key, lastFix: nil)
        changes.append(RouteChange(sequence: upserted.version, key: key, operation: upserted.inserted ? .insert : .update))
        return StoredRoute(key: key, route: route, version: upserted.version, created: upserted.created)
    }

    /// Writes the queued appends and puts their changes in their results.
    nonisolated(nonsending)
    private static func flush<T: RouteStoreTransaction>(_ queued: inout [Int],
                                                        into results: inout [Result<RouteWriteResult, any Error>],
                                                        in tx: inout T) async throws {
        guard !queued.isEmpty else { return }
        let changes = try await tx.flushAppends()
        guard changes.count == queued.count else { throw UnwrittenAppend() }
        for (index, change) in zip(queued, changes) { results[index] = .success(.committed(changes: [change], written: [])) }
        queued.removeAll(keepingCapacity: true)
    }

    /// Applies an import from files: an entry applies only while its route is at the entry's expected version (no
    /// route for nil), else it is skipped. A route written is recorded with its new version, one whose file is
    /// unchanged is recorded at its version, and a route removed is forgotten.
    nonisolated(nonsending)
    package static func importRoutes<T: RouteStoreTransaction>(_ entries: [RouteImportEntry], in tx: inout T)
        async throws -> RouteImportResult
    {
        var result = RouteImportResult()
        for entry in entries {
            let version = try await tx.version(of: entry.key)
            guard version == entry.expectedVersion else {
                result.skipped.append(entry.key)
                continue
            }
            switch entry.action {
            case let .write(route):
                var route = route
                route.id = StoredRouteCodec.id(forKey: entry.key)
                let stored = try await upsert(route, key: entry.key, in: &tx, changes: &result.changes)
                result.written.append(stored)
                try await tx.recordImport(entry.key, contentHash: entry.contentHash, version: stored.version)
            case .record:
                if let version { try await tx.recordImport(entry.key, contentHash: entry.contentHash, version: version) }
            case .remove:
                if let sequence = try await tx.delete(entry.key) {
                    result.changes.append(RouteChange(sequence: sequence, key: entry.key, operation: .delete))
                }
                try await tx.forgetImport(entry.key)
            }
        }
        try await tx.finishImport()
        return result
    }
}

extension RouteWrite {
    /// Whether the write is an append of no point (every fix dropped by the glitch filters).
    package var appendsNoPoint: Bool {
        switch self {
        case let .append(_, points), let .appendTimed(_, points, _): return points.isEmpty
        default: return false
        }
    }

    /// The key of an append, nil for any other write: appends are the writes a store may write together.
    package var appendKey: String? {
        switch self {
        case let .append(key, _), let .appendTimed(key, _, _): return key
        default: return nil
        }
    }
}

/// A store wrote fewer queued appends than it was given: a bug, answered as the appends' failure.
struct UnwrittenAppend: Error, CustomStringConvertible {
    var description: String { "an append got no answer from its store" }
}
