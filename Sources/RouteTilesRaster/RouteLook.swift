import Foundation
import RouteTilesInput

/// How the routes look on a map: the one description that `style.json` (the server's `StyleDocument`) and the
/// raster tiles (`RasterTileRenderer`) are both made from, so that the two cannot drift apart.
///
/// Widths and radii are in CSS pixels at a MapLibre zoom, whose world is 512·2^zoom pixels wide: a 256-pixel tile of
/// zoom z covers the ground of a MapLibre view at zoom z − 1 (`RasterTileRenderer` evaluates them there).
public struct RouteLook: Sendable, Equatable {
    /// The look of `style.json` and of the raster tiles.
    public static let standard = RouteLook()

    /// The background of `style.json` (raster tiles are transparent).
    public var background = RGBAColor(rgb: 0xF8FAFC)

    /// A route's line: its `color` property when that is a colour, else `lineColor`.
    public var lineColor = RGBAColor(rgb: 0x2563EB)
    public var lineWidth = ZoomStops([(4, 1.2), (10, 3), (14, 6), (18, 16)], base: 1.5)
    /// How much wider a selected route's line is (the viewer's highlight; raster tiles have no selection).
    public var selectedLineFactor = 1.5

    /// The casing: a darker, wider line under each route's line.
    public var casingColor = RGBAColor(rgb: 0x0F172A, alpha: 0.85)
    public var casingWidth = ZoomStops([(4, 2.5), (10, 5), (14, 9), (18, 22)], base: 1.5)
    public var selectedCasingColor = RGBAColor(rgb: 0xF59E0B)
    public var selectedCasingFactor = 2.2

    /// Merged lines (a tile fitted to its byte budget: `count` routes on the same pixels) are coloured by their
    /// count, from `lineColor` at 1 to `busiestColor` at `busiestCount` and beyond, along log2 of the count. Widths
    /// stay as they are, so a fitted tile inks the pixels the tile as cut inks.
    public var busiestColor = RGBAColor(rgb: 0xDC2626)
    public var busiestCount = 64.0

    /// The colour of a line that `count` routes share.
    public func countColor(_ count: Double) -> RGBAColor {
        let t = min(1, max(0, log2(max(1, count)) / log2(busiestCount)))
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * t }
        return RGBAColor(red: mix(lineColor.red, busiestColor.red), green: mix(lineColor.green, busiestColor.green),
                         blue: mix(lineColor.blue, busiestColor.blue), alpha: mix(lineColor.alpha, busiestColor.alpha))
    }

    /// The point layers (directions' maneuvers, GPX waypoints): circles from `pointMinZoom`.
    public var pointLayers: Set<String> = [DirectionsReader.maneuversLayer, GPXReader.waypointsLayer]
    public var pointMinZoom = 12.0
    public var pointRadius = ZoomStops([(12, 2), (18, 7)])
    public var pointFill = RGBAColor(rgb: 0xFFFFFF)
    /// The points' outline, in the casing's colour at full opacity.
    public var pointStrokeWidth = 1.5

    /// The position layer of live routes: a dot at every zoom, in the casing's colour at full opacity with a white
    /// ring, and from `headingMinZoom` an arrow turned to the position's `bearing`.
    public var positionRadius = ZoomStops([(4, 3), (14, 7)])
    public var positionRing = RGBAColor(rgb: 0xFFFFFF)
    public var positionRingWidth = 2.0
    public var headingMinZoom = 10.0
    /// The arrow's size against its drawing (24 CSS pixels tall, `HeadingArrow`).
    public var headingSize = ZoomStops([(10, 0.6), (16, 1)])
    public var headingFill = RGBAColor(rgb: 0xF59E0B)

    public init() {}
}
