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
    /// The tile of the time window `window` (`RouteTiler.tile(z:x:y:window:)`), uncompressed; nil or empty when
    /// empty. `TimeWindowUnavailable` when the content has no times to cut (a finished tileset).
    func tileBytes(_ id: TileID, window: TimeWindow) throws -> [UInt8]?
}

/// Asked for a window tile of content that cannot cut one: a finished tileset holds its tiles as they were built.
public struct TimeWindowUnavailable: Error, CustomStringConvertible {
    public var description: String {
        "a finished tileset has no time windows: serve the routes (a route store or route files) to ask for ?from and ?to"
    }
}

extension TileProducer {
    /// None: `TimeWindowUnavailable`.
    public func tileBytes(_ id: TileID, window: TimeWindow) throws -> [UInt8]? {
        throw TimeWindowUnavailable()
    }
}
