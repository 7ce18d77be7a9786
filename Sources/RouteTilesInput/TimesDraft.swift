import RouteTilesModel

/// The times of one route's positions as a reader meets them, one optional time per position, and the rule they
/// must keep: a time on every position or on none (partial times are never a silent shift), never going back
/// (except where the reader puts the positions in time order first, `--order-by-time`), and, under
/// `TimesRule.keep`, not one instant repeated on every position.
///
/// Under `TimesRule.strict` a time that breaks the rule is an error. Under `.keep` the first one drops the route's
/// times: the route is read without them, and `Finished.dropped` says where and why, for the reader's warning.
///
/// Each position comes with where it is in the file, so that a message names both ends of a mismatch: the first
/// position without a time and the first with one, or the first time that goes back. Only those few places are
/// kept; an untimed route costs no array at all.
struct TimesDraft {
    /// The file, for errors.
    let file: String
    /// What a position is called in messages: "trkpt", "row", "point".
    let noun: String
    /// Whether a time that cannot be used is an error (`.strict`) or drops the route's times (`.keep`).
    let strict: Bool

    /// The number of positions added.
    private(set) var count = 0
    /// The times from the first position with a time on (positions before it have none).
    private var times: [Int64] = []
    private var firstWith: Mark?
    private var firstWithout: Mark?
    private var firstBackwards: Backwards?
    /// The last time added.
    private var previous: Int64?
    /// Why the route's times were dropped, once a time could not be used (`.keep`).
    private var dropped: InputError?

    /// A position: its index among the route's positions and where it is in the file.
    private struct Mark {
        var index: Int
        var location: InputError.Location
    }

    private struct Backwards {
        var mark: Mark
        var time: Int64
        var previous: Int64
    }

    /// What a route's times came to.
    struct Finished {
        /// The times, one per position; nil when no position has one, or when they were dropped.
        var times: [Int64]?
        /// Why they were dropped (`.keep` only): the first time that could not be used, at its place in the file.
        var dropped: InputError?
    }

    /// Stands for a position without a time among `times`: no kept time is negative.
    private static let missing = Int64.min

    init(file: String, noun: String, rule: TimesRule) {
        self.file = file
        self.noun = noun
        strict = rule == .strict
    }

    /// True when some position has a time.
    var hasTimes: Bool { firstWith != nil }

    /// Adds the next position's time (nil: it has none), found at `location`.
    mutating func add(_ time: Int64?, at location: InputError.Location) {
        defer { count += 1 }
        guard dropped == nil else { return }
        guard let time else {
            if firstWithout == nil { firstWithout = Mark(index: count, location: location) }
            if firstWith != nil { times.append(Self.missing) }
            return
        }
        if firstWith == nil { firstWith = Mark(index: count, location: location) }
        if firstBackwards == nil, let previous, time < previous {
            firstBackwards = Backwards(mark: Mark(index: count, location: location), time: time, previous: previous)
        }
        previous = time
        times.append(time)
    }

    /// A time that cannot be read (`problem` says where and why): thrown under `.strict`; under `.keep` the route's
    /// times are dropped for it (the first such problem is the one reported), and its positions go on being added.
    mutating func unusable(_ problem: InputError) throws(InputError) {
        if strict { throw problem }
        guard dropped == nil else { return }
        dropped = problem
        times = []
    }

    /// Forgets the last `removed` positions (a GPX segment too short to keep), as if they had never been added.
    mutating func dropLast(_ removed: Int) {
        let removed = min(removed, count)
        count -= removed
        times.removeLast(min(removed, times.count))
        if let mark = firstWith, mark.index >= count {
            firstWith = nil
            times = []
        }
        if let mark = firstWithout, mark.index >= count { firstWithout = nil }
        if let backwards = firstBackwards, backwards.mark.index >= count { firstBackwards = nil }
        previous = times.last(where: { $0 != Self.missing })
    }

    /// The route's times: nil when no position has one. Partial times and a time before the one before it are
    /// errors under `.strict`, and drop the times under `.keep`, as a repeated instant does.
    func finish() throws(InputError) -> Finished {
        if let dropped { return Finished(dropped: dropped) }
        do throws(InputError) {
            try checkAllOrNone()
            if let backwards = firstBackwards { throw backwardsError(backwards) }
        } catch {
            return try giveUp(error)
        }
        return checked(firstWith == nil ? nil : times)
    }

