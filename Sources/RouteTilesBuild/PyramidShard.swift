import Foundation
import RouteTilesGeo
import RouteTilesModel
import RouteTilesTiling

/// Shard `index` of a `ShardPlan`: which tiles it writes, which subtrees the pyramid builder descends into for
/// it, and which routes it must hold.
public struct PyramidShard: Sendable, Equatable, CustomStringConvertible {
    /// The plan this shard is part of.
    public let plan: ShardPlan
    /// The shard's number, in `0..<plan.count`.
    public let index: Int

    /// Shard `index` of `plan`.
    /// - Throws: ``ShardPlanError`` when `index` is not in `0..<plan.count`.
    public init(plan: ShardPlan, index: Int) throws {
        guard (0..<plan.count).contains(index) else {
            throw ShardPlanError("shard \(index) is not one of 0..<\(plan.count)")
        }
        self.plan = plan
        self.index = index
    }

    /// Whether this shard writes `tile`.
    public func writes(_ tile: TileID) -> Bool { plan.owner(of: tile) == index }

    /// Whether any tile of `tile`'s subtree is this shard's: always above the split zoom, where the subtree reaches
    /// below it; at and below, when the tile is its own.
    func descends(into tile: TileID) -> Bool { tile.z < plan.splitZoom || writes(tile) }

    /// Whether this shard writes tiles above the split zoom within `options`' zooms, which every route may reach.
    func writesTop(_ options: TilingOptions) -> Bool { index == 0 && options.minZoom < plan.splitZoom }

    /// Whether a route drawn as `lines` (see `ProjectedRouteSet.drawnLines`) may have a feature in a tile this shard
    /// writes: a segment's box, in any world copy, meets the buffered box of one of its tiles at the split zoom (a
    /// deeper tile's buffered box lies inside its ancestor's). Errs on the side of holding a route: one that it holds
    /// needlessly changes no tile.
    public func needs(_ lines: [[Coordinate]], options: TilingOptions) -> Bool {
        if writesTop(options) { return true }
        let z = plan.splitZoom
        let n = 1 << z
        let size = WebMercator.tileSize(zoom: z)
        let pad = size * Double(options.buffer) / Double(options.extent) + 1
        var lastPosition = UInt64.max, lastOwned = false
        func owns(_ x: Int, _ y: Int) -> Bool {
            let position = TileID(z: z, x: x, y: y).hilbertIndex
            if position != lastPosition {
                lastPosition = position
                lastOwned = plan.owner(atPosition: position) == index
            }
            return lastOwned
        }
        for line in lines {
            var previous = WebMercator.project(line[0])
            for c in line {
                let p = WebMercator.project(c)
                defer { previous = p }
                let minY = min(p.y, previous.y) - pad, maxY = max(p.y, previous.y) + pad
                let y0 = max(Int((minY / size).rounded(.down)), 0), y1 = min(Int((maxY / size).rounded(.down)), n - 1)
                guard y0 <= y1 else { continue }
                for shift in -1...1 {
                    let dx = Double(shift) * WebMercator.worldSize
                    let minX = min(p.x, previous.x) + dx - pad, maxX = max(p.x, previous.x) + dx + pad
                    let x0 = max(Int((minX / size).rounded(.down)), 0), x1 = min(Int((maxX / size).rounded(.down)), n - 1)
                    guard x0 <= x1 else { continue }
                    for y in y0...y1 {
                        for x in x0...x1 where owns(x, y) { return true }
                    }
                }
            }
        }
        return false
    }

    /// The shard as `index/count`, for messages.
    public var description: String { "shard \(index)/\(plan.count)" }
}

extension PyramidShard {
    /// The shard and its plan as one line of JSON, for a tileset's metadata.
    public var label: String {
        let starts = plan.starts.map(String.init).joined(separator: ",")
        return "{\"shard\":\(index),\"of\":\(plan.count),\"split_zoom\":\(plan.splitZoom),\"starts\":[\(starts)]}"
    }

    /// Reads `label` back.
    public init(label: String) throws {
        guard let read = try? JSONDecoder().decode(Label.self, from: Data(label.utf8)) else {
            throw ShardPlanError("'\(label)' is not a shard label")
        }
        try self.init(plan: ShardPlan(count: read.of, splitZoom: read.split_zoom, starts: read.starts), index: read.shard)
    }

    /// The members of `label`.
    private struct Label: Decodable {
        var shard: Int
        var of: Int
        var split_zoom: Int
        var starts: [UInt64]
    }
}
