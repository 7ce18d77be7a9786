import Synchronization

/// The tiles a route is drawn in: every tile, at every zoom of the options, in which the route has a feature
/// (with the buffer). These are the tiles whose bytes change when the route changes.
public enum RouteCover {
    /// The cover of `route` alone, exactly the tiles a build of it would write.
    public static func tiles(of route: Route, options: TilingOptions) -> Set<TileID> {
        tiles(of: RouteTiler(routes: [route], options: options))
    }

    /// The cover of the routes of `tiler`: every tile a build of them would write.
    public static func tiles(of tiler: RouteTiler) -> Set<TileID> {
        let sink = TileIDCollector()
        // Compression level 1: only the tile ids are kept.
        _ = try? PyramidBuilder(tiler: tiler, threads: 1, compressionLevel: 1).build(into: sink)
        return sink.tiles.withLock { $0 }
    }
}

/// A sink that keeps only which tiles were written.
final class TileIDCollector: TileSink {
    let tiles = Mutex(Set<TileID>())

    func put(_ tile: TileID, gzipData: [UInt8]) throws {
        _ = tiles.withLock { $0.insert(tile) }
    }
}