    /// The route's times as `finish()` gives them, but with `byTime` the positions are first put in time order
    /// (stable: equal times keep their order), `items` (the positions, one per time) along with them, so that
    /// times going back are no error.
    func finish<Item>(reordering items: inout [Item], byTime: Bool) throws(InputError) -> Finished {
        guard byTime, firstBackwards != nil, dropped == nil else { return try finish() }
        do throws(InputError) {
            try checkAllOrNone()
        } catch {
            return try giveUp(error)
        }
        guard items.count == times.count else { return try finish() }
        let order = times.indices.sorted { (times[$0], $0) < (times[$1], $1) }
        items = order.map { items[$0] }
        return checked(order.map { times[$0] })
    }

    /// `error` thrown under `.strict`; under `.keep`, the times dropped for it.
    private func giveUp(_ error: InputError) throws(InputError) -> Finished {
        if strict { throw error }
        return Finished(dropped: error)
    }

    /// `times`, unless `.keep` finds one instant on every position.
    private func checked(_ times: [Int64]?) -> Finished {
        guard !strict, let times, let first = firstWith, let instant = Self.repeatedInstant(times) else {
            return Finished(times: times)
        }
        return Finished(dropped: InputError(file: file, location: first.location,
                                            message: Self.repeatedMessage(instant, count: times.count, noun: noun)))
    }

    /// The instant when all of `times` (three or more) are that one instant: what a device without a clock writes
    /// (1901-12-13T20:45:52Z, the smallest 32-bit Unix time, or 1970-01-01). Such a route has no usable times. Two
    /// fixes in the same second are no sign of it.
    static func repeatedInstant(_ times: [Int64]) -> Int64? {
        guard times.count > 2, let first = times.first, times.allSatisfy({ $0 == first }) else { return nil }
        return first
    }

    /// What is wrong with a route whose `count` positions all have the time `instant`.
    static func repeatedMessage(_ instant: Int64, count: Int, noun: String) -> String {
        "all \(count) \(noun)s have the same time \(TimeValue.iso(instant)), a placeholder rather than when they were"
    }

    private func checkAllOrNone() throws(InputError) {
        guard let with = firstWith, let without = firstWithout else { return }
        if with.location == without.location {
            throw InputError(file: file, location: without.location,
                             message: "\(noun) \(without.index) has no time, but \(noun) \(with.index) has one")
        }
        throw InputError(file: file, location: without.location,
                         message: "\(noun) has no time, but the \(noun) at \(Self.describe(with.location)) of this "
                             + "route has one")
    }

    private func backwardsError(_ backwards: Backwards) -> InputError {
        let place = backwards.mark.location == .none ? "\(noun) \(backwards.mark.index) " : "\(noun) "
        return InputError(file: file, location: backwards.mark.location,
                          message: "\(place)time \(TimeValue.iso(backwards.time)) is before the one before it "
                              + "(\(TimeValue.iso(backwards.previous)))")
    }

    /// A place in the file, as a message names it beside the error's own location.
    static func describe(_ location: InputError.Location) -> String {
        switch location {
        case .none: return "the start"
        case let .line(line, column?): return "\(line):\(column)"
        case let .line(line, nil): return "line \(line)"
        case let .feature(index): return "feature \(index)"
        case let .offset(offset): return "offset \(offset)"
        }
    }

    /// What is wrong with a time read from a file: `time '…' has no zone; pass --time-zone UTC` when a zone is
    /// missing (files may be read as UTC), else the reason `TimeValue` gives; `what` (may be empty) comes first.
    static func message(_ error: TimeValueError, what: String = "time") -> String {
        let prefix = what.isEmpty ? "" : what + " "
        if error.reason == .noZone {
            let shown = error.text.count > 40 ? String(error.text.prefix(40)) + "…" : error.text
            return "\(prefix)'\(shown)' has no zone; pass --time-zone UTC"
        }
        return prefix + error.description
    }
}
