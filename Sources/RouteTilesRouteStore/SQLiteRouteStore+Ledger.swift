import RouteTilesModel
import RouteTilesSQLite

/// The SQLite store's `TailLedger`: which feed rows make each route's tail, so that an append reads and writes no row
/// of `routes`, a read of a route finds its tail rows by sequence number, and a fold knows when a tail is long enough.
///
/// The ledger is learnt from the file when the store opens (`learn`), then brought up to date from the feed (`sync`)
/// at the start of every transaction that relies on it; within a write transaction no other process can commit in
/// between. What the feed does not record, another process's fold, only ever takes rows out of a tail, and every
/// read filters the ledger's rows by the route's row version.
extension SQLiteRouteStore {
    /// A route's tail as read: its positions (and their times, when its rows have M), the sequence number of its last
    /// row and when that row arrived.
    struct TailRead {
        var points: [Coordinate] = []
        var last: Int64 = 0
        var lastFix: Double?
        /// The times of the rows with M, in order.
        var times: [Int64] = []
        var rows = 0
        var timedRows = 0

        /// The tail's times: nil when no row has any; a list that cannot fit the positions (so that the route is read
        /// as a bad row) when some rows have times and others not.
        var tailTimes: [Int64]? {
            if timedRows == 0 { return nil }
            return timedRows == rows ? times : []
        }

        /// Adds one feed row's positions (a WKB MultiPoint, with M or without).
        mutating func add(_ wkb: [UInt8]) {
            rows += 1
            guard case let (.points(added), times)? = try? WellKnownBinary.decodeTimed(wkb) else { return }
            points += added
            if let times {
                timedRows += 1
                self.times += times
            }
        }
    }

    /// The number of positions of a feed row's MultiPoint in SQL: 9 + 21 n bytes, or 9 + 29 n with M (its type,
    /// little-endian 1004, is the bytes EC 03).
    static let rowPositions = """
        (length(c.points) - 9) / (CASE WHEN substr(c.points, 2, 2) = x'EC03' THEN 29 ELSE 21 END)
        """

    /// Every route's tail, in one pass over the feed in sequence order.
    static func allTails(_ db: SQLiteDatabase) throws -> [String: TailRead] {
        try tails(db, """
            SELECT c.route_id, c.points, c.seq, c.changed_at FROM route_changes c JOIN routes r ON r.id = c.route_id
            WHERE c.op = 'append' AND c.seq > r.version ORDER BY c.seq
            """)
    }

    /// Each route's tail from the rows of `sql`: route id, points (WKB), sequence and fix time, in sequence order.
    static func tails(_ db: SQLiteDatabase, _ sql: String) throws -> [String: TailRead] {
        let s = try db.prepare(sql)
        var tails: [String: TailRead] = [:]
        while try s.step() {
            let key = s.text(0) ?? ""
            var tail = tails[key] ?? TailRead()
            tail.add(s.blob(1))
            tail.last = s.int64(2)
            tail.lastFix = s.double(3)
            tails[key] = tail
        }
        return tails
    }

    /// The rows `seqs` of one route's tail, read by primary key, in order.
    static func tail(_ seqs: [Int64], _ db: SQLiteDatabase) throws -> TailRead {
        let s = try db.cached("SELECT points, changed_at FROM route_changes WHERE seq = ?")
        var tail = TailRead()
        for seq in seqs {
            s.bind(1, seq)
            if try s.step() {
                tail.add(s.blob(0))
                tail.last = seq
                tail.lastFix = s.double(1)
            }
            s.reset()
        }
        return tail
    }

    /// Whether a row's `kind` (or, when it has none, its geometry's first bytes) makes it a line.
    static func isLine(kind: String?, header: [UInt8]) -> Bool {
        kind == nil ? WellKnownBinary.startsALine(header) : kind == "line"
    }

    /// What `learn` and `relearn` read of a route's row: version, line size, fix time, kind and geometry header
    /// (which tells whether the route has times, and its kind when the row has none).
    static let ledgerColumns = """
        version, length(geom) / 16, fixed_at, kind, substr(geom, 1, 5), substr(geom, -8)
        """

