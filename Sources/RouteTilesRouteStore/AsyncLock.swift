import Synchronization

/// A lock held across suspension points: the holders of `withLock` run one at a time, in the order they asked.
/// `LiveRouteSync` holds it from reading the store to swapping in the next snapshot, so that changes are applied
/// once each and in sequence order even though every step awaits the store; the PostgreSQL store holds one over
/// each transaction that relies on its `TailLedger`, and the memory store over each transaction and read.
package final class AsyncLock: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    package init() {}

    package func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    /// Waits until the caller holds the lock; `release()` gives it up. For hand-over-hand use (taking one lock
    /// before giving up another), where `withLock`'s scope does not fit.
    package func acquire() async {
        // Free: taken at once, without a continuation (an allocation), as most takes of a lock are.
        let taken = state.withLock { state -> Bool in
            guard !state.held else { return false }
            state.held = true
            return true
        }
        if taken { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                if state.held {
                    state.waiters.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Gives the lock to the next waiter, in the order they asked, or frees it.
    package func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
