import Foundation
import RouteTiles
import Testing
import RouteTilesCoreTestSupport

/// Rows as the stores hold them: what makes a route, what is refused and why, and keys.
@Suite struct StoredRouteCodecTests {
    let line = [Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.4, latitude: 48.9)]

    func row(properties: String? = "{}", wkb: [UInt8]?, kind: String? = nil) -> StoredRow {
        StoredRouteCodec.route(key: "k", version: 3, created: 1, properties: properties, wkb: wkb, layer: nil,
                               kind: kind, geodesic: false)
    }

    func message(_ row: StoredRow) -> String? {
        if case let .bad(problem) = row { return problem.message }
        return nil
    }

    @Test func aRouteRoundTripsThroughARow() throws {
        let route = Route(id: .string("k"), properties: [Property("name", .string("a \"b\"")), Property("n", .int(-3)),
                                                          Property("big", .uint(UInt64.max)), Property("x", .double(1.0)),
                                                          Property("ok", .bool(true))],
                          parts: [line, line], geodesic: true, layer: "steps")
        let stored = StoredRouteCodec.route(key: "k", version: 3, created: 1,
                                            properties: StoredRouteCodec.propertiesJSON(route.properties),
                                            wkb: WellKnownBinary.encode(route), layer: "steps", kind: "line", geodesic: true)
        guard case let .route(back) = stored else {
            Issue.record("not a route: \(stored)")
            return
        }
        #expect(back.route.properties == route.properties)
        #expect(back.route.parts == route.parts && back.route.geodesic && back.route.layer == "steps")
        #expect(RouteStoreImport.sameContent(back.route, route))
    }

    @Test func rowsThatMakeNoRouteSayWhy() {
        #expect(message(row(wkb: nil))?.contains("null") == true)
        #expect(message(row(wkb: [1, 3, 0, 0, 0, 0, 0, 0, 0]))?.contains("Polygon") == true)
        let short = WellKnownBinary.encode(Route(parts: [line, [line[0]]]))
        #expect(message(row(wkb: short))?.contains("part 1 of the line has 1 position") == true)
        let far = WellKnownBinary.encode(Route(parts: [[line[0], Coordinate(longitude: 2, latitude: 95)]]))
        #expect(message(row(wkb: far))?.contains("latitude 95 is out of range") == true)
        #expect(message(row(properties: "\"text\"", wkb: WellKnownBinary.encode(Route(parts: [line]))))?
            .contains("expected a JSON object") == true)
        #expect(message(row(properties: "{\"a\":", wkb: WellKnownBinary.encode(Route(parts: [line])))) != nil)
        #expect(message(row(wkb: WellKnownBinary.encode(Route(parts: [line])), kind: "point"))?.contains("does not fit") == true)
        #expect(message(row(wkb: WellKnownBinary.encode(Route(parts: [line])))) == nil)
    }

    @Test func keysOfNumbersRoundTripAndOthersStayText() {
        #expect(StoredRouteCodec.id(forKey: "42") == .number(42))
        #expect(StoredRouteCodec.id(forKey: "042") == .string("042"))
        #expect(StoredRouteCodec.id(forKey: "+4") == .string("+4"))
        #expect(StoredRouteCodec.id(forKey: "18446744073709551616") == .string("18446744073709551616"))
        for key in ["0", "7", "bus-7", "007", ""] {
            #expect(StoredRouteCodec.key(for: StoredRouteCodec.id(forKey: key)) == key)
        }
    }
}
