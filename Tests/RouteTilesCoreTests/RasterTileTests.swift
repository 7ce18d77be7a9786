import Foundation
import RouteTiles
import Testing

/// Raster tiles drawn by cairo from a vector tile's lines, with the look `style.json` is made from: widths as
/// MapLibre evaluates them one zoom below the tile's, the casing under the line, the route's own colour, the same
/// ground at @1x, @2x and @3x, and a transparent background.
@Suite struct RasterTileTests {
    /// A tile with one horizontal line across it at `row` (tile units of 4096), with `properties`.
    static func tile(row: Int32 = 2048, properties: [Property] = [], layer: String = "routes") -> DecodedTile {
        var geometry = TileGeometry(kind: .lineString)
        geometry.appendPart([TilePoint(x: -100, y: row), TilePoint(x: 4196, y: row)])
        let feature = DecodedFeature(id: 1, kind: .lineString, rawType: 2, properties: properties, geometry: geometry)
        return DecodedTile(layers: [DecodedLayer(name: layer, features: [feature])])
    }

    /// The rows of column `x` whose alpha is above `threshold`.
    static func inkedRows(_ pixels: RasterPixels, x: Int, threshold: UInt8 = 127) -> [Int] {
        (0..<pixels.size).filter { pixels[x: x, y: $0].alpha > threshold }
    }

    @Test func widthsFollowTheStyleOneZoomBelowTheTile() throws {
        let look = RouteLook.standard
        // A z14 tile is drawn at MapLibre's zoom 13: between the stops 10 and 14, exponentially with base 1.5.
        let t = (pow(1.5, 3.0) - 1) / (pow(1.5, 4.0) - 1)
        #expect(abs(look.lineWidth.value(at: 13) - (3 + t * 3)) < 1e-9)
        #expect(abs(look.casingWidth.value(at: 13) - (5 + t * 4)) < 1e-9)
        #expect(look.lineWidth.value(at: 2) == 1.2 && look.lineWidth.value(at: 22) == 16)
        let pixels = try RasterTileRenderer().pixels(of: Self.tile(), zoom: 14, scale: 1)
        // The line at the tile's middle row: the casing's width in (partly) opaque pixels, the line's in blue.
        let inked = Self.inkedRows(pixels, x: 100)
        let casing = look.casingWidth.value(at: 13)
        #expect(abs(Double(inked.count) - casing) <= 1.5, "\(inked) against a casing \(casing) px wide")
        let blue = (0..<256).filter { y in
            let p = pixels[x: 100, y: y]
            return p.alpha == 255 && p.blue > 200 && p.red < 80
        }
        #expect(abs(Double(blue.count) - look.lineWidth.value(at: 13)) <= 1.5, "\(blue)")
        #expect(blue.allSatisfy { inked.contains($0) } && blue.contains(128))
        // Far from the line: transparent.
        #expect(pixels[x: 100, y: 20].alpha == 0 && pixels[x: 100, y: 230].alpha == 0)
    }

    @Test(arguments: [2, 3]) func higherScalesCoverTheSameGround(scale: Int) throws {
        let renderer = RasterTileRenderer()
        let one = try renderer.pixels(of: Self.tile(row: 1024), zoom: 15, scale: 1)
        let more = try renderer.pixels(of: Self.tile(row: 1024), zoom: 15, scale: scale)
        #expect(more.size == 256 * scale)
        // The line is a quarter of the way down at every scale, `scale` times as wide.
        let rows = Self.inkedRows(one, x: 128), moreRows = Self.inkedRows(more, x: 128 * scale)
        let middle = Double(rows.reduce(0, +)) / Double(rows.count)
        let moreMiddle = Double(moreRows.reduce(0, +)) / Double(moreRows.count)
        #expect(abs(middle - 63.5) <= 1 && abs(moreMiddle - (64 * Double(scale) - 0.5)) <= 1, "\(rows) \(moreRows)")
        #expect(abs(Double(moreRows.count) - Double(rows.count * scale)) <= Double(scale) + 1)
    }

    @Test func aRoutesOwnColourIsItsLinesColour() throws {
        let pixels = try RasterTileRenderer().pixels(of: Self.tile(properties: [Property("color", .string("#e11d48"))]),
                                                     zoom: 16, scale: 1)
        let centre = pixels[x: 128, y: 128]
        #expect(centre.alpha == 255 && centre.red == 0xE1 && centre.green == 0x1D && centre.blue == 0x48, "\(centre)")
        // Not a colour: the look's.
        let other = try RasterTileRenderer().pixels(of: Self.tile(properties: [Property("color", .string("tomato"))]),
                                                    zoom: 16, scale: 1)[x: 128, y: 128]
        #expect(other.red == 0x25 && other.green == 0x63 && other.blue == 0xEB, "\(other)")
    }

    @Test func thePositionLayerIsADotWithAnArrow() throws {
        var geometry = TileGeometry(kind: .point)
        geometry.appendPart([TilePoint(x: 2048, y: 2048)])
        let position = DecodedFeature(id: 1, kind: .point, rawType: 1, properties: [Property("bearing", .double(90))],
                                      geometry: geometry)
        let tile = DecodedTile(layers: [DecodedLayer(name: "positions", features: [position])])
        let renderer = RasterTileRenderer(positionLayer: "positions")
        let near = try renderer.pixels(of: tile, zoom: 15, scale: 2)
        // The arrow's amber over the dot at the centre; nothing far away.
        let centre = near[x: 256, y: 256]
        #expect(centre.alpha == 255 && centre.red > 200 && centre.green > 120 && centre.blue < 60, "\(centre)")
        #expect(near[x: 256, y: 100].alpha == 0)
        // Pointing east: the arrow reaches further right of the centre than above it.
        let right = (256..<512).last { near[x: $0, y: 256].alpha > 0 } ?? 256
        let up = (0..<256).first { near[x: 256, y: $0].alpha > 0 } ?? 256
        #expect(right - 256 > 256 - up, "right \(right), up \(up)")
        // Below the heading's zoom, a dot alone: the same both ways.
        let far = try renderer.pixels(of: tile, zoom: 8, scale: 1)
        let farRight = (128..<256).last { far[x: $0, y: 128].alpha > 0 } ?? 128
        let farUp = (0..<128).first { far[x: 128, y: $0].alpha > 0 } ?? 128
        #expect(abs((farRight - 128) - (128 - farUp)) <= 1)
    }

    @Test func thePNGIsAPNGOfTheTilesSize() throws {
        for scale in 1...3 {
            let png = try RasterTileRenderer().png(of: Self.tile(), zoom: 12, scale: scale)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            // IHDR: width and height, big-endian, after the signature and the chunk's length and type.
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == 256 * scale && height == 256 * scale)
        }
        #expect(throws: RasterError.self) { try RasterTileRenderer().png(ofVectorTile: [1, 2, 3], zoom: 1, scale: 1) }
    }

    @Test func coloursReadAsStylesWriteThem() {
        #expect(RGBAColor(hex: "#2563eb") == RGBAColor(rgb: 0x2563EB))
        #expect(RGBAColor(hex: "#fff") == RGBAColor(rgb: 0xFFFFFF))
        #expect(RGBAColor(rgb: 0x0F172A).hex == "#0f172a")
        for bad in ["2563eb", "#2563e", "#25g3eb", "", "#"] { #expect(RGBAColor(hex: bad) == nil, "\(bad)") }
    }
}
