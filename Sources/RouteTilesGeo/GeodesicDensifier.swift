import Foundation
import RouteTilesModel

/// Adds positions along the geodesics between a line's positions, adaptively: a segment is halved until its
/// straight map-space chord stays within `tolerance` map points of the geodesic at its quarter, half and
/// three-quarter points. Output longitudes continue across ±180° without a jump (unwrapped).
@usableFromInline
enum GeodesicDensifier {
    /// Half a tile unit at zoom 14 with a 4096 extent, in map points.
    @usableFromInline
    static let defaultTolerance = 2.0
    /// No segment is halved more than this many times (2^20 pieces).
    static let maximumDepth = 20

    static func densified(_ line: [Coordinate], tolerance: Double = defaultTolerance) -> [Coordinate] {
        var originals: [Int]?
        return densified(line, tolerance: tolerance, originals: &originals)
    }

    /// `densified(_:tolerance:)`, and when `originals` is not nil, the index in the output of each of `line`'s
    /// positions (the positions between two of them are those added along the geodesic that joins them).
    static func densified(_ line: [Coordinate], tolerance: Double = defaultTolerance,
                          originals: inout [Int]?) -> [Coordinate] {
        guard line.count >= 2 else {
            if originals != nil { originals = Array(line.indices) }
            return line
        }
        var output: [Coordinate] = [line[0]]
        output.reserveCapacity(line.count * 2)
        originals?.reserveCapacity(line.count)
        originals?.append(0)
        for i in 1..<line.count {
            let a = output[output.count - 1]
            var b = line[i]
            b.longitude = a.longitude + remainder(b.longitude - a.longitude, 360)
            let geodesic = GeodesicLine(from: a, to: b)
            append(geodesic, from: 0, to: 1, start: a, end: b, tolerance: max(tolerance, 1e-3), depth: 0,
                   into: &output)
            originals?.append(output.count - 1)
        }
        return output
    }

    /// Appends the positions after `start` up to `end` (the geodesic from fraction `t0` to `t1`).
    private static func append(_ geodesic: GeodesicLine, from t0: Double, to t1: Double, start: Coordinate,
                               end: Coordinate, tolerance: Double, depth: Int, into output: inout [Coordinate]) {
        if depth < maximumDepth, geodesic.length > 0 {
            let pa = WebMercator.project(start), pb = WebMercator.project(end)
            var worst = 0.0
            var middle = end
            for k in 1...3 {
                let t = t0 + (t1 - t0) * Double(k) / 4
                var c = geodesic.point(at: t)
                c.longitude = start.longitude + remainder(c.longitude - start.longitude, 360)
                if k == 2 { middle = c }
                worst = max(worst, distance(from: WebMercator.project(c), toSegment: pa, pb))
            }
            if worst > tolerance {
                let tm = (t0 + t1) / 2
                append(geodesic, from: t0, to: tm, start: start, end: middle, tolerance: tolerance, depth: depth + 1,
                       into: &output)
                append(geodesic, from: tm, to: t1, start: middle, end: end, tolerance: tolerance, depth: depth + 1,
                       into: &output)
                return
            }
        }
        output.append(end)
    }

    /// The distance from `p` to the segment from `a` to `b`, in map points.
    static func distance(from p: MapPoint, toSegment a: MapPoint, _ b: MapPoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared : 0
        t = min(max(t, 0), 1)
        let ex = a.x + t * dx - p.x, ey = a.y + t * dy - p.y
        return (ex * ex + ey * ey).squareRoot()
    }
}
