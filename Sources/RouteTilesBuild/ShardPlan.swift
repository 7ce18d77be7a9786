import Foundation
import RouteTilesModel

/// How a pyramid is divided between the `count` shards of a sharded build (`build --shard i/n`), so that each can
/// run on its own machine and a join of their outputs equals a single build, tile for tile.
///
/// Every tile at `splitZoom` or deeper belongs to the shard that owns its ancestor at `splitZoom`. Those ancestors
/// are ordered along the Hilbert curve of that zoom and cut into `count` runs: shard `k` (k ≥ 1) starts at position
/// `starts[k − 1]`. The tiles above `splitZoom` belong to shard 0. A plan is found from a survey of every route
/// (`ShardSurvey`), so that the runs carry about the same work, not the same area; every shard finds the same plan
/// from the same input.
public struct ShardPlan: Sendable, Equatable, CustomStringConvertible {
    /// The number of shards.
    public let count: Int
    /// The zoom whose tiles are divided between the shards; shallower tiles belong to shard 0.
    public let splitZoom: Int
    /// Hilbert positions at `splitZoom` where shards 1, 2, … begin; `count − 1` of them, never decreasing.
    public let starts: [UInt64]

    /// A plan, or an error naming what does not fit together.
    public init(count: Int, splitZoom: Int, starts: [UInt64]) throws {
        guard count >= 1 else { throw ShardPlanError("a plan needs at least one shard, not \(count)") }
        guard (0...TileID.maxZoom).contains(splitZoom) else {
            throw ShardPlanError("split zoom \(splitZoom) is not in 0...\(TileID.maxZoom)")
        }
        guard starts.count == count - 1 else {
            throw ShardPlanError("\(count) shards need \(count - 1) starts, not \(starts.count)")
        }
        guard zip(starts, starts.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw ShardPlanError("the starts \(starts) decrease")
        }
        self.count = count
        self.splitZoom = splitZoom
        self.starts = starts
    }

    /// The shard that writes `tile`.
    public func owner(of tile: TileID) -> Int {
        guard tile.z >= splitZoom else { return 0 }
        let shift = tile.z - splitZoom
        let position = TileID(z: splitZoom, x: tile.x >> shift, y: tile.y >> shift).hilbertIndex
        return owner(atPosition: position)
    }

    /// The shard owning the tile at `splitZoom` whose Hilbert position is `position`: the number of starts at or
    /// before it.
    func owner(atPosition position: UInt64) -> Int {
        var low = 0, high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] <= position { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The shard count, split zoom and starts, for messages.
    public var description: String {
        "\(count) shards split at zoom \(splitZoom)" + (starts.isEmpty ? "" : ", starting at " + starts.map(String.init).joined(separator: ","))
    }
}

/// A plan that cannot be used, or a shard label that does not parse.
public struct ShardPlanError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