    /// The time of a position whose M is the 8 bytes `bytes` (little-endian: RouteTiles writes nothing else), nil
    /// when they are no time.
    static func lastTime(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count == 8 else { return nil }
        var bits: UInt64 = 0
        for (i, byte) in bytes.enumerated() { bits |= UInt64(byte) << (8 * UInt64(i)) }
        return TimeValue.seconds(Double(bitPattern: bits))
    }

    /// The last 8 bytes of a feed row's MultiPoint when it has M (its last time), else NULL.
    static let rowLastM = "CASE WHEN substr(c.points, 2, 2) = x'EC03' THEN substr(c.points, -8) END"

    /// The ledger entry of a row read with `ledgerColumns` from column `first` on.
    static func ledgerTail(_ s: SQLiteDatabase.Statement, from first: Int32) -> TailLedger.Tail {
        var tail = TailLedger.Tail(rowVersion: s.int64(first), line: s.int(first + 1))
        tail.lastFix = s.isNull(first + 2) ? nil : s.double(first + 2)
        let header = s.blob(first + 4)
        tail.isLine = isLine(kind: s.text(first + 3), header: header)
        tail.hasTimes = WellKnownBinary.hasTimes(header)
        if tail.hasTimes { tail.lastTime = lastTime(s.blob(first + 5)) }
        return tail
    }

    /// The ledger as the file holds it: every route's row version, line size, kind and tail rows, in one pass over
    /// the routes and one over the feed's append rows.
    static func learn(_ db: SQLiteDatabase) throws -> (tails: [String: TailLedger.Tail], seen: Int64) {
        var tails: [String: TailLedger.Tail] = [:]
        let routes = try db.prepare("SELECT id, \(ledgerColumns) FROM routes")
        while try routes.step() {
            tails[routes.text(0) ?? ""] = ledgerTail(routes, from: 1)
        }
        let rows = try db.prepare("""
            SELECT c.route_id, c.seq, \(rowPositions), c.changed_at, \(rowLastM) FROM route_changes c
            JOIN routes r ON r.id = c.route_id WHERE c.op = 'append' AND c.seq > r.version ORDER BY c.seq
            """)
        while try rows.step() {
            let key = rows.text(0) ?? ""
            guard var tail = tails[key] else { continue }
            tail.rows.append(rows.int64(1))
            tail.positions += rows.int(2)
            tail.lastFix = rows.double(3)
            if !rows.isNull(4) { tail.lastTime = lastTime(rows.blob(4)) }
            tails[key] = tail
        }
        return (tails, try db.int64("SELECT COALESCE(MAX(seq), 0) FROM route_changes"))
    }

    /// Brings the ledger up to date with the changes committed after the last it took in (another process's: this
    /// one's own update it as they are written). Within a write transaction, nothing can commit in between.
    static func sync(_ db: SQLiteDatabase, _ ledger: inout TailLedger) throws {
        let s = try db.cached("""
            SELECT c.seq, c.route_id, c.op, \(rowPositions), c.changed_at, \(rowLastM) FROM route_changes c
            WHERE c.seq > ? ORDER BY c.seq
            """)
        s.bind(1, ledger.seen)
        defer { s.reset() }
        while try s.step() {
            let seq = s.int64(0)
            if seq > ledger.seen + 1 {
                // Changes were pruned past what the ledger took in (a prune leaves the rows still in a tail, so
                // the hole may follow some): learn it all again.
                s.reset()
                let learnt = try learn(db)
                ledger.replace(with: learnt.tails, seen: learnt.seen)
                return
            }
            let key = s.text(1) ?? ""
            switch s.text(2) {
            case "append":
                ledger.append(key, seq: seq, count: s.isNull(3) ? 0 : max(0, s.int(3)), time: s.double(4),
                              lastTime: s.isNull(5) ? nil : lastTime(s.blob(5)))
            case "delete":
                ledger.remove(key)
            default:
                if try !relearn(key, db, &ledger) { ledger.remove(key) }
            }
            ledger.saw(seq)
        }
    }

