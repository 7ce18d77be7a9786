import Foundation

/// Runs a test's CPU-bound body on a thread of its own, not on one of Swift concurrency's cooperative threads.
///
/// The test run has as many cooperative threads as cores (two here). A synchronous body of tens of seconds holds one
/// of them the whole time, and two such bodies hold both: the servers of other tests, whose work waits for a
/// cooperative thread, then stall past their time limits. On a thread of its own the body still takes its share of
/// the CPU, but the cooperative threads stay free. An expectation that fails on that thread still fails the run
/// (Swift Testing records it against «unknown», with its file and line), so the test can fail.
package func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
