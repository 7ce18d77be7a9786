import Foundation
import Testing
import RouteTiles
@testable import RouteTilesGeo
import RouteTilesCoreTestSupport

/// Geodesic routes: their ellipsoidal length and how closely their densified line follows the geodesic.
@Suite struct GeodesicTests {
    static let lax = Coordinate(longitude: -118.4080684, latitude: 33.9424955)
    static let jfk = Coordinate(longitude: -73.7789256, latitude: 40.6397511)

    @Test func laxToJFKIsTheEllipsoidalLength() throws {
        let line = GeodesicLine(from: Self.lax, to: Self.jfk)
        #expect(abs(line.length - 3_982_945) < 1)
        #expect(abs(GeodesicDistance.metres(Self.lax, Self.jfk) - 3_982_945) < 1)
        // The direct formula lands back on JFK.
        let end = line.point(at: 0.999999999)
        #expect(GeodesicDistance.metres(end, Self.jfk) < 0.1)
        // A geodesic route's length_m is the ellipsoidal length.
        let tiler = RouteTiler(routes: [Route(parts: [[Self.lax, Self.jfk]], geodesic: true)], options: TilingOptions())
        #expect(abs(tiler.projected.routeInfos[0].lengthMetres - 3_982_945) < 1)
    }

    /// The densified line departs from the exact geodesic by at most half a tile unit at the maximum zoom.
    @Test(arguments: [(lax, jfk), (Coordinate(longitude: 139.78, latitude: 35.55),
                                   Coordinate(longitude: -122.38, latitude: 37.62)),
                      (Coordinate(longitude: -10, latitude: -30), Coordinate(longitude: 20, latitude: 40))])
    func densificationErrorIsWithinHalfATileUnit(from a: Coordinate, to b: Coordinate) {
        var options = TilingOptions()
        options.maxZoom = 12
        let tolerance = 0.5 * WebMercator.tileSize(zoom: options.maxZoom) / Double(options.extent)
        let densified = GeodesicDensifier.densified([a, b], tolerance: tolerance)
        #expect(densified.count > 2)
        let projected = densified.map(WebMercator.project)
        let geodesic = GeodesicLine(from: a, to: densified[densified.count - 1])
        var worst = 0.0
        for k in 0...2000 {
            var c = geodesic.point(at: Double(k) / 2000)
            c.longitude = a.longitude + remainder(c.longitude - a.longitude, 360)
            let p = WebMercator.project(c)
            var nearest = Double.infinity
            for i in 1..<projected.count {
                nearest = min(nearest, GeodesicDensifier.distance(from: p, toSegment: projected[i - 1], projected[i]))
            }
            worst = max(worst, nearest)
        }
        #expect(worst <= tolerance * 1.05, "worst departure \(worst) map points, tolerance \(tolerance)")
        // And adaptivity: a looser tolerance needs fewer points.
        #expect(GeodesicDensifier.densified([a, b], tolerance: tolerance * 64).count < densified.count)
    }
}
