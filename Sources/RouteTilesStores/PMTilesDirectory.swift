import RouteTilesModel

/// A PMTiles directory: entries sorted by tile id. An entry with a run length of 0 points to a leaf directory;
/// otherwise it addresses `runLength` consecutive tile ids holding the same bytes.
struct PMTilesEntry: Equatable {
    var tileID: UInt64
    var offset: UInt64
    var length: UInt32
    var runLength: UInt32
}

enum PMTilesDirectory {
    /// Serialises entries as the spec lays them out: the count, then the tile ids as deltas, the run lengths,
    /// the lengths, and the offsets (0 when an entry follows the previous one directly, else offset + 1), each as
    /// unsigned LEB128 varints. Not compressed.
    static func encode(_ entries: ArraySlice<PMTilesEntry>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 6 + 8)
        varint(UInt64(entries.count), into: &out)
        var last: UInt64 = 0
        for e in entries {
            varint(e.tileID - last, into: &out)
            last = e.tileID
        }
        for e in entries { varint(UInt64(e.runLength), into: &out) }
        for e in entries { varint(UInt64(e.length), into: &out) }
        var previous: PMTilesEntry?
        for e in entries {
            if let p = previous, e.offset == p.offset + UInt64(p.length) {
                varint(0, into: &out)
            } else {
                varint(e.offset + 1, into: &out)
            }
            previous = e
        }
        return out
    }

    /// Parses an uncompressed directory; `source` names the file in errors.
    static func decode(_ bytes: [UInt8], source: String) throws -> [PMTilesEntry] {
        var at = 0
        func next() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard at < bytes.count, shift < 64 else {
                    throw StoreError(path: source, message: "PMTiles directory truncated or malformed at byte \(at)")
                }
                let b = bytes[at]
                at += 1
                value |= UInt64(b & 0x7f) << shift
                if b < 0x80 { return value }
                shift += 7
            }
        }
        let count = try next()
        guard count <= UInt64(bytes.count) else {
            throw StoreError(path: source, message: "PMTiles directory claims \(count) entries in \(bytes.count) bytes")
        }
        var entries = [PMTilesEntry](repeating: PMTilesEntry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
        var id: UInt64 = 0
        for i in entries.indices {
            id += try next()
            entries[i].tileID = id
        }
        for i in entries.indices { entries[i].runLength = UInt32(truncatingIfNeeded: try next()) }
        for i in entries.indices { entries[i].length = UInt32(truncatingIfNeeded: try next()) }
        for i in entries.indices {
            let v = try next()
            if v == 0 {
                guard i > 0 else { throw StoreError(path: source, message: "PMTiles directory: first offset is 0") }
                entries[i].offset = entries[i - 1].offset + UInt64(entries[i - 1].length)
            } else {
                entries[i].offset = v - 1
            }
        }
        return entries
    }

    static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// The entry addressing `id` or the leaf that may hold it: the last entry whose id is not above `id`.
    static func find(_ id: UInt64, in entries: [PMTilesEntry]) -> PMTilesEntry? {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].tileID <= id { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0 else { return nil }
        let e = entries[lo - 1]
        if e.runLength == 0 || id < e.tileID + UInt64(e.runLength) { return e }
        return nil
    }
}
