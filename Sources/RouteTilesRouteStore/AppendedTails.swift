/// How a durable store keeps appends cheap: the positions appended to a route are stored apart from its line, one
/// row per append (the SQLite store's feed rows, PostgreSQL's `<table>_tails`), and folded into the stored line later. An append then writes
/// what it adds, whatever the length of the route, and a fold rewrites a route only once its tail is as long as a
/// fixed share of its line: the bytes a fold writes, spread over the appends it folds, stay a constant per
/// position (`AppendedTails.foldShare`).
///
/// This keeps the counts a store needs to decide when to fold, per route key: the positions of the stored line and
/// of its tail. Counts are a heuristic kept in the process's memory: learnt from the store on the first append to a
/// route (`learn`), then followed. Another process's appends or folds make them wrong only in when a fold happens,
/// never in what a route holds, since a fold reads the tail it folds from the store.
package struct AppendedTails: Sendable {
    /// The positions of a route's stored line and of the tail appended since its last fold.
    package struct Counts: Sendable, Equatable {
        package var line: Int
        package var tail: Int

        package init(line: Int, tail: Int) {
            self.line = line
            self.tail = tail
        }
    }

    /// A route is folded once its tail holds this many positions, or `1 / foldShare` of its line if more: a fold
    /// of a line of n positions then comes after n / 2 appended positions at the least, so it costs about 2
    /// positions' bytes per position appended.
    package static let foldShare = 2
    package static let minimumFold = 512

    private var counts: [String: Counts] = [:]

    package init() {}

    /// The counts of `key`, if known.
    package func counts(of key: String) -> Counts? { counts[key] }

    /// Records what the store holds for `key`.
    package mutating func learn(_ key: String, _ known: Counts) { counts[key] = known }

    /// Counts `added` positions appended to `key`; true when the route is due for a fold.
    package mutating func append(_ added: Int, to key: String) -> Bool {
        guard var known = counts[key] else { return false }
        known.tail += added
        counts[key] = known
        return Self.isDue(line: known.line, tail: known.tail)
    }

    /// Whether a tail of `tail` positions on a line of `line` is long enough to fold.
    package static func isDue(line: Int, tail: Int) -> Bool { tail >= max(minimumFold, line / foldShare) }

    /// The route's tail is now part of its line.
    package mutating func folded(_ key: String) {
        guard let known = counts[key] else { return }
        counts[key] = Counts(line: known.line + known.tail, tail: 0)
    }




    /// The route was replaced or removed: its counts are learnt again on its next append.
    package mutating func forget(_ key: String) { counts[key] = nil }
}
