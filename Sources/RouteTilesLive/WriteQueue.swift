import RouteTilesRouteStore
import Synchronization

/// The writes waiting for the next group commit of a `LiveRouteSync`, and who commits them.
///
/// A caller enqueues its writes as one unit (the writes of one request, committed in one transaction whatever
/// else joins them). When no commit is in flight, that caller leads: it takes every unit waiting and commits them
/// together. Units that arrive meanwhile wait for the next round, which carries them all in one transaction and
/// one fsync. Units are taken in arrival order, so writes to one route keep their order. The lock here is held for
/// the few instructions of a list operation, never across the store's I/O.
final class WriteQueue: Sendable {
    /// The writes of one caller and where their outcomes go.
    struct Unit: Sendable {
        var writes: [RouteWrite]
        var ticket: WriteTicket
    }

    private struct State {
        var units: [Unit] = []
        var leading = false
        /// Units ever enqueued (for tests that wait until every caller has queued).
        var enqueued = 0
    }

    private let state = Mutex(State())

    /// Adds a unit. True when the caller is to lead: no commit was in flight or due.
    func enqueue(_ unit: Unit) -> Bool {
        state.withLock { state in
            state.units.append(unit)
            state.enqueued += 1
            if state.leading { return false }
            state.leading = true
            return true
        }
    }

    /// The units waiting, in arrival order, up to `maxWrites` writes (always at least one unit); only the leader
    /// calls it.
    func take(maxWrites: Int) -> [Unit] {
        state.withLock { state in
            var count = 0
            var end = 0
            while end < state.units.count, end == 0 || count + state.units[end].writes.count <= maxWrites {
                count += state.units[end].writes.count
                end += 1
            }
            let taken = Array(state.units[..<end])
            state.units.removeFirst(end)
            return taken
        }
    }

    /// How many units were ever enqueued.
    var enqueuedCount: Int { state.withLock { $0.enqueued } }

    /// Called by the leader after its round: true when units wait (the leader goes on, or hands over), false when
    /// none does (leadership ends, and the next unit's caller leads).
    func continueLeading() -> Bool {
        state.withLock { state in
            if state.units.isEmpty { state.leading = false }
            return state.leading
        }
    }
}

/// Where the outcomes of one unit of writes go: set once by the commit that carried it, awaited by its caller.
final class WriteTicket: Sendable {
    typealias Outcomes = Result<[Result<LiveRouteSync.WriteOutcome, any Error>], any Error>

    private struct State {
        var outcome: Outcomes?
        var waiter: CheckedContinuation<Outcomes, Never>?
    }

    private let state = Mutex(State())

    /// Sets the outcome and wakes the caller; later calls do nothing.
    func resolve(_ outcome: Outcomes) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcomes, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Waits for the outcome.
    func value() async throws -> [Result<LiveRouteSync.WriteOutcome, any Error>] {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcomes, Never>) in
            let ready = state.withLock { state -> Outcomes? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try outcome.get()
    }
}
