import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport

/// Where the metadata (tiles.json, MBTiles, PMTiles) says the routes are: bounds that never wrap (TileJSON 3.0.0),
/// and a centre in the middle of the routes' shortest east-west extent, across ±180° where that is shorter.
@Suite struct TilesetCentreTests {
    static func x(_ longitude: Double) -> Double { (longitude + 180) / 360 * WebMercator.worldSize }
    static func longitude(_ x: Double) -> Double { x / WebMercator.worldSize * 360 - 180 }

    static func arc(_ spans: [(Double, Double)]) -> (west: Double, east: Double)? {
        var arc = CoveringArc()
        for (west, east) in spans { arc.add(minX: x(west), maxX: x(east)) }
        return arc.arc.map { (longitude($0.west), longitude($0.east)) }
    }

    @Test func theArcLeavesOutTheWidestGap() throws {
        // Apart, on one side: the arc from the westernmost to the easternmost, not across ±180°.
        let europe = try #require(Self.arc([(0, 10), (20, 30)]))
        #expect(abs(europe.west - 0) < 1e-9 && abs(europe.east - 30) < 1e-9)
        // Either side of ±180° without crossing it: 160°E to 170°W, 40° across the Pacific, not 330°.
        let pacific = try #require(Self.arc([(-170, -160), (160, 170)]))
        #expect(abs(pacific.west - 160) < 1e-9 && abs(pacific.east - 200) < 1e-9, "\(pacific)")
        // Unwrapped both ways (Tokyo–San Francisco eastbound, Los Angeles–Tokyo westbound).
        let flights = try #require(Self.arc([(139.78, 237.62), (-220.22, -118.41)]))
        #expect(abs(flights.west - 139.78) < 1e-6 && abs(flights.east - 241.59) < 1e-6, "\(flights)")
        // A line that covers every longitude, or lines that cover them together: the world.
        let world = try #require(Self.arc([(-200, 170)]))
        #expect(world.west == -180 && world.east == 180)
        let together = try #require(Self.arc([(-180, 0), (-10, 190)]))
        #expect(together.west == -180 && together.east == 180)
        #expect(Self.arc([]) == nil)
    }

    static func flight(_ from: (Double, Double), _ to: (Double, Double)) -> Route {
        Route(parts: [[Coordinate(longitude: from.0, latitude: from.1), Coordinate(longitude: to.0, latitude: to.1)]],
              geodesic: true)
    }

    /// Flights across the Pacific both ways: bounds −180…180 (they may not wrap), the centre in the Pacific at a
    /// zoom that shows them, whether the routes come in one set (a build) or one set each (a live server).
    @Test func transpacificFlightsAreCentredOnThePacific() {
        let routes = [
            Self.flight((139.78, 35.55), (-122.38, 37.62)),   // Tokyo–San Francisco
            Self.flight((-118.41, 33.94), (139.78, 35.55)),   // Los Angeles–Tokyo
            Self.flight((151.18, -33.95), (-118.41, 33.94)),  // Sydney–Los Angeles
        ]
        let options = TilingOptions()
        let together = TilesetMetadata(name: "pacific", options: options, routeSets: [ProjectedRouteSet(routes: routes)])
        let apart = TilesetMetadata(name: "pacific", options: options, routeSets: routes.map { ProjectedRouteSet(routes: [$0]) })
        for metadata in [together, apart] {
            #expect(metadata.bounds[0] == -180 && metadata.bounds[2] == 180, "\(metadata.bounds)")
            #expect(metadata.bounds[1] < -33.9 && metadata.bounds[3] > 37.6, "\(metadata.bounds)")
            // The middle of 139.78°E…241.59°E (118.41°W): 169.3°W.
            #expect(abs(metadata.center[0] - -169.315) < 0.01, "\(metadata.center)")
            #expect(metadata.center[2] == 1, "\(metadata.center)")
        }
        #expect(together.center == apart.center)
    }

    /// Routes that do not need the antimeridian keep the bounds and centre they had.
    @Test func routesAwayFromTheAntimeridianKeepTheirBounds() {
        let routes = [Self.flight((2.35, 48.86), (13.40, 52.52)), Self.flight((-0.13, 51.51), (2.35, 48.86))]
        let metadata = TilesetMetadata(name: "europe", options: TilingOptions(), routeSets: [ProjectedRouteSet(routes: routes)])
        #expect(abs(metadata.bounds[0] - -0.13) < 1e-6 && abs(metadata.bounds[2] - 13.4) < 1e-6, "\(metadata.bounds)")
        #expect(abs(metadata.center[0] - 6.635) < 1e-6, "\(metadata.center)")
    }
}
