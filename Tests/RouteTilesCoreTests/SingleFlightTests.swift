import Testing
import RouteTiles
import RouteTilesCoreTestSupport

/// `SingleFlight`: overlapping requests for one key share one computation.
@Suite(.timeLimit(.minutes(1))) struct SingleFlightTests {
    struct Failure: Error, Equatable {
        var code: Int
    }

    /// Waits until `condition` holds, polling; false if it does not within about five seconds.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// Callers that arrive while the work for their key runs all get its one result: the work runs once, one
    /// caller started it and every other joined.
    @Test func concurrentCallersForOneKeyShareOneComputation() async throws {
        let flights = SingleFlight<String, Int>()
        let gate = AsyncGate(), runs = SharedCounter()
        let callers = 8
        try await withThrowingTaskGroup(of: (value: Int, joined: Bool).self) { group in
            for _ in 0..<callers {
                group.addTask {
                    return try await flights.run("tile") {
                        await gate.wait()
                        return 100 + runs.increment()
                    }
                }
            }
            // Every caller has joined the one flight before it may finish.
            #expect(try await Self.eventually { flights.callers(of: "tile") == callers && flights.count == 1 })
            gate.open()
            var results: [(value: Int, joined: Bool)] = []
            for try await result in group { results.append(result) }
            #expect(results.count == callers)
            #expect(results.allSatisfy { $0.value == 101 }, "\(results)")
            #expect(results.filter { !$0.joined }.count == 1)
        }
        #expect(runs.count == 1)
        #expect(flights.count == 0)
    }

    /// When the shared work fails, every caller waiting on it gets the failure, and the key is free again.
    @Test func aFailureReachesEveryWaiter() async throws {
        let flights = SingleFlight<Int, Int>()
        let gate = AsyncGate(), runs = SharedCounter()
        let callers = 6
        let outcomes = await withTaskGroup(of: Result<Int, Failure>.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    do {
                        return .success(try await flights.run(7) {
                            await gate.wait()
                            throw Failure(code: runs.increment())
                        }.value)
                    } catch let failure as Failure {
                        return .failure(failure)
                    } catch {
                        return .failure(Failure(code: -1))
                    }
                }
            }
            _ = try? await Self.eventually { flights.callers(of: 7) == callers && flights.count == 1 }
            gate.open()
            var outcomes: [Result<Int, Failure>] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.count == callers)
        #expect(outcomes.allSatisfy { $0 == .failure(Failure(code: 1)) }, "\(outcomes)")
        #expect(runs.count == 1)
        #expect(flights.count == 0)
    }

    /// Work for one key does not wait for work on another: a second key finishes while the first is held back.
    @Test func differentKeysRunIndependently() async throws {
        let flights = SingleFlight<String, String>()
        let gate = AsyncGate(), runs = SharedCounter()
        let held = Task {
            try await flights.run("held") {
                runs.increment()
                await gate.wait()
                return "held"
            }
        }
        #expect(try await Self.eventually { runs.count == 1 })
        let free = try await flights.run("free") {
            runs.increment()
            return "free"
        }
        #expect(free.value == "free" && !free.joined)
        #expect(flights.count == 1, "only the held key is still in flight")
        gate.open()
        let first = try await held.value
        #expect(first.value == "held" && !first.joined)
        #expect(runs.count == 2)
        #expect(flights.count == 0)
    }

    /// Once a computation has finished, the next call for its key runs the work again rather than reusing the
    /// old result.
    @Test func aLaterCallRunsTheWorkAgain() async throws {
        let flights = SingleFlight<Int, Int>()
        let runs = SharedCounter()
        let first = try await flights.run(1) { runs.increment() }
        #expect(flights.count == 0)
        let second = try await flights.run(1) { runs.increment() }
        #expect(first.value == 1 && !first.joined)
        #expect(second.value == 2 && !second.joined)
        #expect(runs.count == 2)
    }
}
