import RouteTilesBuild
import RouteTilesLive
import RouteTilesModel

/// Live routes produce their tiles from the current snapshot, cut on demand.
extension LiveRouteSync: TileProducer {
    public var generation: UInt64 { routes.snapshot.generation }
    public var minZoom: Int { routes.options.minZoom }
    public var maxZoom: Int { routes.options.maxZoom }

    public func metadata(name: String) -> TilesetMetadata {
        routes.snapshot.tilers.metadata(name: name)
    }

    public func tileBytes(_ id: TileID) throws -> [UInt8]? {
        try routes.snapshot.tile(z: id.z, x: id.x, y: id.y)
    }
}
