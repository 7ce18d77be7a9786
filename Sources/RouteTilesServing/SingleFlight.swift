import Synchronization

/// Concurrent requests for the same key share one computation: the first starts it, the others wait for its
/// result. Once it finishes, the key is free again.
package final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// A computation and how many callers it has (the one that started it included).
    private struct Flight {
        var task: Task<Value, any Error>
        var callers: Int
    }

    private let flights = Mutex<[Key: Flight]>([:])

    /// The result of `compute` for `key`, computed once for all the callers that overlap. `joined` says whether this
    /// caller waited on another's computation.
    package init() {}

    package func run(_ key: Key, _ compute: @escaping @Sendable () async throws -> Value) async throws -> (value: Value, joined: Bool) {
        let (task, joined) = flights.withLock { flights -> (Task<Value, any Error>, Bool) in
            if let running = flights[key]?.task {
                flights[key]?.callers += 1
                return (running, true)
            }
            // The task removes itself under the same lock, so it cannot finish before it is registered.
            let task = Task<Value, any Error> {
                defer { _ = self.flights.withLock { $0.removeValue(forKey: key) } }
                return try await compute()
            }
            flights[key] = Flight(task: task, callers: 1)
            return (task, false)
        }
        return (try await task.value, joined)
    }

    /// Keys being computed now.
    package var count: Int { flights.withLock { $0.count } }

    /// The callers of the computation running for `key` (0 when none runs): how tests know that every caller has
    /// joined it.
    package func callers(of key: Key) -> Int { flights.withLock { $0[key]?.callers ?? 0 } }
}
