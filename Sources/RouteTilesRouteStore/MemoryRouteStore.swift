import Foundation
import RouteTilesModel
import Synchronization

/// Routes kept in the process's memory only (`--store memory`): the same feed and the same answers as the durable
/// stores, for demos and tests, but every write is lost when the process ends.
public final class MemoryRouteStore: RouteStore {
    /// `memory`.
    public var displayName: String { "memory" }
    /// Always false: the routes end with the process.
    public var isDurable: Bool { false }

    /// The changes kept for readers that fall behind; older ones are dropped, and a reader that needs them loads
    /// everything again.
    public let retainedChanges: Int

    /// A stored route with its positions packed (about half the memory for positions of up to seven decimals).
    private struct Row {
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

    private struct State {
        var rows: [String: Row] = [:]
        var changes: [RouteChange] = []
        var sequence: Int64 = 0
        var nextNumber: UInt64 = 0
        var imports: [String: RouteImportRecord] = [:]
    }

    private let state = Mutex(State())

    /// An empty store.
    /// - Parameter retainedChanges: How many of the newest changes the feed keeps; a reader further behind gets
    ///   ``RouteChangesPruned`` and must load everything again.
    public init(retainedChanges: Int = 65_536) {
        self.retainedChanges = max(1, retainedChanges)
    }

    /// A store holding `routes`, written as one `put`: routes without an id are numbered after the largest
    /// numeric id, in order, as `LiveRouteSet` numbers them.
    public convenience init(routes: [Route]) {
        self.init()
        state.withLock { state in _ = apply(.put(routes), to: &state) }
    }

    /// What the store holds now.
    package func snapshot() -> RouteStoreSnapshot {
        state.withLock { state in
            let rows = state.rows.values.sorted { ($0.header.created, $0.header.key) < ($1.header.created, $1.header.key) }
            return RouteStoreSnapshot(routes: rows.map(\.stored), badRows: [], sequence: state.sequence)
        }
    }

    /// Every route and the newest sequence.
    public func loadAll() async throws -> RouteStoreSnapshot { snapshot() }

    /// The routes stored under `keys`; absent keys are left out.
    public func rows(_ keys: [String]) async throws -> [String: StoredRow] {
        state.withLock { state in
            var rows: [String: StoredRow] = [:]
            for key in keys { if let row = state.rows[key] { rows[key] = .route(row.stored) } }
            return rows
        }
    }

    /// The changes after `sequence`, at most `limit`, in order.
    /// - Throws: ``RouteChangesPruned`` when changes after `sequence` are no longer kept.
    public func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange] {
        try state.withLock { state in
            if let first = state.changes.first, first.sequence > sequence + 1 {
                throw RouteChangesPruned(after: sequence, oldest: first.sequence)
            }
            let start = state.changes.firstIndex { $0.sequence > sequence } ?? state.changes.count
            return Array(state.changes[start..<min(state.changes.count, start + limit)])
        }
    }

    /// The newest sequence (0 before the first change).
    public func newestSequence() async throws -> Int64 { state.withLock { $0.sequence } }

    /// Applies one write at once and records its changes.
    public func commit(_ write: RouteWrite) async throws -> RouteWriteResult {
        state.withLock { state in apply(write, to: &state) }
    }

