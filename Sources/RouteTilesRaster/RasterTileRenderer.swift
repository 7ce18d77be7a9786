import CCairo
import Foundation
import RouteTilesModel
import RouteTilesTiling

/// Draws a route tile as a PNG with cairo: the lines of a vector tile (the cutter's clipped lines, in tile units),
/// drawn instead of encoded, with the look of `style.json` (`RouteLook`): the casing under each route's line, widths
/// by zoom, round caps and joins, the point layers' circles, and the position dot with its heading arrow; anti-aliased,
/// on a transparent background.
///
/// A tile of zoom z is 256·`scale` pixels (`scale` 1, 2 or 3 for @1x, @2x, @3x) over the ground of the vector tile
/// z/x/y, and sizes are those MapLibre draws at zoom z − 1 with a pixel ratio of `scale` (its world is 512·2^zoom CSS
/// pixels, so a 256-pixel tile of zoom z is drawn at its zoom z − 1).
public struct RasterTileRenderer: Sendable {
    public var look: RouteLook
    /// The position layer of live routes, drawn as dots and arrows; nil when there is none.
    public var positionLayer: String?

    public init(look: RouteLook = .standard, positionLayer: String? = nil) {
        self.look = look
        self.positionLayer = positionLayer
    }

    /// The scales a raster tile may be asked at: @1x, @2x, @3x.
    public static let scales = 1...3

    /// The PNG of `tile`, the vector tile z/x/y of zoom `zoom`, at `scale`.
    public func png(of tile: DecodedTile, zoom: Int, scale: Int) throws(RasterError) -> [UInt8] {
        let canvas = try CairoCanvas(size: 256 * max(1, min(scale, Self.scales.upperBound)))
        draw(tile, zoom: zoom, on: canvas)
        return try canvas.png()
    }

    /// The PNG cairo's own writer (libpng) makes of the same drawing as `png(of:zoom:scale:)`: for the tests that
    /// check the two decode to the same pixels, and for the benchmarks.
    package func cairoPNG(of tile: DecodedTile, zoom: Int, scale: Int) throws(RasterError) -> [UInt8] {
        let canvas = try CairoCanvas(size: 256 * max(1, min(scale, Self.scales.upperBound)))
        draw(tile, zoom: zoom, on: canvas)
        return try canvas.cairoPNG()
    }

    /// The pixels `png(of:zoom:scale:)` writes, un-premultiplied.
    package func pixels(of tile: DecodedTile, zoom: Int, scale: Int) throws(RasterError) -> RasterPixels {
        let canvas = try CairoCanvas(size: 256 * max(1, min(scale, Self.scales.upperBound)))
        draw(tile, zoom: zoom, on: canvas)
        return canvas.pixels()
    }

    /// The PNG of a vector tile's bytes (gzip or not).
    public func png(ofVectorTile bytes: [UInt8], zoom: Int, scale: Int) throws(RasterError) -> [UInt8] {
        let decoded: DecodedTile
        do {
            let plain = bytes.starts(with: [0x1F, 0x8B]) ? try Gzip.decompress(bytes) : bytes
            decoded = try VectorTileDecoder.decode(plain)
        } catch {
            throw RasterError("the vector tile to draw does not decode: \(error)")
        }
        return try png(of: decoded, zoom: zoom, scale: scale)
    }

    func draw(_ tile: DecodedTile, zoom: Int, on canvas: CairoCanvas) {
        let mapZoom = Double(zoom) - 1
        let pixelRatio = Double(canvas.size) / 256
        for layer in tile.layers {
            let unit = Double(canvas.size) / Double(max(1, layer.extent))
            if layer.name == DensityGrid.layerName {
                // The heat of the density layer is hidden in the style until a client shows it; so here.
                continue
            } else if layer.name == positionLayer {
                drawPositions(layer, unit: unit, zoom: mapZoom, pixelRatio: pixelRatio, on: canvas)
            } else if look.pointLayers.contains(layer.name) {
                guard mapZoom >= look.pointMinZoom else { continue }
                let radius = look.pointRadius.value(at: mapZoom) * pixelRatio
                var stroke = look.casingColor
                stroke.alpha = 1
                for feature in layer.features {
                    for point in feature.geometry.points {
                        canvas.circle(x: Double(point.x) * unit, y: Double(point.y) * unit, radius: radius,
                                      fill: look.pointFill, stroke: stroke, strokeWidth: look.pointStrokeWidth * pixelRatio)
                    }
                }
            } else {
                // As the style's two layers: every casing of the layer, then every line over them.
                let casing = look.casingWidth.value(at: mapZoom) * pixelRatio
                for feature in layer.features where feature.kind == .lineString {
                    canvas.stroke(feature.geometry, unit: unit, width: casing, colour: look.casingColor)
                }
                let width = look.lineWidth.value(at: mapZoom) * pixelRatio
                for feature in layer.features where feature.kind == .lineString {
                    canvas.stroke(feature.geometry, unit: unit, width: width, colour: colour(of: feature))
                }
            }
        }
    }

    /// The `color` property when it is a hex colour, else the look's line colour, or for a merged line of a fitted
    /// tile the colour of its `count` (`RouteLook.countColor`).
    func colour(of feature: DecodedFeature) -> RGBAColor {
        var count = 1.0
        for property in feature.properties {
            if property.key == "color", case let .string(text) = property.value,
               let colour = RGBAColor(hex: text.trimmingCharacters(in: .whitespaces)) {
                return colour
            }
            if property.key == "count" {
                switch property.value {
                case let .int(n): count = Double(n)
                case let .uint(n): count = Double(n)
                case let .double(n): count = n
                default: break
                }
            }
        }
        return count > 1 ? look.countColor(count) : look.lineColor
    }

    func drawPositions(_ layer: DecodedLayer, unit: Double, zoom: Double, pixelRatio: Double, on canvas: CairoCanvas) {
        var dot = look.casingColor
        dot.alpha = 1
        let radius = look.positionRadius.value(at: zoom) * pixelRatio
        for feature in layer.features {
            var bearing: Double?
            for property in feature.properties where property.key == "bearing" {
                switch property.value {
                case let .double(value): bearing = value
                case let .int(value): bearing = Double(value)
                case let .uint(value): bearing = Double(value)
                default: break
                }
            }
            for point in feature.geometry.points {
                let x = Double(point.x) * unit, y = Double(point.y) * unit
                canvas.circle(x: x, y: y, radius: radius, fill: dot, stroke: look.positionRing,
                              strokeWidth: look.positionRingWidth * pixelRatio)
                if let bearing, zoom >= look.headingMinZoom {
                    canvas.headingArrow(x: x, y: y, bearing: bearing,
                                        size: look.headingSize.value(at: zoom) * pixelRatio,
                                        fill: look.headingFill, stroke: dot)
                }
            }
        }
    }
}

/// A raster tile that cannot be drawn: cairo refused a surface or the PNG, or the vector tile does not decode.
public struct RasterError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
