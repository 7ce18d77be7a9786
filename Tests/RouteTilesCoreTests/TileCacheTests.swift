import RouteTiles
import Testing
import RouteTilesCoreTestSupport

@Suite struct TileCacheTests {
    func entry(_ size: Int) -> TileCache<[UInt8]>.Entry { .init(gzip: [UInt8](repeating: 7, count: size), etag: "\"e\"") }

    @Test func evictsTheLeastRecentlyUsedWithinTheByteBound() {
        let cost = 1000 + 3 + TileCache<[UInt8]>.overhead
        let cache = TileCache<[UInt8]>(capacityBytes: cost * 3)
        let a = TileID(z: 1, x: 0, y: 0), b = TileID(z: 1, x: 1, y: 0), c = TileID(z: 1, x: 0, y: 1), d = TileID(z: 1, x: 1, y: 1)
        for t in [a, b, c] { cache.put(t, entry(1000)) }
        #expect(cache.get(a) != nil)          // a becomes the newest; b is now the oldest
        cache.put(d, entry(1000))
        #expect(cache.get(b) == nil)
        #expect(cache.get(a) != nil && cache.get(c) != nil && cache.get(d) != nil)
        #expect(cache.usage.bytes == cost * 3 && cache.usage.tiles == 3)
        #expect(cache.remove([a, b]) == 1)
        #expect(cache.usage.tiles == 2)
    }

    @Test func aTileLargerThanTheCacheIsNotKept() {
        let cache = TileCache<[UInt8]>(capacityBytes: 500)
        cache.put(TileID(z: 0, x: 0, y: 0), entry(1000))
        #expect(cache.usage.tiles == 0)
    }

    /// A seeded run of puts (some vetoed, some about as large as the cache), gets, removals and clears agrees step
    /// by step with a model LRU bounded in bytes (tile bytes, etag bytes and a fixed overhead per entry): the same
    /// hit or miss and the same entry on every get, the same bytes and tile count after every step, and the same
    /// tiles, in the same order of use, every hundred steps.
    @Test func randomOperationsMatchAModelLRU() {
        var rng = SeededGenerator(seed: 2024)
        let capacity = 6000
        let cache = TileCache<[UInt8]>(capacityBytes: capacity)
        var model = ModelLRU(capacity: capacity)
        var hits = 0, misses = 0, evictions = 0
        let tiles = (0..<12).map { TileID(z: 5, x: $0 % 4, y: $0 / 4) }
        for step in 0..<4000 {
            let tile = tiles.randomElement(using: &rng)!
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<40:
                let got = cache.get(tile), want = model.get(tile)
                #expect(got?.etag == want?.etag && got?.gzip.count == want?.size, "step \(step): get \(tile)")
                if want == nil { misses += 1 } else { hits += 1 }
            case 40..<80:
                let size = Int.random(in: 0..<100, using: &rng) < 8 ? Int.random(in: 5800..<6200, using: &rng)
                                                                     : Int.random(in: 0..<2500, using: &rng)
                let etag = "\"v\(step)\""
                cache.put(tile, entry(size, etag: etag))
                evictions += model.put(tile, size: size, etag: etag)
            case 80..<85:
                cache.put(tile, entry(10, etag: "\"vetoed\""), isCurrent: { false })
            case 85..<99:
                let other = tiles.randomElement(using: &rng)!
                let removed = cache.remove([tile, other])
                #expect(removed == model.remove(tile) + (other == tile ? 0 : model.remove(other)), "step \(step)")
            default:
                cache.removeAll()
                model = ModelLRU(capacity: capacity)
            }
            #expect(cache.usage.bytes == model.bytes && cache.usage.tiles == model.entries.count, "step \(step)")
            #expect(cache.usage.bytes <= capacity)
            if step % 100 == 99 {
                // Touching every tile from the least to the most recently used keeps both orders as they were.
                for tile in model.order {
                    #expect(cache.get(tile)?.etag == model.get(tile)?.etag, "step \(step): \(tile) should be cached")
                }
            }
        }
        #expect(hits > 200 && misses > 200 && evictions > 50, "hits \(hits), misses \(misses), evictions \(evictions)")
    }

    func entry(_ size: Int, etag: String) -> TileCache<[UInt8]>.Entry {
        .init(gzip: [UInt8](repeating: 7, count: size), etag: etag)
    }

    /// The least-recently-used cache written as plainly as possible: a dictionary and the order of use.
    struct ModelLRU {
        let capacity: Int
        /// Least recently used first.
        var order: [TileID] = []
        var entries: [TileID: (size: Int, etag: String)] = [:]
        var bytes = 0

        static func cost(size: Int, etag: String) -> Int { size + etag.utf8.count + TileCache<[UInt8]>.overhead }

        mutating func get(_ tile: TileID) -> (size: Int, etag: String)? {
            guard let entry = entries[tile] else { return nil }
            order.removeAll { $0 == tile }
            order.append(tile)
            return entry
        }

        /// Returns how many other tiles it evicted.
        mutating func put(_ tile: TileID, size: Int, etag: String) -> Int {
            remove(tile)
            let cost = Self.cost(size: size, etag: etag)
            guard cost <= capacity else { return 0 }
            var evicted = 0
            while bytes + cost > capacity, let oldest = order.first {
                remove(oldest)
                evicted += 1
            }
            entries[tile] = (size, etag)
            order.append(tile)
            bytes += cost
            return evicted
        }

        @discardableResult
        mutating func remove(_ tile: TileID) -> Int {
            guard let entry = entries.removeValue(forKey: tile) else { return 0 }
            order.removeAll { $0 == tile }
            bytes -= Self.cost(size: entry.size, etag: entry.etag)
            return 1
        }
    }
}
