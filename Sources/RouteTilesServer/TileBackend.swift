import RouteTiles

/// Where the server's tiles come from: routes cut on demand (and changed live), or a finished tileset.
public enum TileBackend: Sendable {
    case live(LiveRouteSet)
    case tileset(any TileSource)

    /// A tile's uncompressed MVT (live) or gzip bytes (tileset); nil when the tile is empty.
    enum Content {
        case mvt([UInt8])
        case gzip([UInt8])
    }

    /// The generation of the content: tiles computed from an older one must not enter the cache.
    var generation: UInt64 {
        switch self {
        case let .live(routes): return routes.snapshot.generation
        case .tileset: return 0
        }
    }

    var minZoom: Int {
        switch self {
        case let .live(routes): return routes.options.minZoom
        case let .tileset(source): return source.metadata.minZoom
        }
    }

    var maxZoom: Int {
        switch self {
        case let .live(routes): return routes.options.maxZoom
        case let .tileset(source): return source.metadata.maxZoom
        }
    }

    /// Whether `zoom` is inside the served range.
    func serves(zoom: Int) -> Bool {
        zoom >= minZoom && zoom <= maxZoom
    }

    var acceptsWrites: Bool {
        if case .live = self { return true }
        return false
    }

    /// The metadata of the current routes or of the tileset.
    func metadata(name: String) -> TilesetMetadata {
        switch self {
        case let .live(routes): return routes.snapshot.tilers.metadata(name: name)
        case let .tileset(source): return source.metadata
        }
    }
}
