/// A value that can key an `IndexTable`: equality and a 64-bit hash over exactly what a tile stores.
protocol IndexTableKey: Equatable, Sendable {
    var tableHash: UInt64 { get }
}

/// An insertion-ordered set that numbers its elements 0, 1, 2, … in the order they were first added: the key and
/// value tables of a layer.
///
/// Open addressing with linear probing over a power-of-two slot array, at most half full, with hashes kept beside the
/// elements so that growing never hashes again. It is several times cheaper per lookup than `Dictionary`, whose
/// per-lookup `Hasher` setup dominates for the short strings of route properties. The hash is not seeded: the
/// strings come from the operator's route files, not from clients.
struct IndexTable<Element: IndexTableKey>: Sendable {
    private(set) var elements: [Element] = []
    private var hashes: [UInt64] = []
    /// 0 for an empty slot, else the element's index + 1.
    private var slots: [UInt32] = []
    /// 64 - log2(slots.count): the slot of a hash is its top bits after mixing.
    private var shift: UInt64 = 64

    var count: Int { elements.count }

    /// The index of `element`, adding it at the end when new.
    mutating func index(of element: Element) -> (index: UInt32, inserted: Bool) {
        if slots.isEmpty { resize(slotCount: 16) }
        let hash = element.tableHash
        var slot = slotIndex(hash)
        while true {
            let stored = slots[slot]
            if stored == 0 { break }
            let index = Int(stored) - 1
            if hashes[index] == hash, elements[index] == element { return (stored - 1, false) }
            slot = (slot + 1) & (slots.count - 1)
        }
        let index = UInt32(truncatingIfNeeded: elements.count)
        elements.append(element)
        hashes.append(hash)
        slots[slot] = index + 1
        if elements.count * 2 > slots.count { resize(slotCount: slots.count * 2) }
        return (index, true)
    }

    @inline(__always)
    private func slotIndex(_ hash: UInt64) -> Int {
        // Fibonacci hashing spreads any hash over the top bits.
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func resize(slotCount: Int) {
        slots = [UInt32](repeating: 0, count: slotCount)
        shift = UInt64(64 - (slotCount.trailingZeroBitCount))
        for (index, hash) in hashes.enumerated() {
            var slot = slotIndex(hash)
            while slots[slot] != 0 { slot = (slot + 1) & (slotCount - 1) }
            slots[slot] = UInt32(truncatingIfNeeded: index + 1)
        }
    }
}
