import RouteTilesBuild
import RouteTilesModel
import RouteTilesTiling

/// Where a server's tiles come from, tile by tile (after Martin's `Source`): live routes cut on demand
/// (`LiveRouteSync`) and finished tilesets (`TilesetTiles`) both adopt it, so that serving a tile asks no question of
/// which it is.
public protocol TileProducer: Sendable {
    /// The generation of the content: tiles made from an older one must not enter the cache. Constant for content
    /// that never changes.
    var generation: UInt64 { get }
    /// The shallowest zoom served.
    var minZoom: Int { get }
    /// The deepest zoom served.
    var maxZoom: Int { get }
    /// The metadata of the content, under `name`.
    func metadata(name: String) -> TilesetMetadata
    /// The tile's bytes, an MVT or the gzip of one; nil or empty when the tile is empty. `TileAddressError` when
    /// z/x/y names no tile.
    func tileBytes(_ id: TileID) throws -> [UInt8]?
    /// A variant of the tile (a time window, some groups' routes, a tile of WorldCRS84Quad whose column and row are
    /// `id`'s x and y), uncompressed; nil or empty when empty. `TimeWindowUnavailable` when the content has no times
    /// to cut (a finished tileset), `GroupsUnavailable` when its routes carry no groups to choose by,
    /// `GridUnavailable` when its tiles are cut in Web Mercator once for all.
    func tileBytes(_ id: TileID, variant: TileVariant) throws -> [UInt8]?
    /// Whether the content cuts tiles of other grids than Web Mercator's (`TileGrid`): live routes do.
    var cutsEveryGrid: Bool { get }
}

/// Asked for a window tile of content that cannot cut one: a finished tileset holds its tiles as they were built.
public struct TimeWindowUnavailable: Error, CustomStringConvertible {
    public var description: String {
        "a finished tileset has no time windows: serve the routes (a route store or route files) to ask for ?from and ?to"
    }
}

/// Asked for a tile of WorldCRS84Quad of content that cannot cut one: a finished tileset holds Web Mercator tiles.
public struct GridUnavailable: Error, CustomStringConvertible {
    public init() {}

    public var description: String {
        "a finished tileset holds Web Mercator tiles only: serve the routes (a route store or route files) for WorldCRS84Quad"
    }
}

/// Asked for the tile of some groups of content that cannot choose by group: a finished tileset.
public struct GroupsUnavailable: Error, CustomStringConvertible {
    public init() {}

    public var description: String {
        "this server serves a finished tileset, whose tiles cannot be cut by group: reading it needs a credential "
            + "that reads every group (\"read\": [\"*\"])"
    }
}

extension TileProducer {
    /// The default tile for the default variant; else `TimeWindowUnavailable` or `GroupsUnavailable`.
    public func tileBytes(_ id: TileID, variant: TileVariant) throws -> [UInt8]? {
        if variant.grid != .webMercator { throw GridUnavailable() }
        if variant.window != nil { throw TimeWindowUnavailable() }
        if variant.groups != nil { throw GroupsUnavailable() }
        return try tileBytes(id)
    }

    /// Web Mercator's tiles only.
    public var cutsEveryGrid: Bool { false }
}
