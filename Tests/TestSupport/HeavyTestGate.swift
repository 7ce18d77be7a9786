import Foundation
import Testing
import RouteTilesCoreTestSupport

/// Lets one CPU-heavy test run at a time across suites: headless Chromium (software rendering), PostgreSQL clusters
/// (PostGIS set-up takes seconds of CPU) and the spilled builds. On 2 cores, two of them at once starved each other
/// past their time limits. Other tests still run beside the one heavy test.
package actor HeavyTestGate {
    package static let shared = HeavyTestGate()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package func enter() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    package func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// `@Suite(.heavy)`: each test (each case of a parameterized one) of the suite runs alone among heavy tests.
/// `.heavy(limit:)` bounds each test's own run, counted from when it enters the gate: Swift Testing's `.timeLimit`
/// also counts the wait behind other heavy tests (minutes, behind the browser tests and the example build), and
/// failed a PostgreSQL test in CI that had not yet started.
package struct HeavyTest: SuiteTrait, TestTrait, TestScoping {
    package var limit: Duration?
    package var isRecursive: Bool { true }

    package struct TimeLimitExceeded: Error, CustomStringConvertible {
        package var limit: Duration
        package var description: String { "the test ran longer than its limit of \(limit) (after it entered the heavy gate)" }
    }

    package func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else {
            try await function()
            return
        }
        let arrived = ContinuousClock.now
        await HeavyTestGate.shared.enter()
        let entered = ContinuousClock.now
        // The heavy tests run one after another, so their run times add up to the test run's critical path: printed
        // for Docs/BENCHMARKS.md, "The test loop and CI".
        defer {
            let ran = Self.seconds(ContinuousClock.now - entered), waited = Self.seconds(entered - arrived)
            print("◆ heavy test \(test.name) ran \(ran) s (waited \(waited) s)")
        }
        do {
            try await run(function)
        } catch {
            await HeavyTestGate.shared.leave()
            throw error
        }
        await HeavyTestGate.shared.leave()
    }

    /// A duration in seconds, to a tenth.
    private static func seconds(_ duration: Duration) -> Double {
        (Double(duration.components.seconds) * 10 + Double(duration.components.attoseconds / 100_000_000_000_000_000)) / 10
    }

    /// Runs `function`, cancelled and failed when it outlives `limit`.
    private func run(_ function: @Sendable () async throws -> Void) async throws {
        guard let limit else { return try await function() }
        try await withoutActuallyEscaping(function) { body in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask { try await body(); return true }
                group.addTask { try await Task.sleep(for: limit); return false }
                let finished = try await group.next() ?? true
                group.cancelAll()
                if !finished { throw TimeLimitExceeded(limit: limit) }
            }
        }
    }
}

extension Trait where Self == HeavyTest {
    package static var heavy: HeavyTest { HeavyTest() }
    /// Heavy, and each test bounded to `limit` from when it starts running (not from when it starts waiting).
    package static func heavy(limit: Duration) -> HeavyTest { HeavyTest(limit: limit) }
}
