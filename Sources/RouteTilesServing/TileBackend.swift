import RouteTilesBuild
import RouteTilesLive
import RouteTilesModel
import RouteTilesStores
import RouteTilesTiling

/// What a server serves: a tile producer and, when its routes are live, the routes themselves, which give the
/// server its route, write and event operations (a tileset server simply has none).
public struct TileBackend: Sendable {
    /// Where the tiles come from.
    public let producer: any TileProducer
    /// The live routes, kept in step with a route store (memory, SQLite or PostgreSQL); nil for a finished tileset.
    public let live: LiveRouteSync?

    /// Tiles of `producer`; live routes when `live` is given (then it is also the producer).
    package init(producer: any TileProducer, live: LiveRouteSync? = nil) {
        self.producer = producer
        self.live = live
    }

    /// Routes cut on demand, kept in step with a route store.
    public static func live(_ sync: LiveRouteSync) -> TileBackend {
        TileBackend(producer: sync, live: sync)
    }

    /// A finished tileset, read tile by tile.
    public static func tileset(_ source: any TileSource) -> TileBackend {
        TileBackend(producer: TilesetTiles(source: source))
    }

    /// Routes in memory only: every write is lost when the process ends.
    public static func routes(_ routes: [Route], options: TilingOptions) -> TileBackend {
        .live(LiveRouteSync.inMemory(routes: routes, options: options))
    }

    /// The generation of the content: tiles computed from an older one must not enter the cache.
    package var generation: UInt64 { producer.generation }

    /// The shallowest zoom served.
    public var minZoom: Int { producer.minZoom }

    /// The deepest zoom served.
    public var maxZoom: Int { producer.maxZoom }

    /// Whether `zoom` is inside the served range.
    public func serves(zoom: Int) -> Bool {
        zoom >= minZoom && zoom <= maxZoom
    }

    /// The metadata of the current routes or of the tileset.
    package func metadata(name: String) -> TilesetMetadata {
        producer.metadata(name: name)
    }

    /// The metadata of the routes of `groups` alone (bounds, layers, fields), for a reader limited to them; nil
    /// for a finished tileset, whose routes carry no groups.
    package func metadata(name: String, groups: GroupScope) -> TilesetMetadata? {
        if groups.isAll { return metadata(name: name) }
        return live?.routes.snapshot.tilers.metadata(name: name, groups: groups)
    }
}
