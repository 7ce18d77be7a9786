import Foundation
import RouteTilesBuild

/// Joins the outputs of the shards of a sharded build into one tileset, as `tile-join` joins tippecanoe's: every
/// tile of every part, and the whole tileset's metadata (which each part carries). The result equals a single build
/// with the same options, tile for tile.
///
/// The parts must be the shards of one plan, each exactly once, with the same metadata but for the name; each must
/// hold only tiles its shard owns. Anything else is an error naming the part (a tile in the wrong part is found as
/// the tiles are copied; the caller then aborts the store).
public struct TilesetJoin {
    /// A part and where it was read from, for errors.
    public struct Part {
        /// Where the part was read from.
        public let path: String
        /// The part's tiles and metadata.
        public let source: any TileSource

        /// A part read from `path`.
        public init(path: String, source: any TileSource) {
            self.path = path
            self.source = source
        }
    }

    /// The parts, as given.
    public let parts: [Part]
    /// The metadata of the joined tileset: the parts', without the shard.
    public let metadata: TilesetMetadata

    /// Checks that `parts` fit together.
    public init(parts: [Part]) throws {
        guard let first = parts.first else { throw JoinError("no parts to join") }
        guard let firstShard = first.source.metadata.shard else {
            throw JoinError("\(first.path) is not the output of a shard (no '\(TilesetMetadata.shardKey)' in its metadata); build parts with build --shard i/n")
        }
        var seen: [Int: String] = [:]
        for part in parts {
            guard let shard = part.source.metadata.shard else {
                throw JoinError("\(part.path) is not the output of a shard (no '\(TilesetMetadata.shardKey)' in its metadata)")
            }
            guard shard.plan == firstShard.plan else {
                throw JoinError("\(part.path) was built for another plan (\(shard.plan)) than \(first.path) (\(firstShard.plan)): "
                    + "were they built from the same input with the same options and shard count?")
            }
            if let other = seen[shard.index] {
                throw JoinError("\(part.path) and \(other) are both shard \(shard.index)/\(shard.plan.count)")
            }
            seen[shard.index] = part.path
            // A PMTiles part's header gives the zooms of the tiles it holds, which differ between parts.
            var mine = part.source.metadata, theirs = first.source.metadata
            (mine.name, theirs.name, mine.shard, theirs.shard) = ("", "", nil, nil)
            (mine.minZoom, mine.maxZoom, theirs.minZoom, theirs.maxZoom) = (0, 0, 0, 0)
            // Each part reports the reductions of its own tiles.
            mine.tileBudget?.reduced = [:]
            theirs.tileBudget?.reduced = [:]
            guard mine == theirs else {
                throw JoinError("\(part.path)'s metadata (layers, zooms, bounds or centre) differs from \(first.path)'s: "
                    + "were they built from the same input with the same options?")
            }
        }
        let missing = (0..<firstShard.plan.count).filter { seen[$0] == nil }
        guard missing.isEmpty else {
            throw JoinError("shard(s) " + missing.map { "\($0)/\(firstShard.plan.count)" }.joined(separator: ", ")
                + " missing: a join needs every part")
        }
        self.parts = parts
        var metadata = first.source.metadata
        metadata.shard = nil
        metadata.minZoom = parts.map(\.source.metadata.minZoom).min() ?? metadata.minZoom
        metadata.maxZoom = parts.map(\.source.metadata.maxZoom).max() ?? metadata.maxZoom
        for part in parts.dropFirst() {
            if let report = part.source.metadata.tileBudget { metadata.tileBudget?.merge(report) }
        }
        self.metadata = metadata
    }

    /// Copies every tile of every part into `sink`; the caller then writes `metadata` (named as it likes) and
    /// commits. `progress`, if given, is called after each part with the tiles copied so far. The number of tiles
    /// and bytes copied.
    @discardableResult
    public func copyTiles(into sink: some TileSink,
                          progress: ((_ tiles: Int) -> Void)? = nil) throws -> (tiles: Int, bytes: Int) {
        var tiles = 0, bytes = 0
        for part in parts {
            guard let shard = part.source.metadata.shard else { continue }
            for id in try part.source.tileIDs() {
                guard shard.writes(id) else {
                    throw JoinError("\(part.path) holds tile \(id), which belongs to shard \(shard.plan.owner(of: id)), not \(shard.index)")
                }
                guard let data = try part.source.gzipTile(id) else { continue }
                try sink.put(id, gzipData: data)
                tiles += 1
                bytes += data.count
            }
            progress?(tiles)
        }
        return (tiles, bytes)
    }
}

/// Parts that cannot be joined.
public struct JoinError: Error, CustomStringConvertible, Sendable {
    /// What does not fit together.
    public let description: String
    init(_ description: String) { self.description = description }
}
