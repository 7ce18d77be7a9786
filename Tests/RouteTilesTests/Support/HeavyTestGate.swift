import Testing

/// Lets one CPU-heavy test run at a time across suites: headless Chromium (software rendering), PostgreSQL clusters
/// (PostGIS set-up takes seconds of CPU) and the spilled builds. On 2 cores, two of them at once starved each other
/// past their time limits. Other tests still run beside the one heavy test.
actor HeavyTestGate {
    static let shared = HeavyTestGate()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// `@Suite(.heavy)`: each test (each case of a parameterized one) of the suite runs alone among heavy tests.
struct HeavyTest: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else {
            try await function()
            return
        }
        await HeavyTestGate.shared.enter()
        do {
            try await function()
        } catch {
            await HeavyTestGate.shared.leave()
            throw error
        }
        await HeavyTestGate.shared.leave()
    }
}

extension Trait where Self == HeavyTest {
    static var heavy: HeavyTest { HeavyTest() }
}
