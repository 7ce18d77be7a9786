import Testing
@testable import RouteTiles

@Test func routeCountsPoints() {
    let r = Route(parts: [[Coordinate(longitude: 0, latitude: 0), Coordinate(longitude: 1, latitude: 1)]])
    #expect(r.pointCount == 2)
}
