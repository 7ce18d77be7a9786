extension TileID {
    /// `tiles` in `TileID` order (zoom, then column, then row), each packed into one word (z in the top bits, then x,
    /// then y, which orders valid tiles, z ≤ 28 and x and y below 2^28, as their comparison does) and the words
    /// sorted, from 65,536 of them by a radix sort: four passes of 16 bits, in time linear in the count. A change across the world lists
    /// hundreds of thousands of tiles; comparing them through the standard sort's generic code took half of such a
    /// write in a debug build (what CI's contract run serves) and a noticeable part in a release one.
    package static func sorted<S: Sequence>(_ tiles: S) -> [TileID] where S.Element == TileID {
        var words: [UInt64] = []
        words.reserveCapacity(tiles.underestimatedCount)
        for tile in tiles {
            guard tile.isValid else { return tiles.sorted() }
            words.append(UInt64(tile.z) << 58 | UInt64(tile.x) << 29 | UInt64(tile.y))
        }
        // The radix sort's four passes each clear and sum 65,536 counters: worth it from that many words on.
        if words.count < 1 << 16 { words.sort() } else { radixSort(&words) }
        let mask: UInt64 = (1 << 29) - 1
        return words.map { TileID(z: Int($0 >> 58), x: Int(($0 >> 29) & mask), y: Int($0 & mask)) }
    }

    /// Sorts `words` ascending: least significant 16 bits first, each pass a stable counting sort into the other
    /// buffer.
    private static func radixSort(_ words: inout [UInt64]) {
        var other = [UInt64](repeating: 0, count: words.count)
        var counts = [Int](repeating: 0, count: 1 << 16)
        words.withUnsafeMutableBufferPointer { a in
            other.withUnsafeMutableBufferPointer { b in
                counts.withUnsafeMutableBufferPointer { counts in
                    var source = a, target = b
                    for pass in 0..<4 {
                        let shift = UInt64(pass * 16)
                        for i in 0..<counts.count { counts[i] = 0 }
                        for word in source { counts[Int((word >> shift) & 0xFFFF)] += 1 }
                        var total = 0
                        for i in 0..<counts.count {
                            let n = counts[i]
                            counts[i] = total
                            total += n
                        }
                        for word in source {
                            let digit = Int((word >> shift) & 0xFFFF)
                            target[counts[digit]] = word
                            counts[digit] += 1
                        }
                        swap(&source, &target)
                    }
                    // After an even number of passes the sorted words are back in `a`.
                }
            }
        }
    }
}
