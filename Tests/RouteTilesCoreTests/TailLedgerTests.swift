import RouteTilesModel
import Testing
@testable import RouteTilesRouteStore
import RouteTilesCoreTestSupport

/// The ledger of the durable stores' tails (`TailLedger`): a write that rolls back leaves it as it was, whatever it
/// changed (appends, folds, resets, removals), and an append extends a tail in place.
@Suite struct TailLedgerTests {
    @Test func aRolledBackWriteLeavesTheLedgerAsItWas() {
        var ledger = TailLedger()
        ledger.reset("a", version: 1, line: 10, isLine: true, lastFix: nil)
        ledger.reset("b", version: 2, line: 600, isLine: true, lastFix: 5)
        #expect(ledger.append("a", seq: 3, count: 2, time: 100) == false)
        ledger.saw(3)
        ledger.keep()
        let a = ledger.tail(of: "a"), b = ledger.tail(of: "b"), seen = ledger.seen
        #expect(a?.rows == [3] && a?.positions == 2 && a?.lastFix == 100 && a?.version == 3)

        let mark = ledger.mark
        _ = ledger.append("a", seq: 4, count: 1, time: 101)
        _ = ledger.append("b", seq: 5, count: 3, time: 102)
        ledger.saw(5)
        ledger.folded("b", through: 5)
        _ = ledger.append("b", seq: 6, count: 1, time: nil)
        _ = ledger.append("a", seq: 7, count: 4, time: 103)
        ledger.remove("a")
        ledger.reset("c", version: 8, line: 3, isLine: false, lastFix: nil)
        ledger.saw(8)
        #expect(ledger.tail(of: "b")?.rows == [6] && ledger.tail(of: "b")?.line == 603)
        ledger.rollBack(to: mark)
        #expect(ledger.tail(of: "a") == a)
        #expect(ledger.tail(of: "b") == b)
        #expect(ledger.tail(of: "c") == nil)
        #expect(ledger.seen == seen)

        // An append at or below the tail's version is not the tail's: nothing changes, nothing to undo.
        #expect(ledger.append("a", seq: 3, count: 9, time: 1) == false)
        #expect(ledger.tail(of: "a") == a)
        ledger.rollBack(to: ledger.mark)
        #expect(ledger.tail(of: "a") == a)
    }

    /// The positions a tail keeps for its fold are exactly its rows': kept from the store's own appends, taken off
    /// again when an append rolls back, empty and known after a whole fold, and forgotten (read from the rows) when
    /// an append comes without them (another process's), when they would pass the cap, or when another process
    /// folded part of the tail.
    @Test func aTailKeepsThePositionsOfItsOwnRowsOnly() {
        func fix(_ k: Int) -> Coordinate { Coordinate(longitude: 2 + Double(k) * 1e-4, latitude: 48.8) }
        var ledger = TailLedger()
        ledger.reset("a", version: 1, line: 5000, isLine: true, lastFix: nil)
        #expect(ledger.knownPoints("a", rowVersion: 1) == nil) // no rows, nothing to fold
        _ = ledger.append("a", seq: 2, count: 2, time: nil, points: [fix(0), fix(1)])
        _ = ledger.append("a", seq: 3, count: 1, time: nil, points: [fix(2)])
        ledger.keep()
        #expect(ledger.knownPoints("a", rowVersion: 1) == [fix(0), fix(1), fix(2)])
        // Another process folded the tail up to row 2: which positions remain is not known here.
        #expect(ledger.knownPoints("a", rowVersion: 2) == nil)

        let mark = ledger.mark
        _ = ledger.append("a", seq: 4, count: 1, time: nil, points: [fix(3)])
        #expect(ledger.knownPoints("a", rowVersion: 1) == [fix(0), fix(1), fix(2), fix(3)])
        ledger.rollBack(to: mark)
        #expect(ledger.knownPoints("a", rowVersion: 1) == [fix(0), fix(1), fix(2)])

        // A count that disagrees with the positions given is not trusted.
        let mismatch = ledger.mark
        _ = ledger.append("a", seq: 4, count: 2, time: nil, points: [fix(3)])
        #expect(ledger.knownPoints("a", rowVersion: 1) == nil)
        ledger.rollBack(to: mismatch)
        #expect(ledger.knownPoints("a", rowVersion: 1) == nil) // forgotten stays forgotten: read from the rows

        // Folded whole: an empty tail, whose positions are known again.
        ledger.folded("a", through: 3)
        #expect(ledger.tail(of: "a")?.rows == [] && ledger.tail(of: "a")?.line == 5003)
        _ = ledger.append("a", seq: 5, count: 1, time: nil, points: [fix(4)])
        #expect(ledger.knownPoints("a", rowVersion: 3) == [fix(4)])

        // Another process's append (no positions) and a tail past the cap are read from their rows.
        _ = ledger.append("a", seq: 6, count: 1, time: nil)
        #expect(ledger.knownPoints("a", rowVersion: 3) == nil)
        ledger.reset("b", version: 7, line: 100_000, isLine: true, lastFix: nil)
        let many = (0..<TailLedger.keptPoints).map(fix)
        _ = ledger.append("b", seq: 8, count: many.count, time: nil, points: many)
        #expect(ledger.knownPoints("b", rowVersion: 7)?.count == TailLedger.keptPoints)
        _ = ledger.append("b", seq: 9, count: 1, time: nil, points: [fix(0)])
        #expect(ledger.knownPoints("b", rowVersion: 7) == nil)
        #expect(ledger.tail(of: "b")?.positions == TailLedger.keptPoints + 1)
    }

    @Test func aTailIsDueAtItsRoutesOwnMark() {
        var ledger = TailLedger()
        ledger.reset("van", version: 1, line: 600, isLine: true, lastFix: nil)
        let mark = AppendedTails.foldMark(key: "van", line: 600)
        #expect(mark >= AppendedTails.minimumFold && mark <= AppendedTails.minimumFold * 3 / 2)
        #expect(ledger.append("van", seq: 2, count: mark - 1, time: nil) == false)
        #expect(ledger.append("van", seq: 3, count: 1, time: nil) == true)
        // Marks differ between routes, which is what spreads a fleet's folds.
        let marks = Set((0..<100).map { AppendedTails.foldMark(key: "veh-\($0)", line: 500) })
        #expect(marks.count > 20)
    }
}
