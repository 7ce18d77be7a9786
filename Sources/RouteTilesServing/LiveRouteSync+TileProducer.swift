import RouteTilesBuild
import RouteTilesLive
import RouteTilesModel
import RouteTilesTiling

/// Live routes produce their tiles from the current snapshot, cut on demand.
extension LiveRouteSync: TileProducer {
    /// The generation of the current snapshot.
    public var generation: UInt64 { routes.snapshot.generation }
    /// The tiling options' shallowest zoom.
    public var minZoom: Int { routes.options.minZoom }
    /// The tiling options' deepest zoom.
    public var maxZoom: Int { routes.options.maxZoom }

    /// The metadata of the current routes: their layers, zooms and bounds.
    public func metadata(name: String) -> TilesetMetadata {
        routes.snapshot.tilers.metadata(name: name)
    }

    /// The tile cut from the current snapshot, uncompressed.
    public func tileBytes(_ id: TileID) throws -> [UInt8]? {
        try routes.snapshot.tile(z: id.z, x: id.x, y: id.y)
    }

    /// A variant of the tile (a window, some groups) cut from the current snapshot, uncompressed.
    public func tileBytes(_ id: TileID, variant: TileVariant) throws -> [UInt8]? {
        switch variant.grid {
        case .webMercator:
            return try routes.snapshot.tile(z: id.z, x: id.x, y: id.y, window: variant.window, groups: variant.groups)
        case .worldCRS84Quad:
            return routes.snapshot.tile(CRS84TileID(z: id.z, row: id.y, column: id.x), window: variant.window,
                                        groups: variant.groups)
        }
    }

    /// Live routes cut tiles of WorldCRS84Quad too.
    public var cutsEveryGrid: Bool { true }
}