    /// Applies the writes at once, under one lock: readers see all of them or none.
    public func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        state.withLock { state in writes.map { .success(apply($0, to: &state)) } }
    }

    private func apply(_ write: RouteWrite, to state: inout State) -> RouteWriteResult {
        func change(_ key: String, _ operation: RouteChange.Operation, base: Int64? = nil,
                    points: [Coordinate] = []) -> RouteChange {
            state.sequence += 1
            let made = RouteChange(sequence: state.sequence, key: key, operation: operation, baseVersion: base,
                                   points: points)
            state.changes.append(made)
            if state.changes.count > retainedChanges { state.changes.removeFirst(state.changes.count / 2) }
            return made
        }
        switch write {
        case let .put(routes):
            var changes: [RouteChange] = []
            var written: [StoredRoute] = []
            for route in RouteStoreImport.numbered(routes, from: state.nextNumber) {
                if case let .number(n)? = route.id { state.nextNumber = max(state.nextNumber, n &+ 1) }
                let key = StoredRouteCodec.key(for: route.id ?? .number(0))
                let existing = state.rows[key]
                let made = change(key, existing == nil ? .insert : .update)
                let stored = StoredRoute(key: key, route: route, version: made.sequence,
                                         created: existing?.header.created ?? made.sequence)
                state.rows[key] = Row(stored)
                changes.append(made)
                written.append(stored)
            }
            return .committed(changes: changes, written: written)
        case let .replace(key, route):
            var route = route
            route.id = StoredRouteCodec.id(forKey: key)
            return apply(.put([route]), to: &state)
        case let .remove(key):
            guard state.rows.removeValue(forKey: key) != nil else { return .notFound(key: key) }
            return .committed(changes: [change(key, .delete)], written: [])
        case let .trim(key, keep):
            guard let stored = state.rows[key]?.stored else { return .notFound(key: key) }
            guard let route = TrackRetention.trimmed(stored.route, keeping: keep) else {
                return .committed(changes: [], written: [])
            }
            let made = change(key, .update)
            let written = StoredRoute(key: key, route: route, version: made.sequence, created: stored.created,
                                      lastFix: stored.lastFix)
            state.rows[key] = Row(written)
            return .committed(changes: [made], written: [written])
        case let .append(key, points):
            // Out of the table while it changes, so that its points are extended in place, not copied.
            guard var row = state.rows.removeValue(forKey: key) else { return .notFound(key: key) }
            defer { state.rows[key] = row }
            guard row.header.route.kind == .line, row.positions.partCount > 0 else { return .notALine(key: key) }
            var made = change(key, .append, base: row.header.version, points: points)
            made.time = Date().timeIntervalSince1970
            state.changes[state.changes.count - 1].time = made.time
            row.positions.appendToLastPart(points)
            row.header.version = made.sequence
            row.header.lastFix = made.time
            return .committed(changes: [made], written: [])
        }
    }

    /// The imports from files this store has seen.
    public func importRecords() async throws -> [String: RouteImportRecord] { state.withLock { $0.imports } }

    /// Applies the entries whose route is still at its expected version.
    public func importRoutes(_ entries: [RouteImportEntry]) async throws -> RouteImportResult {
        state.withLock { state in
            var result = RouteImportResult()
            for entry in entries {
                guard state.rows[entry.key]?.header.version == entry.expectedVersion else {
                    result.skipped.append(entry.key)
                    continue
                }
                switch entry.action {
                case let .write(route):
                    var route = route
                    route.id = StoredRouteCodec.id(forKey: entry.key)
                    guard case let .committed(changes, written) = apply(.put([route]), to: &state),
                          let stored = written.first else { continue }
                    result.changes += changes
                    result.written.append(stored)
                    state.imports[entry.key] = RouteImportRecord(contentHash: entry.contentHash, version: stored.version)
                case .record:
                    if let version = entry.expectedVersion {
                        state.imports[entry.key] = RouteImportRecord(contentHash: entry.contentHash, version: version)
                    }
                case .remove:
                    if case let .committed(changes, _) = apply(.remove(key: entry.key), to: &state) {
                        result.changes += changes
                    }
                    state.imports[entry.key] = nil
                }
            }
            return result
        }
    }

    /// Nobody else writes to memory: the writer applies its own changes.
    public func wakeUps() -> AsyncStream<Void> {
        AsyncStream { _ in }
    }

    /// Does nothing: a memory store holds no connection.
    public func close() async {}
}

/// The changes a reader asked for were dropped from the feed: it must load the whole store again.
public struct RouteChangesPruned: Error, Sendable, CustomStringConvertible {
    /// The sequence the reader asked for changes after.
    public var after: Int64
    /// The oldest sequence the store still keeps.
    public var oldest: Int64

    /// An error for a reader asking after `after` when the oldest change kept is `oldest`.
    public init(after: Int64, oldest: Int64) {
        self.after = after
        self.oldest = oldest
    }

    /// Both sequences, for logs.
    public var description: String { "the changes after \(after) were pruned (the oldest kept is \(oldest))" }
}
