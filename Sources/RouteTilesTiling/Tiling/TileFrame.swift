import Foundation
import RouteTilesGeo
import RouteTilesModel

/// Where one tile lies in map-point space and how a map point becomes its units: the buffered box its content is
/// cut to, and the Web Mercator zoom whose detail it is drawn with (its simplification tolerance and time pieces).
///
/// A Web Mercator tile maps both axes linearly. A WorldCRS84Quad tile (`CRS84TileID`) is a rectangle of longitude
/// and latitude: still a rectangle in map points, since x follows longitude and y grows with latitude, so the same
/// index and clipping find its content; x maps linearly, y through its latitude. It is as wide as a Web Mercator tile
/// one zoom deeper, whose detail it takes.
package struct TileFrame: Sendable {
    /// The buffered tile, in map points; a box with `minY > maxY` for a tile wholly beyond the latitudes Web Mercator
    /// reaches (±85.05°), where no route lies.
    package let box: MapRect
    /// The Web Mercator zoom whose tolerance and time pieces the tile is drawn with.
    package let detailZoom: Int
    let originX: Double
    let originY: Double
    let scale: Double
    /// For a tile of latitude rows: its northern edge in degrees and tile units per degree; y then becomes a
    /// latitude before it becomes units.
    let byLatitude: Bool
    let north: Double
    let unitsPerDegree: Double
    let low: Double
    let high: Double
    /// The squared Douglas–Peucker tolerance in map points² (−1: none).
    let squaredTolerance: Double

    /// The frame of Web Mercator tile `tile`.
    package init(tile: TileID, options: TilingOptions) {
        let size = WebMercator.tileSize(zoom: tile.z)
        box = WebMercator.bounds(of: tile, extent: options.extent, buffer: options.buffer)
        detailZoom = tile.z
        originX = Double(tile.x) * size
        originY = Double(tile.y) * size
        scale = Double(options.extent) / size
        byLatitude = false
        north = 0
        unitsPerDegree = 0
        low = Double(-options.buffer)
        high = Double(options.extent + options.buffer)
        squaredTolerance = options.squaredTolerance(zoom: tile.z)
    }

    /// The frame of WorldCRS84Quad tile `tile`, drawn with the detail of the Web Mercator zoom one deeper (at most
    /// the options' deepest).
    package init(tile: CRS84TileID, options: TilingOptions) {
        let side = tile.side
        let pad = side * Double(options.buffer) / Double(options.extent)
        let limit = WebMercator.maxLatitude
        let x = { (longitude: Double) in (longitude + 180) / 360 * WebMercator.worldSize }
        let y = { (latitude: Double) in WebMercator.project(Coordinate(longitude: 0, latitude: latitude)).y }
        let northEdge = tile.north + pad, southEdge = tile.north - side - pad
        if southEdge > limit || northEdge < -limit {
            box = MapRect(minX: x(tile.west - pad), minY: 1, maxX: x(tile.west + side + pad), maxY: 0)
        } else {
            box = MapRect(minX: x(tile.west - pad), minY: y(min(northEdge, limit)), maxX: x(tile.west + side + pad),
                          maxY: y(max(southEdge, -limit)))
        }
        detailZoom = min(tile.z + 1, options.maxZoom)
        originX = x(tile.west)
        originY = 0
        scale = Double(options.extent) / (side / 360 * WebMercator.worldSize)
        byLatitude = true
        north = tile.north
        unitsPerDegree = Double(options.extent) / side
        low = Double(-options.buffer)
        high = Double(options.extent + options.buffer)
        squaredTolerance = options.squaredTolerance(zoom: detailZoom)
    }

    /// The tile units of map point (x, y), held within the buffer.
    @inline(__always) func quantize(_ x: Double, _ y: Double) -> TilePoint {
        let (ux, uy) = units(x, y)
        return TilePoint(x: Int32(min(max(ux.rounded(), low), high)), y: Int32(min(max(uy.rounded(), low), high)))
    }

    /// The tile units of map point (x, y), unrounded and unbounded: 0 ..< extent inside the tile.
    @inline(__always) func units(_ x: Double, _ y: Double) -> (Double, Double) {
        ((x - originX) * scale, byLatitude ? (north - Self.latitude(y)) * unitsPerDegree : (y - originY) * scale)
    }

    /// The latitude in degrees of map-point row `y`.
    static func latitude(_ y: Double) -> Double {
        atan(sinh(.pi - 2 * .pi * y / WebMercator.worldSize)) * 180 / .pi
    }
}
