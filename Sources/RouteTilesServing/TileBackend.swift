import RouteTilesBuild
import RouteTilesLive
import RouteTilesModel
import RouteTilesStores
import RouteTilesTiling

/// Where the server's tiles come from: routes cut on demand and kept in step with a route store (memory, SQLite or
/// PostgreSQL), or a finished tileset.
public enum TileBackend: Sendable {
    /// Routes cut on demand, kept in step with a route store.
    case live(LiveRouteSync)
    /// A finished tileset, read tile by tile.
    case tileset(any TileSource)

    /// Routes in memory only: every write is lost when the process ends.
    public static func routes(_ routes: [Route], options: TilingOptions) -> TileBackend {
        .live(LiveRouteSync.inMemory(routes: routes, options: options))
    }

    /// The generation of the content: tiles computed from an older one must not enter the cache.
    package var generation: UInt64 {
        switch self {
        case let .live(sync): return sync.routes.snapshot.generation
        case .tileset: return 0
        }
    }

    /// The shallowest zoom served.
    public var minZoom: Int {
        switch self {
        case let .live(sync): return sync.routes.options.minZoom
        case let .tileset(source): return source.metadata.minZoom
        }
    }

    /// The deepest zoom served.
    public var maxZoom: Int {
        switch self {
        case let .live(sync): return sync.routes.options.maxZoom
        case let .tileset(source): return source.metadata.maxZoom
        }
    }

    /// Whether `zoom` is inside the served range.
    public func serves(zoom: Int) -> Bool {
        zoom >= minZoom && zoom <= maxZoom
    }

    package var acceptsWrites: Bool {
        if case .live = self { return true }
        return false
    }

    /// The metadata of the current routes or of the tileset.
    package func metadata(name: String) -> TilesetMetadata {
        switch self {
        case let .live(sync): return sync.routes.snapshot.tilers.metadata(name: name)
        case let .tileset(source): return source.metadata
        }
    }
}
