import RouteTilesBuild
import RouteTilesModel
import RouteTilesStores

/// A finished tileset (a folder, MBTiles or PMTiles) as a tile producer: its tiles are read as stored, and never
/// change (generation 0).
public struct TilesetTiles: TileProducer {
    /// The tileset read.
    public let source: any TileSource

    /// The tiles of `source`.
    public init(source: any TileSource) {
        self.source = source
    }

    /// Always 0: a finished tileset never changes.
    public var generation: UInt64 { 0 }
    /// The tileset's shallowest zoom.
    public var minZoom: Int { source.metadata.minZoom }
    /// The tileset's deepest zoom.
    public var maxZoom: Int { source.metadata.maxZoom }

    /// The tileset's own metadata (`name` is not used: the file names itself).
    public func metadata(name: String) -> TilesetMetadata {
        source.metadata
    }

    /// The tile as stored (usually gzip).
    public func tileBytes(_ id: TileID) throws -> [UInt8]? {
        try source.gzipTile(id)
    }
}
