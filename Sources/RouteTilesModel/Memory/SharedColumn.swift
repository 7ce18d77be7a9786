import Synchronization

/// A column of values (a route set's x, y or distance per vertex) that the snapshots of a growing route share.
///
/// A live track grows by appends, and readers keep using the snapshot they hold while a writer builds the next one.
/// With arrays, every append copied the whole column for the new snapshot. Here the views of successive snapshots
/// share one storage: a view of `count` values that ends where the storage's writing ended appends in place, past
/// the end of every older view, so an append costs its new values. Any other append (from an older view, or past
/// the capacity) copies into new storage, with room to grow.
///
/// Values below a view's `count` never change once written, so readers need no lock: a view reaches another thread
/// only through the snapshot that publishes it. Appends to views of one storage must come from one writer at a time
/// (live route sets let writers take turns); a compare-and-exchange on the written count keeps two racing appends
/// from writing the same slots, the loser copying instead.
@_spi(Columns) public struct SharedColumn<Element: BitwiseCopyable & Sendable>: Sendable {
    // The reads and the appends are public to the package's modules only, as the SPI `Columns`, and @inlinable with
    // what they touch @usableFromInline: the projection and tiling modules read a column per vertex, and Swift
    // inlines across modules only public code (an `@inlinable package` function is still called). A call per value
    // and an unspecialized generic append cost a build a fifth of its time (Docs/ARCHITECTURE.md, "The modules").
    @usableFromInline final class Storage: @unchecked Sendable {
        // @unchecked: `values` is written only at slots no view can read yet (see `written`), then only read.
        @usableFromInline let values: UnsafeMutablePointer<Element>
        @usableFromInline let capacity: Int
        /// How many slots hold values: a view of exactly this many may append in place.
        @usableFromInline let written: Atomic<Int>

        /// Where the values live when a `SpillSpace` holds them.
        private let spill: (space: SpillSpace, id: Int)?

        @usableFromInline init(capacity: Int) {
            self.capacity = Swift.max(capacity, 16)
            written = Atomic(0)
            let bytes = self.capacity * MemoryLayout<Element>.stride
            if bytes >= SpillSpace.minimumBytes, let space = SpillSpace.current,
               let region = space.allocate(bytes: bytes) {
                values = region.pointer.bindMemory(to: Element.self, capacity: self.capacity)
                spill = (space, region.id)
            } else {
                values = .allocate(capacity: self.capacity)
                spill = nil
            }
        }

        deinit {
            if let spill {
                spill.space.release(spill.id)
            } else {
                values.deallocate()
            }
        }

        var isSpilled: Bool { spill != nil }

        /// Copies `count` values from `source` in chunks of 16 MB. When either side lives in a spill space, each
        /// chunk's pages are given back as soon as it is copied, so that moving a large column to a larger file
        /// never holds both whole in memory.
        func initialize(copying source: Storage, count: Int) {
            let chunk = Swift.max(1, (16 << 20) / MemoryLayout<Element>.stride)
            var start = 0
            while start < count {
                let n = Swift.min(chunk, count - start)
                (values + start).initialize(from: source.values + start, count: n)
                source.giveBack(start, n)
                giveBack(start, n)
                start += n
            }
        }

        /// Unmaps the whole pages of values `start ..< start + count` from the process, if they are in a spill file
        /// (their contents stay in the file).
        func giveBack(_ start: Int, _ count: Int) {
            guard spill != nil else { return }
            let page = SpillSpace.pageSize
            let from = (UInt(bitPattern: values + start) + UInt(page - 1)) / UInt(page) * UInt(page)
            let to = UInt(bitPattern: values + start + count) / UInt(page) * UInt(page)
            guard to > from, let address = UnsafeMutableRawPointer(bitPattern: from) else { return }
            SpillSpace.adviseDontNeed(address, Int(to - from))
        }
    }

    @usableFromInline var storage: Storage
    /// The number of values in this view.
    @usableFromInline var viewCount: Int
    /// The number of values in this view.
    @_spi(Columns) @inlinable public var count: Int { viewCount }

    package init() {
        storage = Storage(capacity: 16)
        viewCount = 0
    }

    package init(_ values: some Collection<Element>) {
        self.init()
        append(contentsOf: values)
    }

    /// Makes room for `total` values: moves this view to storage of that capacity when it has less (as building
    /// a set does once, before its first value).
    package mutating func reserveCapacity(_ total: Int) {
        guard total > storage.capacity else { return }
        moveToNewStorage(capacity: total)
    }

    @_spi(Columns) @inlinable public mutating func append(_ value: Element) {
        append(contentsOf: CollectionOfOne(value))
    }

    @_spi(Columns) @inlinable public mutating func append(contentsOf values: some Collection<Element>) {
        let added = values.count
        guard added > 0 else { return }
        if count + added > storage.capacity || !claim(added) {
            moveToNewStorage(capacity: Swift.max(count + added, storage.capacity * 2))
            guard claim(added) else { preconditionFailure("new storage is not shared") }
        }
        var slot = storage.values + count
        for value in values {
            slot.initialize(to: value)
            slot += 1
        }
        viewCount += added
    }

    /// Claims the slots `count ..< count + added` of the storage: possible only when this view ends where the
    /// storage's writing does.
    @usableFromInline func claim(_ added: Int) -> Bool {
        storage.written.compareExchange(expected: count, desired: count + added, ordering: .relaxed).exchanged
    }

    @usableFromInline mutating func moveToNewStorage(capacity: Int) {
        let new = Storage(capacity: capacity)
        new.initialize(copying: storage, count: count)
        new.written.store(count, ordering: .relaxed)
        storage = new
    }

    /// `count` values, all `value`, in storage of exactly that capacity (in a spill space when one is current).
    package init(repeating value: Element, count: Int) {
        storage = Storage(capacity: count)
        // A spill file reads as zeros already: touching every page to write zeros would bring it all in.
        let zero = withUnsafeBytes(of: value) { $0.allSatisfy { $0 == 0 } }
        if !(zero && storage.isSpilled) { storage.values.initialize(repeating: value, count: count) }
        storage.written.store(count, ordering: .relaxed)
        viewCount = count
    }

    /// The first `count` values, as a view of the same storage: appending to it copies them out first.
    package func prefix(count: Int) -> SharedColumn {
        var view = self
        view.viewCount = Swift.min(Swift.max(count, 0), self.count)
        return view
    }

    /// Writes into the values of a column no other view has seen yet (one just made with `init(repeating:count:)`).
    @_spi(Columns) @inlinable public mutating func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: storage.values, count: count))
    }

    /// Whether this view and `other` use the same storage (for tests: appends in place keep it).
    func sharesStorage(with other: SharedColumn) -> Bool {
        storage === other.storage
    }

    @_spi(Columns) @inlinable public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage.values, count: count))
    }
}

extension SharedColumn: RandomAccessCollection {
    @_spi(Columns) @inlinable public var startIndex: Int { 0 }
    @_spi(Columns) @inlinable public var endIndex: Int { count }

    @_spi(Columns) @inlinable public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "index out of range")
        return storage.values[position]
    }
}

extension SharedColumn: Equatable where Element: Equatable {
    @_spi(Columns) public static func == (a: SharedColumn, b: SharedColumn) -> Bool {
        a.elementsEqual(b)
    }
}
