/// What the tiles of a tileset are: Mapbox Vector Tiles (gzip-compressed, as every reader of `.mvt` expects) or
/// PNG images drawn from them at a scale (256 px at @1x, 512 at @2x, 768 at @3x), for map clients that draw
/// only images (MapKit's `MKTileOverlay`, Leaflet without plugins).
public enum TileFormat: Sendable, Hashable, CustomStringConvertible {
    case mvt
    case png(scale: Int)

    /// The scales a PNG tile may have.
    public static let pngScales = 1...3

    /// `mvt`, `png`, `png@2x`: how `build --tile-format` and `--tile-scale` name it in messages.
    public var description: String {
        switch self {
        case .mvt: return "mvt"
        case let .png(scale): return scale == 1 ? "png" : "png@\(scale)x"
        }
    }

    /// How a tile's file name ends, as the server's URLs end: `.mvt`, `.png`, `@2x.png`.
    public var fileEnding: String {
        switch self {
        case .mvt: return ".mvt"
        case let .png(scale): return scale == 1 ? ".png" : "@\(scale)x.png"
        }
    }

    /// The MBTiles (and tippecanoe metadata) `format` value: `pbf` or `png`.
    public var metadataFormat: String {
        switch self {
        case .mvt: return "pbf"
        case .png: return "png"
        }
    }

    /// The media type of one tile.
    public var mediaType: String {
        switch self {
        case .mvt: return "application/vnd.mapbox-vector-tile"
        case .png: return "image/png"
        }
    }

    /// The pixels along a tile's side; nil for vector tiles.
    public var pixelSize: Int? {
        switch self {
        case .mvt: return nil
        case let .png(scale): return 256 * scale
        }
    }

    /// Whether tiles of this format are stored gzip-compressed (vector tiles) or as they are (PNG).
    public var isGzip: Bool { self == .mvt }
}
