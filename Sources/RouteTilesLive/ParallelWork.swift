import Foundation
import Synchronization

/// Work spread over the cores: items taken one at a time from a shared counter by a worker per core, each worker
/// folding what it makes into a value of its own, handed over once, under a lock. The live set builds tilers,
/// prepares puts and plans appends this way.
enum ParallelWork {
    /// The cores the process may use, read once (`activeProcessorCount` reads the cgroup's quota from a file on
    /// every call).
    static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Runs `body` for every index of `count` items on up to `workers` threads. Each worker starts from `local()`,
    /// and `merge` takes in what each made, one worker at a time.
    static func run<Local>(count: Int, workers: Int = cores, local: () -> Local,
                           _ body: (inout Local, Int) -> Void, merge: (Local) -> Void) {
        guard count > 0 else { return }
        let next = Atomic<Int>(0)
        let merging = Mutex(())
        withoutActuallyEscaping(local) { local in
            withoutActuallyEscaping(body) { body in
                withoutActuallyEscaping(merge) { merge in
                    let work = UncheckedWork(local: local, body: body, merge: merge)
                    DispatchQueue.concurrentPerform(iterations: min(workers, count)) { _ in
                        var made = work.local()
                        while true {
                            let index = next.add(1, ordering: .relaxed).oldValue
                            guard index < count else { break }
                            work.body(&made, index)
                        }
                        merging.withLock { _ in work.merge(made) }
                    }
                }
            }
        }
    }
}

/// The closures of one `ParallelWork.run`, shared by its workers: `body` reads only what its caller hands it, and
/// `merge` runs under the lock, so the workers never touch the same state at once.
private struct UncheckedWork<Local>: @unchecked Sendable {
    let local: () -> Local
    let body: (inout Local, Int) -> Void
    let merge: (Local) -> Void
}
