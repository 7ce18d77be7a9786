import Foundation
import RouteTilesModel

/// A transaction of `MemoryRouteStore`: each primitive one short hold of the store's state, while the store's
/// `writers` lock keeps other transactions and the async reads out. Nothing fails half-way, so no write needs
/// undoing.
struct MemoryRouteTransaction: RouteStoreTransaction {
    let store: MemoryRouteStore

    func version(of key: String) -> Int64? {
        store.state.withLock { $0.rows[key]?.header.version }
    }

    func read(_ key: String) -> StoredRow? {
        store.state.withLock { state in state.rows[key].map { .route($0.stored) } }
    }

    /// A line with no part is refused as well: there is no last part to extend.
    func appendTarget(_ key: String) -> AppendTarget {
        store.state.withLock { state in
            guard let row = state.rows[key] else { return .missing }
            guard row.header.route.kind == .line, row.positions.partCount > 0 else { return .notALine }
            return .line(hasTimes: row.header.route.times != nil, lastTime: row.header.route.times?.last)
        }
    }

    /// The store's high-water mark (`State.nextNumber`), not the largest number stored now.
    func nextFreeNumber(after routes: [Route]) -> UInt64 {
        store.state.withLock { $0.nextNumber }
    }

    func upsert(_ route: Route, key: String, lastFix: Double?) -> Upserted {
        store.state.withLock { $0.upsert(route, key: key, lastFix: lastFix) }
    }

    func delete(_ key: String) -> Int64? {
        store.state.withLock { state in
            guard state.rows.removeValue(forKey: key) != nil else { return nil }
            return state.record(key, .delete).sequence
        }
    }

    /// Extends the route's packed positions (and its times) in place, its version and last fix those of the change.
    func append(_ points: [Coordinate], times: [Int64]?, to key: String) throws -> RouteChange? {
        try store.state.withLock { state in
            // Out of the table while it changes, so that its points are extended in place, not copied.
            guard var row = state.rows.removeValue(forKey: key) else {
                throw RouteStoreError(store: store.displayName, message: "route \(key) is gone")
            }
            defer { state.rows[key] = row }
            let made = state.record(key, .append, base: row.header.version, points: points,
                                    time: Date().timeIntervalSince1970, times: times)
            row.positions.appendToLastPart(points)
            if let times { row.header.route.times?.append(contentsOf: times) }
            row.header.version = made.sequence
            row.header.lastFix = made.time
            return made
        }
    }

    func recordImport(_ key: String, contentHash: String, version: Int64) {
        store.state.withLock { $0.imports[key] = RouteImportRecord(contentHash: contentHash, version: version) }
    }

    func forgetImport(_ key: String) {
        store.state.withLock { $0.imports[key] = nil }
    }

    /// Never: no write fails.
    func beginWrite(_ scope: WriteScope, inBatchOf count: Int) -> Never? { nil }

    func endWrite(_ mark: Never) {}

    func undoWrite(_ mark: Never, after error: any Error) -> any Error {}
}
