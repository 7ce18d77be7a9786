import Dispatch

/// Runs an actor's jobs on a dispatch queue of its own: for an actor whose work blocks (`SQLiteRouteConnection`),
/// which must not hold a thread of Swift's concurrency pool.
final class DispatchQueueExecutor: SerialExecutor {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Traps unless called on the queue (`assumeIsolated`).
    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
