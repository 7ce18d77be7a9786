import Foundation
import RouteTilesModel
import Synchronization

/// Routes kept in the process's memory only (`--store memory`): the same feed and the same answers as the durable
/// stores, for demos and tests, but every write is lost when the process ends.
///
/// Writes go through `RouteWriteRule` (`MemoryRouteTransaction`), one transaction at a time under `writers`; the
/// async reads take `writers` too, so that they see a transaction's writes all or none.
public final class MemoryRouteStore: RouteStore {
    /// `memory`.
    public var displayName: String { "memory" }
    /// Always false: the routes end with the process.
    public var isDurable: Bool { false }

    /// The changes kept for readers that fall behind; older ones are dropped, and a reader that needs them loads
    /// everything again.
    public let retainedChanges: Int

    /// A stored route with its positions packed (about half the memory for positions of up to seven decimals).
    struct Row {
        /// The stored route without its positions.
        var header: StoredRoute
        var positions: PackedPositions

        init(_ stored: StoredRoute) {
            header = stored
            header.route.parts = []
            positions = PackedPositions(stored.route.parts)
        }

        var stored: StoredRoute {
            var stored = header
            stored.route.parts = positions.parts
            return stored
        }
    }

    /// The routes, the feed and the import records.
    struct State {
        var rows: [String: Row] = [:]
        var changes: [RouteChange] = []
        var sequence: Int64 = 0
        /// One past the largest number a route was ever stored under: numbers are not given again, even once their
        /// route is removed.
        var nextNumber: UInt64 = 0
        var imports: [String: RouteImportRecord] = [:]
        let retainedChanges: Int

        /// Adds a change to the feed, dropping the older half of it when it holds more than `retainedChanges`.
        mutating func record(_ key: String, _ operation: RouteChange.Operation, base: Int64? = nil,
                             points: [Coordinate] = [], time: Double? = nil, times: [Int64]? = nil) -> RouteChange {
            sequence += 1
            let made = RouteChange(sequence: sequence, key: key, operation: operation, baseVersion: base, points: points,
                                   time: time, times: times)
            changes.append(made)
            if changes.count > retainedChanges { changes.removeFirst(changes.count / 2) }
            return made
        }

        /// Writes `route` whole under `key` (`RouteStoreTransaction.upsert`).
        mutating func upsert(_ route: Route, key: String, lastFix: Double?) -> Upserted {
            if case let .number(n)? = route.id { nextNumber = max(nextNumber, n &+ 1) }
            let existing = rows[key]
            let made = record(key, existing == nil ? .insert : .update)
            let created = existing?.header.created ?? made.sequence
            rows[key] = Row(StoredRoute(key: key, route: route, version: made.sequence, created: created, lastFix: lastFix))
            return Upserted(version: made.sequence, created: created, inserted: existing == nil)
        }
    }

    let state: Mutex<State>
    /// Held over each transaction and each async read.
    private let writers = AsyncLock()

    /// An empty store.
    /// - Parameter retainedChanges: How many of the newest changes the feed keeps; a reader further behind gets
    ///   ``RouteChangesPruned`` and must load everything again.
    public init(retainedChanges: Int = 65_536) {
        self.retainedChanges = max(1, retainedChanges)
        state = Mutex(State(retainedChanges: self.retainedChanges))
    }

    /// A store holding `routes`, written as one `put`: routes without an id are numbered after the largest
    /// numeric id, in order, as `LiveRouteSet` numbers them. This is `RouteWriteRule`'s put on an empty store (whose
    /// next free number is 0), written here so that the store is made synchronously.
    public convenience init(routes: [Route]) {
        self.init()
        state.withLock { state in
            for route in RouteStoreImport.numbered(routes) {
                _ = state.upsert(route, key: StoredRouteCodec.key(for: route.id ?? .number(0)), lastFix: nil)
            }
        }
    }

    /// What the store holds now. Synchronous, so it does not wait for a transaction: its callers
    /// (`LiveRouteSync.inMemory`, tests) do not call it while one of theirs is running.
    package func snapshot() -> RouteStoreSnapshot {
        state.withLock { state in
            let rows = state.rows.values.sorted { ($0.header.created, $0.header.key) < ($1.header.created, $1.header.key) }
            return RouteStoreSnapshot(routes: rows.map(\.stored), badRows: [], sequence: state.sequence)
        }
    }

    /// Every route and the newest sequence.
    public func loadAll() async throws -> RouteStoreSnapshot {
        try await writers.withLock { snapshot() }
    }

    /// The routes stored under `keys`; absent keys are left out.
    public func rows(_ keys: [String]) async throws -> [String: StoredRow] {
        try await writers.withLock {
            state.withLock { state in
                var rows: [String: StoredRow] = [:]
                for key in keys { if let row = state.rows[key] { rows[key] = .route(row.stored) } }
                return rows
            }
        }
    }

    /// The changes after `sequence`, at most `limit`, in order.
    /// - Throws: ``RouteChangesPruned`` when changes after `sequence` are no longer kept.
    public func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange] {
        try await writers.withLock {
            try state.withLock { state in
                if let first = state.changes.first, first.sequence > sequence + 1 {
                    throw RouteChangesPruned(after: sequence, oldest: first.sequence)
                }
                let start = state.changes.firstIndex { $0.sequence > sequence } ?? state.changes.count
                return Array(state.changes[start..<min(state.changes.count, start + limit)])
            }
        }
    }

    /// The newest sequence (0 before the first change).
    public func newestSequence() async throws -> Int64 {
        try await writers.withLock { state.withLock { $0.sequence } }
    }

    /// Applies one write at once and records its changes.
    public func commit(_ write: RouteWrite) async throws -> RouteWriteResult {
        try await commit(batch: [write])[0].get()
    }

    /// Applies the writes as one transaction: readers see all of them or none.
    public func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        try await writers.withLock {
            var transaction = MemoryRouteTransaction(store: self)
            return try await RouteWriteRule.commit(batch: writes, in: &transaction)
        }
    }

    /// The imports from files this store has seen.
    public func importRecords() async throws -> [String: RouteImportRecord] {
        try await writers.withLock { state.withLock { $0.imports } }
    }

    /// Applies the entries whose route is still at its expected version.
    public func importRoutes(_ entries: [RouteImportEntry]) async throws -> RouteImportResult {
        try await writers.withLock {
            var transaction = MemoryRouteTransaction(store: self)
            return try await RouteWriteRule.importRoutes(entries, in: &transaction)
        }
    }

    /// Nobody else writes to memory: the writer applies its own changes.
    public func wakeUps() -> AsyncStream<Void> {
        AsyncStream { _ in }
    }

    /// Does nothing: a memory store holds no connection.
    public func close() async {}
}
