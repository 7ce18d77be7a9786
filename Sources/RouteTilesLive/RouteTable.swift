import RouteTilesModel
import RouteTilesRouteStore
import RouteTilesTiling

/// What the writers' lock of a `LiveRouteSet` guards: each route's entry by key, the feature order in chunks, the
/// numbering of routes without an id, and the counts the snapshots and `/health` read. Its edits are in
/// RouteTable+Edits.swift.
struct RouteTable: Sendable {
    var entries: [String: LiveRouteEntry] = [:]
    var chunks = ChunkTable()
    /// The number the next route without an id gets (also its feature id).
    var nextNumber: UInt64 = 0
    /// The positions of all the routes.
    var pointCount = 0
    /// How many entries have no cover yet, kept by `store`, `discard` and `LiveRouteSet.fillCovers`, so that
    /// `/health` does not walk every route under the writers' lock.
    var withoutCover = 0

    /// Every key, in feature order.
    var order: [String] { chunks.order }

    /// Keeps `entry` under `key`, and what it draws in its chunk's slot.
    mutating func store(_ entry: LiveRouteEntry, at key: String) {
        if let old = entries.updateValue(entry, forKey: key), old.cover == nil { withoutCover -= 1 }
        if entry.cover == nil { withoutCover += 1 }
        chunks.draw(entry.tiler, position: entry.position, chunk: entry.chunk, slot: entry.slot)
    }

    /// Takes the entry under `key` out of the table, if any (its slot still draws it until `store` or `unplace`).
    mutating func discard(_ key: String) -> LiveRouteEntry? {
        let entry = entries.removeValue(forKey: key)
        if let entry, entry.cover == nil { withoutCover -= 1 }
        return entry
    }

    /// Puts `entry` at the end of the feature order, setting its chunk and slot.
    mutating func place(_ entry: inout LiveRouteEntry, key: String, options: TilingOptions) {
        (entry.chunk, entry.slot) = chunks.append(key, tiler: entry.tiler, position: entry.position, options: options)
    }

    /// Takes the route in `chunk`'s `slot` out of the feature order, and packs the chunks again when removals
    /// have emptied most of them.
    mutating func unplace(chunk: Int, slot: Int) {
        for key in chunks.remove(chunk: chunk, slot: slot) { entries[key]?.slot -= 1 }
        if chunks.isSparse(routeCount: entries.count) {
            chunks.repack { key, chunk, slot in
                entries[key]?.chunk = chunk
                entries[key]?.slot = slot
            }
        }
    }

    /// The key of `route`, giving it the next number when it has no id.
    mutating func assignKey(_ route: inout Route) -> String {
        if let id = route.id {
            if case let .number(n) = id { nextNumber = max(nextNumber, n &+ 1) }
            return LiveRouteSet.key(for: id)
        }
        route.id = .number(nextNumber)
        nextNumber &+= 1
        return LiveRouteSet.key(for: route.id ?? .number(0))
    }

    /// The snapshot of the routes as they are now.
    mutating func snapshot(options: TilingOptions, generation: UInt64) -> LiveRouteSet.Snapshot {
        LiveRouteSet.Snapshot(tilers: chunks.tilerSet(options: options), generation: generation,
                              routeCount: entries.count, pointCount: pointCount)
    }
}
