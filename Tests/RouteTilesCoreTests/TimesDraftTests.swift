import Testing
import RouteTiles
@testable import RouteTilesInput
import RouteTilesCoreTestSupport

/// The one place of the all-or-none and never-back rules for times read from files: errors under `.strict`, and
/// under `.keep` the same problems drop the route's times (and one instant on every position does too).
@Suite struct TimesDraftTests {
    func draft(_ times: [Int64?], rule: TimesRule = .strict) -> TimesDraft {
        var draft = TimesDraft(file: "f", noun: "row", rule: rule)
        for (index, time) in times.enumerated() { draft.add(time, at: .line(index + 2, column: 3)) }
        return draft
    }

    func message(_ body: () throws -> Void) -> String? {
        inputError(body)?.description
    }

    @Test func noTimesIsNilAndEveryTimeIsTheTimes() throws {
        #expect(try draft([nil, nil, nil]).finish().times == nil)
        #expect(try draft([]).finish().times == nil)
        #expect(try draft([5, 5, 9]).finish().times == [5, 5, 9])
        #expect(try draft([5, 5, 9], rule: .keep).finish().times == [5, 5, 9])
    }

    @Test func partialTimesNameTheFirstWithoutAndTheFirstWith() {
        #expect(message { _ = try draft([nil, 4, 5]).finish() } == "f:2:3: row has no time, but the row at 3:3 of this route has one")
        #expect(message { _ = try draft([1, 2, nil, nil]).finish() } == "f:4:3: row has no time, but the row at 2:3 of this route has one")
        var sameFeature = TimesDraft(file: "f", noun: "position", rule: .strict)
        sameFeature.add(1, at: .feature(3))
        sameFeature.add(nil, at: .feature(3))
        #expect(message { _ = try sameFeature.finish() } == "f: feature 3: position 1 has no time, but position 0 has one")
    }

    @Test func backwardsIsAnErrorUnlessReorderedStably() throws {
        let backwards = draft([3000, 1000, 2000, 1000])
        #expect(message { _ = try backwards.finish() }
            == "f:3:3: row time 1970-01-01T00:00:01Z is before the one before it (1970-01-01T00:00:03Z)")
        var items = ["a", "b", "c", "d"]
        #expect(try backwards.finish(reordering: &items, byTime: true).times == [1000, 1000, 2000, 3000])
        #expect(items == ["b", "d", "c", "a"])
        var untouched = ["a", "b", "c", "d"]
        #expect(message { _ = try backwards.finish(reordering: &untouched, byTime: false) } != nil)
        #expect(untouched == ["a", "b", "c", "d"])
    }

    @Test func droppingTheLastPositionsForgetsTheirTimesAndTheirProblems() throws {
        var draft = draft([10, 20])
        draft.add(5, at: .line(9, column: 1))
        draft.dropLast(1)
        #expect(try draft.finish().times == [10, 20])
        draft.add(nil, at: .line(10, column: 1))
        draft.dropLast(1)
        draft.add(30, at: .line(11, column: 1))
        #expect(try draft.finish().times == [10, 20, 30])
        draft.dropLast(3)
        #expect(try draft.finish().times == nil && draft.count == 0)
        draft.add(nil, at: .line(12, column: 1))
        draft.add(nil, at: .line(13, column: 1))
        #expect(try draft.finish().times == nil)
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
            let strict = draft(times)
            let kept = try draft(times, rule: .keep).finish()
            let repeated = present.count > 2 && Set(present).count == 1 && present.count == times.count
            if refused {
                // The same problem, at the same place: an error under strict, the reason for dropping under keep.
                let error = message { _ = try strict.finish() }
                #expect(error != nil, "\(times)")
                #expect(kept.times == nil && kept.dropped?.description == error, "\(times)")
            } else {
                #expect(try strict.finish().times == (present.isEmpty ? nil : present), "\(times)")
                #expect(kept.times == (present.isEmpty || repeated ? nil : present), "\(times)")
                #expect((kept.dropped != nil) == repeated, "\(times)")
            }
        }
    }

    @Test func underKeepAProblemDropsTheTimesAndNamesItsPlace() throws {
        let partial = try draft([nil, 4, 5], rule: .keep).finish()
        #expect(partial.times == nil)
        #expect(partial.dropped?.description == "f:2:3: row has no time, but the row at 3:3 of this route has one")
        let backwards = try draft([3000, 1000], rule: .keep).finish()
        #expect(backwards.dropped?.description
            == "f:3:3: row time 1970-01-01T00:00:01Z is before the one before it (1970-01-01T00:00:03Z)")
        // Put in time order, times going back are no problem.
        var items = ["a", "b"]
        let reordered = try draft([3000, 1000], rule: .keep).finish(reordering: &items, byTime: true)
        #expect(reordered.times == [1000, 3000] && reordered.dropped == nil && items == ["b", "a"])
    }

    @Test func oneInstantOnEveryPositionIsAPlaceholderUnderKeep() throws {
        let placeholder = try TimeValue.parse("1970-01-01T00:00:00Z")
        let kept = try draft([placeholder, placeholder, placeholder], rule: .keep).finish()
        #expect(kept.times == nil)
        #expect(kept.dropped?.description
            == "f:2:3: all 3 rows have the same time 1970-01-01T00:00:00Z, a placeholder rather than when they were")
        // Strict keeps what it always kept; two fixes in the same second are no placeholder.
        #expect(try draft([placeholder, placeholder, placeholder]).finish().times?.count == 3)
        #expect(try draft([placeholder, placeholder], rule: .keep).finish().times == [placeholder, placeholder])
    }

    @Test func anUnreadableTimeThrowsUnderStrictAndDropsTheTimesUnderKeep() throws {
        let problem = InputError(file: "f", location: .line(3, column: 5), message: "time 'x' is not a time")
        var strict = draft([1, 2])
        #expect(message { try strict.unusable(problem) } == problem.description)
        var kept = draft([1, 2], rule: .keep)
        try kept.unusable(problem)
        kept.add(3, at: .line(4, column: 5))
        try kept.unusable(InputError(file: "f", location: .line(5, column: 5), message: "a later one"))
        let finished = try kept.finish()
        #expect(finished.times == nil && finished.dropped == problem && kept.count == 3)
    }
}
