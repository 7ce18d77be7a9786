import RouteTilesModel

/// What a durable store (SQLite, PostgreSQL) keeps in memory of every route: its row version, line size, kind, and
/// the rows of its tail (its appends since the line was last written, which are rows of the change feed), so that
/// no write reads or writes a per-route index and an append reads no row of `routes`. A commit of 100 fixes to as many routes then
/// adds rows at the end of one table, where an index by route made it rewrite about 80 scattered index pages
/// (Docs/BENCHMARKS.md, "Where SQLite's bytes per fix go").
///
/// The ledger is exact for the rows it lists, not a heuristic: it is learnt from the store in one scan (SQLite: at open), and
/// brought up to date from the change feed (`sync`) at the start of every transaction that relies on it. Inside a
/// write transaction no other process can add a row, so a fold knows every tail row of the routes it folds. What the
/// feed does not record, another process's fold, only ever takes rows out of a tail: readers filter the ledger's
/// rows by the route's row version, read in the same transaction (`live(_:rowVersion:)`).
package struct TailLedger: Sendable {
    /// One route's tail: the sequence numbers of its rows in order, with their positions and the last fix time.
    ///
    /// Equal tails list the same rows of the same route state; the positions kept in memory (`points`) are a copy
    /// of what those rows hold, which one ledger may know and another not, and do not count.
    package struct Tail: Sendable, Equatable {
        /// `routes.version` as last seen; rows at or below it are not in the tail.
        package var rowVersion: Int64
        /// Positions of the stored line (for when to fold).
        package var line: Int
        /// Whether the route is a line, which appends extend (its `kind`, or its geometry's type).
        package var isLine = true
        /// Whether the route keeps a time on every position (its geometry has M), and the time of its last position
        /// (its tail's included), which tells a late fix from one that appends.
        package var hasTimes = false
        package var lastTime: Int64?
        package var rows: [Int64] = []
        package var positions = 0
        package var lastFix: Double?
        /// The positions of `rows`, in order, as this process appended them, up to `keptPoints`: they are all of the
        /// tail's when there are as many as `positions` (`knownPoints`), and a fold then reads no tail row. A tail
        /// learnt from the file (its rows listed without their positions), extended by another process's append,
        /// partly folded, or grown past `keptPoints` holds none, and is read from its rows.
        package private(set) var points: [Coordinate] = []

        /// `points`, when they are the positions of every row (a tail with times is read from its rows, which hold
        /// the times too).
        var knownPoints: [Coordinate]? { points.count == positions && !hasTimes ? points : nil }

        package init(rowVersion: Int64, line: Int) {
            self.rowVersion = rowVersion
            self.line = line
        }

        /// The route's version: that of its row, or of the last append to its tail if later.
        package var version: Int64 { max(rowVersion, rows.last ?? 0) }

        package static func == (a: Tail, b: Tail) -> Bool {
            a.rowVersion == b.rowVersion && a.line == b.line && a.isLine == b.isLine && a.hasTimes == b.hasTimes
                && a.lastTime == b.lastTime
                && a.rows == b.rows
                && a.positions == b.positions && a.lastFix == b.lastFix
        }

        /// Adds the positions of the row just counted in `positions`, or lets go of them all when they are not
        /// given, do not make up the count, or pass the cap (the tail is then read from its rows until it folds).
        mutating func keep(_ added: [Coordinate]?) {
            if let added, points.count + added.count == positions, positions <= TailLedger.keptPoints {
                points.append(contentsOf: added)
            } else {
                points = []
            }
        }

        /// Takes the positions of the last row off again, back to `count` (an append rolled back).
        mutating func dropPoints(to count: Int) {
            if points.count >= count { points.removeLast(points.count - count) } else { points = [] }
        }
    }

    /// The most positions a tail keeps in memory: a fleet's tails fold at half their line (Docs/FORMATS.md, "A
    /// route's tail"), so vehicles with tracks of a few thousand positions are held whole, 16 bytes a position. A
    /// longer tail (a track of a million positions) is read from its rows when it folds, once in its many appends.
    package static let keptPoints = 4096

    private(set) var tails: [String: Tail] = [:]
    /// The newest change of the feed the ledger has taken in.
    package private(set) var seen: Int64 = 0
    /// How to undo one change of the ledger (`rollBack(to:)`): put a route's tail back as it was, or take the last
    /// row off a tail an append extended. An append keeps no copy of the tail, whose rows it would then have to
    /// copy to extend them: that made each append cost its route's tail.
    private enum Undo {
        case tail(key: String, Tail?)
        case appended(key: String, positions: Int, lastFix: Double?, lastTime: Int64?, points: Int)
    }
    /// The old values of what a write changed, newest last, for `rollBack(to:)`.
    private var undo: [Undo] = []
    private var undoSeen: [Int64] = []

    package init() {}

    package func tail(of key: String) -> Tail? { tails[key] }

    /// The rows of `key`'s tail newer than `rowVersion` (the version of its row now: another process's fold may
    /// have passed some).
    package func live(_ key: String, rowVersion: Int64) -> [Int64] {
        guard let tail = tails[key] else { return [] }
        return rowVersion > tail.rowVersion ? tail.rows.filter { $0 > rowVersion } : tail.rows
    }

    /// The positions of `live(key, rowVersion:)`, in order, when the ledger knows them all: the rows are its own
    /// appends, and no other process folded any of them (the row's version is not past the tail's). Nil otherwise.
    package func knownPoints(_ key: String, rowVersion: Int64) -> [Coordinate]? {
        guard let tail = tails[key], rowVersion <= tail.rowVersion, !tail.rows.isEmpty else { return nil }
        return tail.knownPoints
    }

    // MARK: Changes

    private mutating func set(_ key: String, _ tail: Tail?) {
        undo.append(.tail(key: key, tails[key]))
        tails[key] = tail
    }

    /// The route under `key` was written whole (put, replace, trim) at `version`, with `line` positions.
    package mutating func reset(_ key: String, version: Int64, line: Int, isLine: Bool, hasTimes: Bool = false,
                                lastTime: Int64? = nil, lastFix: Double?) {
        var tail = Tail(rowVersion: version, line: line)
        tail.isLine = isLine
        tail.hasTimes = hasTimes
        tail.lastTime = lastTime
        tail.lastFix = lastFix
        set(key, tail)
    }

    /// The route under `key` is gone.
    package mutating func remove(_ key: String) {
        set(key, nil)
    }

    /// Adds the row `seq` of `count` positions to `key`'s tail; true when the route is due for a fold. `points`, the
    /// row's positions when the caller has them (its own append), are kept for the fold (`knownPoints`); without
    /// them the tail's positions are read from its rows.
    @discardableResult
    package mutating func append(_ key: String, seq: Int64, count: Int, time: Double?, points: [Coordinate]? = nil,
                                 lastTime: Int64? = nil) -> Bool {
        guard let index = tails.index(forKey: key), seq > tails.values[index].version else { return false }
        undo.append(.appended(key: key, positions: tails.values[index].positions, lastFix: tails.values[index].lastFix,
                              lastTime: tails.values[index].lastTime, points: tails.values[index].points.count))
        if let lastTime { tails.values[index].lastTime = lastTime }
        // In place: the tail's rows are extended, not copied.
        tails.values[index].rows.append(seq)
        tails.values[index].positions += count
        tails.values[index].keep(points)
        if let time { tails.values[index].lastFix = time }
        return AppendedTails.isDue(key: key, line: tails.values[index].line, tail: tails.values[index].positions)
    }

    /// `key`'s tail up to `seq` is now part of its line.
    package mutating func folded(_ key: String, through seq: Int64) {
        guard var tail = tails[key] else { return }
        let kept = tail.rows.filter { $0 > seq }
        tail.line += tail.positions
        tail.rowVersion = max(tail.rowVersion, seq)
        tail.rows = kept
        tail.positions = kept.isEmpty ? 0 : tail.positions
        // Folded whole, the tail is empty and so are its positions; in part, which rows' positions remain is not
        // known here: none are kept, and the rest is read from the rows.
        tail.dropPoints(to: 0)
        set(key, tail)
    }

    /// The feed was read up to `seq`.
    package mutating func saw(_ seq: Int64) {
        undoSeen.append(seen)
        seen = max(seen, seq)
    }

    // MARK: Transactions

    /// Where a write starts, for `rollBack(to:)`.
    package var mark: (undo: Int, seen: Int) { (undo.count, undoSeen.count) }

    /// Undoes what was changed since `mark` (the write's savepoint, or the transaction, was rolled back).
    package mutating func rollBack(to mark: (undo: Int, seen: Int)) {
        while undo.count > mark.undo, let change = undo.popLast() {
            switch change {
            case let .tail(key, tail):
                tails[key] = tail
            case let .appended(key, positions, lastFix, lastTime, points):
                guard let index = tails.index(forKey: key) else { continue }
                tails.values[index].rows.removeLast()
                tails.values[index].positions = positions
                tails.values[index].lastFix = lastFix
                tails.values[index].lastTime = lastTime
                tails.values[index].dropPoints(to: points)
            }
        }
        while undoSeen.count > mark.seen, let old = undoSeen.popLast() { seen = old }
    }

    /// The transaction committed: its changes stay.
    package mutating func keep() {
        undo.removeAll(keepingCapacity: true)
        undoSeen.removeAll(keepingCapacity: true)
    }

    /// Starts again from what the file holds (at open, or when the feed was pruned past `seen`).
    package mutating func replace(with tails: [String: Tail], seen: Int64) {
        self.tails = tails
        self.seen = seen
        undo = []
        undoSeen = []
    }
}
