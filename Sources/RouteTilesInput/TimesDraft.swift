import RouteTilesModel

/// The times of one route's positions as a reader meets them, one optional time per position, and the rule they
/// must keep: a time on every position or on none (partial times are an error, never a silent shift), and never
/// going back (except where the reader puts the positions in time order first, `--order-by-time`).
///
/// Each position comes with where it is in the file, so that an error names both ends of a mismatch: the first
/// position without a time and the first with one, or the first time that goes back. Only those few places are
/// kept; an untimed route costs no array at all.
struct TimesDraft {
    /// The file, for errors.
    let file: String
    /// What a position is called in messages: "trkpt", "row", "point".
    let noun: String

    /// The number of positions added.
    private(set) var count = 0
    /// The times from the first position with a time on (positions before it have none).
    private var times: [Int64] = []
    private var firstWith: Mark?
    private var firstWithout: Mark?
    private var firstBackwards: Backwards?
    /// The last time added.
    private var previous: Int64?

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

    /// Stands for a position without a time among `times`: no kept time is negative.
    private static let missing = Int64.min

    init(file: String, noun: String) {
        self.file = file
        self.noun = noun
    }

    /// True when some position has a time.
    var hasTimes: Bool { firstWith != nil }

    /// Adds the next position's time (nil: it has none), found at `location`.
    mutating func add(_ time: Int64?, at location: InputError.Location) {
        defer { count += 1 }
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

    /// Forgets the last `dropped` positions (a GPX segment too short to keep), as if they had never been added.
    mutating func dropLast(_ dropped: Int) {
        let dropped = min(dropped, count)
        count -= dropped
        times.removeLast(min(dropped, times.count))
        if let mark = firstWith, mark.index >= count {
            firstWith = nil
            times = []
        }
        if let mark = firstWithout, mark.index >= count { firstWithout = nil }
        if let backwards = firstBackwards, backwards.mark.index >= count { firstBackwards = nil }
        previous = times.last(where: { $0 != Self.missing })
    }

    /// The route's times (nil when no position has one), or the error: partial times, or a time before the one
    /// before it.
    func finish() throws(InputError) -> [Int64]? {
        try checkAllOrNone()
        if let backwards = firstBackwards { throw backwardsError(backwards) }
        return firstWith == nil ? nil : times
    }

    /// The route's times as `finish()` gives them, but with `byTime` the positions are first put in time order
    /// (stable: equal times keep their order), `items` (the positions, one per time) along with them, so that
    /// times going back are no error.
    func finish<Item>(reordering items: inout [Item], byTime: Bool) throws(InputError) -> [Int64]? {
        guard byTime, firstBackwards != nil else { return try finish() }
        try checkAllOrNone()
        guard items.count == times.count else { return try finish() }
        let order = times.indices.sorted { (times[$0], $0) < (times[$1], $1) }
        items = order.map { items[$0] }
        return order.map { times[$0] }
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
