import RouteTilesBuild
import RouteTilesModel
import RouteTilesTiling

/// A build's tiles drawn as PNG (`build --tile-format png`): each vector tile the builder cuts is decoded and drawn
/// by a `RasterTileRenderer`, as the server draws `/tiles/{z}/{x}/{y}.png`, so a static pyramid and the server give
/// the same pixels.
struct PNGTileEncoder: TileEncoder {
    let renderer: RasterTileRenderer
    let scale: Int

    func encode(_ tile: TileID, mvt: [UInt8]) throws -> [UInt8] {
        let decoded: DecodedTile
        do {
            decoded = try VectorTileDecoder.decode(mvt)
        } catch {
            throw RasterError("tile \(tile): the vector tile to draw does not decode: \(error)")
        }
        do {
            return try renderer.png(of: decoded, zoom: tile.z, scale: scale)
        } catch {
            throw RasterError("tile \(tile): \(error)")
        }
    }
}

extension TileEncoding {
    /// PNG tiles at `scale` (1, 2 or 3: 256, 512 or 768 pixels), drawn by `renderer`.
    public static func png(scale: Int, renderer: RasterTileRenderer = RasterTileRenderer()) -> TileEncoding {
        let scale = min(max(scale, TileFormat.pngScales.lowerBound), TileFormat.pngScales.upperBound)
        return TileEncoding(format: .png(scale: scale)) { PNGTileEncoder(renderer: renderer, scale: scale) }
    }
}
