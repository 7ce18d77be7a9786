import Testing
import RouteTiles
@testable import RouteTilesGeo
import RouteTilesCoreTestSupport

@Suite struct ProjectionTests {
    @Test func empireStateBuildingIsInItsKnownTile() {
        let tile = WebMercator.tile(containing: Coordinate(longitude: -73.9857, latitude: 40.7484), zoom: 14)
        #expect(tile == TileID(z: 14, x: 4824, y: 6157))
    }

    @Test func cornersAndCentre() {
        let topLeft = WebMercator.project(Coordinate(longitude: -180, latitude: 85.05112878))
        #expect(abs(topLeft.x) < 1e-6 && abs(topLeft.y) < 1)
        let centre = WebMercator.project(Coordinate(longitude: 0, latitude: 0))
        #expect(centre == MapPoint(x: 134_217_728, y: 134_217_728))
        let bottomRight = WebMercator.project(Coordinate(longitude: 180, latitude: -85.05112878))
        #expect(abs(bottomRight.x - 268_435_456) < 1e-6 && abs(bottomRight.y - 268_435_456) < 1)
    }

    @Test func latitudesBeyondTheMercatorLimitAreClamped() {
        let pole = WebMercator.project(Coordinate(longitude: 10, latitude: 90))
        let limit = WebMercator.project(Coordinate(longitude: 10, latitude: WebMercator.maxLatitude))
        #expect(pole == limit)
        #expect(pole.y.isFinite)
    }

    @Test func unprojectInvertsProject() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<1000 {
            let c = Coordinate(longitude: .random(in: -180...180, using: &rng), latitude: .random(in: -85...85, using: &rng))
            let back = WebMercator.unproject(WebMercator.project(c))
            #expect(abs(back.longitude - c.longitude) < 1e-9 && abs(back.latitude - c.latitude) < 1e-9)
        }
    }

    @Test func tileIDParsing() {
        #expect(TileID("14/4824/6157") == TileID(z: 14, x: 4824, y: 6157))
        #expect(TileID("1/2/0") == nil)
        #expect(TileID("a/b/c") == nil)
        #expect(TileID("3/1") == nil)
        #expect(TileID("-1/0/0") == nil)
    }

    @Test func geodesicLengthLAXtoJFK() {
        let lax = Coordinate(longitude: -118.4080684, latitude: 33.9424955)
        let jfk = Coordinate(longitude: -73.7789256, latitude: 40.6397511)
        #expect(abs(GeodesicDistance.metres(lax, jfk) - 3_982_945) < 1)
    }

    @Test func shortSegmentFormulaAgreesWithVincenty() throws {
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<2000 {
            let a = Coordinate(longitude: .random(in: -180...180, using: &rng), latitude: .random(in: -79...79, using: &rng))
            let b = Coordinate(longitude: a.longitude + .random(in: -0.03...0.03, using: &rng),
                               latitude: a.latitude + .random(in: -0.03...0.03, using: &rng))
            let exact = GeodesicDistance.vincentyMetres(a, b)
            let fast = GeodesicDistance.metres(a, b)
            #expect(abs(fast - exact) <= max(1e-3, exact * 1e-6), "\(a) → \(b): \(fast) vs \(exact)")
        }
    }

    @Test func unwrapTakesTheShortWayAcrossTheAntimeridian() {
        let line = [Coordinate(longitude: 179.5, latitude: 0), Coordinate(longitude: -179.5, latitude: 0),
                    Coordinate(longitude: -178, latitude: 1)]
        let unwrapped = AntimeridianUnwrap.unwrapped(line).map(\.longitude)
        #expect(unwrapped == [179.5, 180.5, 182])
        let westward = AntimeridianUnwrap.unwrapped([Coordinate(longitude: -170, latitude: 0), Coordinate(longitude: 170, latitude: 0)])
        #expect(westward.map(\.longitude) == [-170, -190])
    }
}
