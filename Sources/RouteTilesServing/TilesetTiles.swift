import RouteTilesBuild
import RouteTilesModel
import RouteTilesStores

/// A finished tileset (a folder, MBTiles or PMTiles) as a tile producer: its tiles are read as stored, and never
/// change (generation 0).
public struct TilesetTiles: TileProducer {
    public let source: any TileSource

    public init(source: any TileSource) {
        self.source = source
    }

    public var generation: UInt64 { 0 }
    public var minZoom: Int { source.metadata.minZoom }
    public var maxZoom: Int { source.metadata.maxZoom }

    public func metadata(name: String) -> TilesetMetadata {
        source.metadata
    }

    public func tileBytes(_ id: TileID) throws -> [UInt8]? {
        try source.gzipTile(id)
    }
}
