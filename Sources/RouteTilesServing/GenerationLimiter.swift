import Dispatch
import Synchronization

/// Runs CPU-bound tile generation off the Swift concurrency pool, at most `concurrency` at a time, with at most
/// `queueLimit` waiting. Past that it refuses at once (`Overloaded`) rather than letting the queue grow.
public final class GenerationLimiter: Sendable {
    /// The queue is full: the caller should answer 503 with `Retry-After`.
    public struct Overloaded: Error {}

    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var head = 0
        var queued: Int { waiting.count - head }
    }

    /// The most generations that run at once (at least 1).
    public let concurrency: Int
    /// The most callers that wait for a slot; one more is refused.
    public let queueLimit: Int
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "routetiles.tile-generation", attributes: .concurrent)

    /// A limiter running at most `concurrency` generations, with at most `queueLimit` callers waiting.
    public init(concurrency: Int, queueLimit: Int) {
        self.concurrency = max(1, concurrency)
        self.queueLimit = max(0, queueLimit)
    }

    /// Runs `work` on a generation thread once a slot is free.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Generations running and waiting.
    public var load: (running: Int, queued: Int) { state.withLock { ($0.running, $0.queued) } }

    private func acquire() async throws {
        enum Decision { case go, wait, refuse }
        // Decide under the lock whether to go, queue or refuse; a queued caller is resumed by `release`, which hands
        // its slot over directly.
        let decision = state.withLock { s -> Decision in
            if s.running < concurrency { s.running += 1; return .go }
            return s.queued < queueLimit ? .wait : .refuse
        }
        switch decision {
        case .go: return
        case .refuse: throw Overloaded()
        case .wait:
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goNow = state.withLock { s -> Bool in
                    if s.running < concurrency { s.running += 1; return true }
                    s.waiting.append(continuation)
                    return false
                }
                if goNow { continuation.resume() }
            }
        }
    }

    private func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard s.head < s.waiting.count else {
                s.running -= 1
                return nil
            }
            let c = s.waiting[s.head]
            s.head += 1
            if s.head > 64 && s.head * 2 > s.waiting.count {
                s.waiting.removeFirst(s.head)
                s.head = 0
            }
            return c   // the slot passes to the waiter: `running` stays the same
        }
        next?.resume()
    }
}
