import Testing
import RouteTiles
@testable import RouteTilesInput
import RouteTilesCoreTestSupport

/// The one place of the all-or-none and never-back rules for times read from files.
@Suite struct TimesDraftTests {
    func draft(_ times: [Int64?]) -> TimesDraft {
        var draft = TimesDraft(file: "f", noun: "row")
        for (index, time) in times.enumerated() { draft.add(time, at: .line(index + 2, column: 3)) }
        return draft
    }

    func message(_ body: () throws -> Void) -> String? {
        inputError(body)?.description
    }

    @Test func noTimesIsNilAndEveryTimeIsTheTimes() throws {
        #expect(try draft([nil, nil, nil]).finish() == nil)
        #expect(try draft([]).finish() == nil)
        #expect(try draft([5, 5, 9]).finish() == [5, 5, 9])
    }

    @Test func partialTimesNameTheFirstWithoutAndTheFirstWith() {
        #expect(message { _ = try draft([nil, 4, 5]).finish() } == "f:2:3: row has no time, but the row at 3:3 of this route has one")
        #expect(message { _ = try draft([1, 2, nil, nil]).finish() } == "f:4:3: row has no time, but the row at 2:3 of this route has one")
        var sameFeature = TimesDraft(file: "f", noun: "position")
        sameFeature.add(1, at: .feature(3))
        sameFeature.add(nil, at: .feature(3))
        #expect(message { _ = try sameFeature.finish() } == "f: feature 3: position 1 has no time, but position 0 has one")
    }

    @Test func backwardsIsAnErrorUnlessReorderedStably() throws {
        let backwards = draft([3000, 1000, 2000, 1000])
        #expect(message { _ = try backwards.finish() }
            == "f:3:3: row time 1970-01-01T00:00:01Z is before the one before it (1970-01-01T00:00:03Z)")
        var items = ["a", "b", "c", "d"]
        #expect(try backwards.finish(reordering: &items, byTime: true) == [1000, 1000, 2000, 3000])
        #expect(items == ["b", "d", "c", "a"])
        var untouched = ["a", "b", "c", "d"]
        #expect(message { _ = try backwards.finish(reordering: &untouched, byTime: false) } != nil)
        #expect(untouched == ["a", "b", "c", "d"])
    }

    @Test func droppingTheLastPositionsForgetsTheirTimesAndTheirProblems() throws {
        var draft = draft([10, 20])
        draft.add(5, at: .line(9, column: 1))
        draft.dropLast(1)
        #expect(try draft.finish() == [10, 20])
        draft.add(nil, at: .line(10, column: 1))
        draft.dropLast(1)
        draft.add(30, at: .line(11, column: 1))
        #expect(try draft.finish() == [10, 20, 30])
        draft.dropLast(3)
        #expect(try draft.finish() == nil && draft.count == 0)
        draft.add(nil, at: .line(12, column: 1))
        draft.add(nil, at: .line(13, column: 1))
        #expect(try draft.finish() == nil)
    }

    @Test func randomSequencesFollowTheRules() throws {
        var random = SeededGenerator(seed: 9)
        for _ in 0..<2000 {
            let count = Int.random(in: 0...12, using: &random)
            let times: [Int64?] = (0..<count).map { _ in
                Int.random(in: 0..<10, using: &random) == 0 ? nil : Int64.random(in: 0...20, using: &random)
            }
            let present = times.compactMap { $0 }
            let refused = !present.isEmpty && (present.count < times.count || present != present.sorted())
            let draft = draft(times)
            if refused {
                #expect(message { _ = try draft.finish() } != nil, "\(times)")
            } else {
                #expect(try draft.finish() == (present.isEmpty ? nil : present), "\(times)")
            }
        }
    }
}