    /// Sets the ledger's entry for `key` from its row as it is now, with an empty tail; false when there is no row.
    static func relearn(_ key: String, _ db: SQLiteDatabase, _ ledger: inout TailLedger) throws -> Bool {
        let row = try db.cached("SELECT \(ledgerColumns) FROM routes WHERE id = ?")
        defer { row.reset() }
        row.bind(1, key)
        guard try row.step() else { return false }
        let tail = ledgerTail(row, from: 0)
        ledger.reset(key, version: tail.rowVersion, line: tail.line, isLine: tail.isLine, hasTimes: tail.hasTimes,
                     lastTime: tail.lastTime, lastFix: tail.lastFix)
        return true
    }

    /// The route stored under `key` with its tail, if any (the ledger brought up to date in this transaction).
    static func read(_ key: String, _ db: SQLiteDatabase, _ ledger: TailLedger) throws -> StoredRow? {
        let s = try db.cached("SELECT \(rowColumns) FROM routes WHERE id = ?")
        defer { s.reset() }
        s.bind(1, key)
        guard try s.step() else { return nil }
        return row(s, tail: try tail(of: key, rowVersion: s.int64(1), db, ledger))
    }

    /// `key`'s tail past `rowVersion` (its row's version, read in this transaction): from the positions the ledger
    /// kept when it knows them all, with the fix time of the last row (one lookup); otherwise row by row.
    static func tail(of key: String, rowVersion: Int64, _ db: SQLiteDatabase, _ ledger: TailLedger) throws -> TailRead {
        let rows = ledger.live(key, rowVersion: rowVersion)
        guard let points = ledger.knownPoints(key, rowVersion: rowVersion), let last = rows.last else {
            return try tail(rows, db)
        }
        let time = try db.cached("SELECT changed_at FROM route_changes WHERE seq = ?")
        defer { time.reset() }
        time.bind(1, last)
        // The ledger lists only rows it saw written in this file: a row missing is a broken file, read row by row.
        guard try time.step() else { return try tail(rows, db) }
        return TailRead(points: points, last: last, lastFix: time.double(0), rows: rows.count)
    }

    /// Writes `tail` at the end of `key`'s stored line `wkb`, with the version of the tail's last row and its fix
    /// time: the route reads the same, and the tail's rows leave it (none is deleted). False when the positions do not
    /// extend that geometry; nothing is written then.
    static func writeTail(_ tail: TailRead, onto wkb: [UInt8], of key: String, in db: SQLiteDatabase) throws -> Bool {
        guard let spliced = try? WellKnownBinary.appending(tail.points, times: tail.tailTimes, to: wkb) else { return false }
        let update = try db.cached("UPDATE routes SET geom = ?, version = MAX(version, ?), fixed_at = ? WHERE id = ?")
        update.bind(1, spliced)
        update.bind(2, tail.last)
        if let fix = tail.lastFix { update.bind(3, fix) } else { update.bindNull(3) }
        update.bind(4, key)
        try update.run()
        return true
    }

    /// Folds the tails of `keys` into their lines, within the caller's write transaction: the routes read the same
    /// before and after, so no change is recorded and versions stay. The ledger, brought up to date in the same
    /// transaction, lists every row of each tail; the row's version, read here, leaves out rows another process
    /// folded already.
    static func fold(_ keys: [String], in db: SQLiteDatabase, ledger: inout TailLedger) throws {
        let read = try db.cached("SELECT geom, version FROM routes WHERE id = ?")
        for key in keys {
            read.bind(1, key)
            guard try read.step() else { read.reset(); continue }
            let wkb = read.blob(0)
            let rowVersion = read.int64(1)
            read.reset()
            let tail = try Self.tail(of: key, rowVersion: rowVersion, db, ledger)
            guard !tail.points.isEmpty, try writeTail(tail, onto: wkb, of: key, in: db) else { continue }
            ledger.folded(key, through: tail.last)
        }
    }
}
