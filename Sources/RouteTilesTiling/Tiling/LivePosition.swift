import Foundation
import RouteTilesGeo
import RouteTilesModel

/// Where a live line route is now: the point feature a live server writes for it in the position layer
/// (`TilingOptions.positionLayer`), at the route's last position, with the bearing of its last segment and the
/// time of the fix that brought that position. It carries the route's feature id, so a client joins it to the
/// route (`feature-state`, `GET /routes`).
package struct LivePosition: Sendable {
    let featureID: UInt64
    /// The last position, projected (x unwrapped as the route's line is: it may lie beyond the world's edge).
    let point: MapPoint
    /// The `bearing` property (degrees clockwise from north, to 0.1, from the position before) when the route has
    /// moved, and `fix_time` (Unix seconds, to the millisecond) when the store recorded when the position arrived.
    /// Plain numbers, not a `[Property]`: a chunk's positions are copied whenever one of them changes, and an array
    /// of plain values copies without touching a reference count.
    let bearing: Double?
    let fixTime: Double?
    /// The `speed` property, in m/s to 0.1, for a route with times: the last segment's length on the ellipsoid over
    /// the time between its two fixes (nil when they share a time).
    let speed: Double?

    /// The position of a route whose last part ends with `previous` then `last`; `time` is when `last` arrived (the
    /// device's time for a route with times), and `previousTime` the device's time of `previous` for a route with
    /// times.
    package init(featureID: UInt64, last: Coordinate, previous: Coordinate?, time: Double?, previousTime: Double? = nil,
                 options: TilingOptions) {
        self.featureID = featureID
        var projected = WebMercator.project(last)
        if let previous {
            // On the same side of the antimeridian as the line's unwrapped x, so the point sits where the line ends.
            let before = WebMercator.project(previous)
            let half = WebMercator.worldSize / 2
            if projected.x - before.x > half { projected.x -= WebMercator.worldSize }
            if before.x - projected.x > half { projected.x += WebMercator.worldSize }
        }
        point = projected
        if let previous, previous != last {
            bearing = (Bearing.initial(previous, last) * 10).rounded() / 10
        } else {
            bearing = nil
        }
        if let time, time.isFinite { fixTime = (time * 1000).rounded() / 1000 } else { fixTime = nil }
        if let previous, let time, let previousTime, time > previousTime {
            speed = (GeodesicDistance.metres(previous, last) / (time - previousTime) * 10).rounded() / 10
        } else {
            speed = nil
        }
    }

    /// The keys and types of the position layer's fields, for the tileset's metadata.
    package static let fields = ["bearing": "Number", "fix_time": "Number", "speed": "Number"]

    /// Adds the point to `layer` when it lies in the buffered box of the tile `frame` frames (in any world copy);
    /// true when it was added. `scratch` and `properties` are reused from one position to the next.
    package func add(to layer: inout VectorLayerBuilder, frame: TileFrame, scratch: inout TileGeometry,
                     properties: inout [Property]) -> Bool {
        let box = frame.box
        for shift in [0.0, -1, 1] {
            let x = point.x + shift * WebMercator.worldSize
            guard x >= box.minX, x <= box.maxX, point.y >= box.minY, point.y <= box.maxY else { continue }
            scratch.removeAll()
            scratch.appendPart(CollectionOfOne(frame.quantize(x, point.y)))
            properties.removeAll(keepingCapacity: true)
            if let bearing { properties.append(Property("bearing", .double(bearing))) }
            if let fixTime { properties.append(Property("fix_time", .double(fixTime))) }
            if let speed { properties.append(Property("speed", .double(speed))) }
            return layer.appendFeature(id: featureID, geometry: scratch, properties: properties)
        }
        return false
    }
}
