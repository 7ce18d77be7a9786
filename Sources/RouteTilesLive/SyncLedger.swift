import RouteTilesModel
import RouteTilesRouteStore

/// What a `LiveRouteSync` knows of its store, under its state lock: the versions of the routes it holds, how far it
/// has applied, the bad rows reported, and the catch-ups that ran while a round was committing.
struct SyncLedger: Sendable {
    /// The version (the sequence that last wrote it) of each route held.
    var versions: [String: Int64] = [:]
    var status = LiveRouteSync.Status(applied: 0, newest: 0, reachable: true, lastError: nil, reconnects: 0, badRows: 0)
    /// The bad rows reported so far, by key and version, so that a reload reports only new ones.
    var badReported: Set<String> = []
    /// What catch-ups applied while a round of writes was committing.
    var window = CommitWindow()

    /// Of `problems`, those not reported before; they are counted and remembered.
    mutating func newlyBad(_ problems: [RouteRowProblem]) -> [RouteRowProblem] {
        let fresh = problems.filter { badReported.insert("\($0.version) \($0.key)").inserted }
        status.badRows += fresh.count
        return fresh
    }
}
