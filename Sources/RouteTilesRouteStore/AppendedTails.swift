import RouteTilesModel

/// How a durable store keeps appends cheap: the positions appended to a route are stored apart from its line, one
/// row per append (the feed's append rows newer than the route's version, in SQLite and PostgreSQL alike), and
/// folded into the stored line later. An append then writes what it adds, whatever the length of the route, and a
/// fold rewrites a route only once its tail is as long as a fixed share of its line: the bytes a fold writes,
/// spread over the appends it folds, stay a constant per position (`AppendedTails.foldShare`). Which rows make
/// each tail, and how long it is, each store keeps in a `TailLedger`.
package enum AppendedTails {
    /// A route is folded once its tail holds this many positions, or `1 / foldShare` of its line if more: a fold
    /// of a line of n positions then comes after n / 2 appended positions at the least, so it costs about 2
    /// positions' bytes per position appended.
    package static let foldShare = 2
    package static let minimumFold = 512

    /// The tail length at which the route under `key`, whose stored line holds `line` positions, is folded: the mark
    /// above, raised by up to half of it again by a hash of the key. Routes that started together (a fleet's
    /// vehicles, created in one import and fed at one rate) would otherwise reach their marks in the same minute and
    /// rewrite every line at once: the spread turns those waves into a steady share of the commits.
    package static func foldMark(key: String, line: Int) -> Int {
        let mark = max(minimumFold, line / foldShare)
        return mark + Int(FNV1a.hash(key) % 64) * mark / 128
    }

    /// Whether a tail of `tail` positions of the route under `key`, on a line of `line`, is long enough to fold.
    package static func isDue(key: String, line: Int, tail: Int) -> Bool { tail >= foldMark(key: key, line: line) }
}
