import RouteTilesModel
import RouteTilesRaster
import RouteTilesTiling

/// The decisions that make a raster tile answer (`/tiles/{z}/{x}/{y}.png`, `@2x.png`, `@3x.png`), apart from any HTTP
/// library: the vector tile of the same z/x/y and variant is found or cut first (`TileService`, with its cache and
/// single flight), then drawn (`RasterTileRenderer`) unless a PNG drawn from that very vector tile is kept
/// (`RasterTileCache`). The tag of a PNG is its vector tile's with the scale added, so a conditional request is
/// answered 304 without drawing, and a change of the vector tile changes the PNG's tag.
public struct RasterTileResponder<Bytes: TileBytes>: Sendable {
    public let service: TileService<Bytes>
    public let renderer: RasterTileRenderer
    public let cache: RasterTileCache
    /// `Cache-Control` of tile answers.
    public let cacheControl: String
    /// The transparent PNG of a tile without routes, at each scale (index scale − 1), drawn once: empty tiles are
    /// most of a map's tiles, and all alike.
    let emptyPNGs: [[UInt8]?]

    public init(service: TileService<Bytes>, renderer: RasterTileRenderer, cache: RasterTileCache, cacheControl: String) {
        self.service = service
        self.renderer = renderer
        self.cache = cache
        self.cacheControl = cacheControl
        emptyPNGs = RasterTileRenderer.scales.map { try? renderer.png(of: DecodedTile(), zoom: 0, scale: $0) }
    }

    /// The media type of a raster tile.
    public static var contentType: String { "image/png" }

    /// The answer to a `GET` or `HEAD` of the raster tile `id` at `scale`. Its body, when it has one, is `.identity`
    /// (PNG bytes are not gzipped again).
    public func answer(_ id: TileID, scale: Int, variant: TileVariant = TileVariant(), isHead: Bool,
                       ifNoneMatch: String?) async -> TileAnswer<Bytes> {
        let entry: TileCache<Bytes>.Entry
        switch await TileResponder<Bytes>.entry(id, variant: variant, of: service) {
        case let .found(found): entry = found
        case let .refused(answer): return answer
        }
        // An empty vector tile: a transparent PNG (image clients draw a missing tile as an error), one per scale.
        let source = entry.isEmpty ? "\"empty\"" : entry.etag
        let etag = Self.tag(of: source, scale: scale)
        if let tags = ifNoneMatch, TileResponder<Bytes>.matches(tags, etag) {
            return TileAnswer(status: .notModified, cacheControl: cacheControl, etag: etag)
        }
        let key = RasterTileCache.Key(tile: id, scale: scale, variant: variant)
        let png: [UInt8]
        if entry.isEmpty, let empty = emptyPNGs[max(0, min(scale, emptyPNGs.count) - 1)] {
            png = empty
        } else if let kept = cache.get(key, source: source) {
            png = kept
        } else {
            do {
                png = entry.isEmpty
                    ? try renderer.png(of: DecodedTile(), zoom: variant.grid.widthZoom(id.z), scale: scale)
                    : try renderer.png(ofVectorTile: entry.gzip.tileByteArray, zoom: variant.grid.widthZoom(id.z), scale: scale)
            } catch {
                return TileAnswer(status: .internalServerError, message: "cannot draw tile \(id): \(error)",
                                  logMessage: "raster tile \(id)@\(scale)x: \(error)")
            }
            cache.put(key, png: png, source: source)
        }
        return TileAnswer(status: .ok, cacheControl: cacheControl, etag: etag, contentLength: png.count,
                          body: isHead ? .none : .identity(png))
    }

    /// The tag of the PNG at `scale` drawn from the vector tile tagged `source` (a quoted strong tag).
    static func tag(of source: String, scale: Int) -> String {
        String(source.dropLast()) + "-png\(scale)\""
    }
}
