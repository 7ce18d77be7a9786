import Foundation
import Testing
import RouteTiles
@testable import RouteTilesInput
@testable import RouteTilesGeo
import RouteTilesCoreTestSupport

/// Planned times of directions routes: a departure plus the durations each response gives.
@Suite struct DirectionsTimesTests {
    let departure: Int64 = 1_795_788_300_000

    func read(_ json: String, departure: Int64? = nil, times: TimesRule = .keep) throws -> ReadResult {
        try DirectionsReader.read(Array(json.utf8), file: "d.json",
                                  options: ReadOptions(times: times, departure: departure))
    }

    func layer(_ result: ReadResult, _ name: String) -> [Route] {
        result.routes.filter { ($0.layer ?? "routes") == name }
    }

    func sample(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: PackageFolder.root.appendingPathComponent("Tiles/samples/\(name)")))
    }

    /// `departure` plus seconds, in whole milliseconds.
    func at(_ seconds: Double) -> Int64 {
        departure + Int64((seconds * 1000).rounded())
    }

    let points = "[[8.5,47.3],[8.5,47.301],[8.502,47.301],[8.502,47.305]]"

    func osrm(annotation: String?, geometry: String? = nil) -> String {
        let leg = annotation.map { #","annotation":{"duration":\#($0)}"# } ?? ""
        return #"""
        {"code":"Ok","routes":[{"geometry":{"type":"LineString","coordinates":\#(geometry ?? points)},"distance":700,"duration":40,
         "legs":[{"summary":"s","steps":[
          {"geometry":{"type":"LineString","coordinates":[[8.5,47.3],[8.5,47.301],[8.502,47.301]]},"duration":30,"distance":300,"name":"A","maneuver":{"location":[8.5,47.3],"type":"depart"}},
          {"geometry":{"type":"LineString","coordinates":[[8.502,47.301],[8.502,47.305]]},"duration":10,"distance":400,"name":"B","maneuver":{"location":[8.502,47.301],"type":"turn","modifier":"left"}},
          {"geometry":{"type":"LineString","coordinates":[[8.502,47.305],[8.502,47.305]]},"duration":0,"distance":0,"name":"B","maneuver":{"location":[8.502,47.305],"type":"arrive"}}
         ]\#(leg)}]}]}
        """#
    }

    @Test func osrmAnnotationsGiveEachVertexItsETA() throws {
        let result = try read(osrm(annotation: "[1.5,2.25,36.25]"), departure: departure)
        let route = try #require(layer(result, "routes").first)
        #expect(route.times == [at(0), at(1.5), at(3.75), at(40)])
        #expect(result.routes.allSatisfy { $0.timeProblem() == nil })
        // Steps and maneuvers: the step durations from the same departure.
        let maneuvers = layer(result, "maneuvers")
        #expect(maneuvers.map(\.times) == [[at(0)], [at(30)], [at(40)]])
        #expect(layer(result, "steps").map { $0.times?.first } == [at(0), at(30)])
        // The properties are as they were.
        #expect(route.properties.first { $0.key == "duration_s" }?.value == .double(40))
    }

    @Test func osrmAnnotationsOfSeveralLegsAreJoined() throws {
        let json = #"""
        {"code":"Ok","routes":[{"geometry":{"type":"LineString","coordinates":[[8.5,47.3],[8.5,47.301],[8.502,47.301],[8.502,47.305],[8.503,47.305]]},
         "legs":[{"steps":[],"annotation":{"duration":[0.4,0.6]}},{"steps":[],"annotation":{"duration":[7,2.125]}}]}]}
        """#
        let route = try #require(layer(try read(json, departure: departure), "routes").first)
        #expect(route.times == [at(0), at(0.4), at(1), at(8), at(10.125)])
        // An annotation that does not fit (one duration short) and no steps to fall back on: no times.
        let short = json.replacingOccurrences(of: "[7,2.125]", with: "[7]")
        #expect(try layer(read(short, departure: departure), "routes").first?.times == nil)
        // A negative annotation is an error at its path.
        let negative = json.replacingOccurrences(of: "[7,2.125]", with: "[7,-1]")
        #expect(inputError { _ = try read(negative, departure: departure) }?.description
            == "d.json: routes[0].legs[1].annotation.duration[1]: -1 is not a duration")
    }

    @Test func withoutFittingAnnotationsStepDurationsAreSpreadByLength() throws {
        let a = Coordinate(longitude: 8.5, latitude: 47.3), b = Coordinate(longitude: 8.5, latitude: 47.301)
        let c = Coordinate(longitude: 8.502, latitude: 47.301)
        let first = GeodesicDistance.metres(a, b), second = GeodesicDistance.metres(b, c)
        let expected = [at(0), at(30 * first / (first + second)), at(30), at(40)]
        for annotation in [nil, "[1,2]"] {
            let route = try #require(layer(try read(osrm(annotation: annotation), departure: departure), "routes").first)
            #expect(route.times == expected)
        }
        // A simplified overview is not made of the steps: the timed route follows the steps' lines.
        let simplified = try read(osrm(annotation: nil, geometry: "[[8.5,47.3],[8.502,47.305]]"), departure: departure)
        let route = try #require(layer(simplified, "routes").first)
        #expect(route.parts == [coordinates([(8.5, 47.3), (8.5, 47.301), (8.502, 47.301), (8.502, 47.305)])])
        #expect(route.times == expected)
        // Untimed, it keeps its geometry.
        let untimed = try #require(layer(try read(osrm(annotation: nil, geometry: "[[8.5,47.3],[8.502,47.305]]")), "routes").first)
        #expect(untimed.parts[0].count == 2)
    }

    @Test func noDepartureOrIgnoredTimesGiveNoTimes() throws {
        for name in ["zurich-google-directions.json", "zurich-osrm-route.json", "zurich-valhalla-route.json"] {
            let plain = try DirectionsReader.read(try sample(name), file: name, options: ReadOptions())
            #expect(plain.routes.allSatisfy { $0.times == nil }, "\(name)")
            let ignored = try DirectionsReader.read(try sample(name), file: name,
                                                    options: ReadOptions(times: .ignore, departure: departure))
            #expect(ignored.routes.allSatisfy { $0.times == nil }, "\(name)")
        }
        #expect(try read(osrm(annotation: "[1.5,2.25,36.25]")).routes.allSatisfy { $0.times == nil })
        // A departure outside the times kept (set through the library) gives none either, and no overflow.
        #expect(try read(osrm(annotation: "[1.5,2.25,36.25]"), departure: .min).routes.allSatisfy { $0.times == nil })
        #expect(try read(osrm(annotation: "[1.5,2.25,36.25]"), departure: TimeValue.latest).routes
            .allSatisfy { $0.times == nil || $0.times == [TimeValue.latest] })
    }

    @Test(arguments: ["zurich-google-directions.json", "zurich-osrm-route.json", "zurich-valhalla-route.json"])
    func samplesGetTimesFromTheDepartureThatEndAfterTheStepDurations(name: String) throws {
        let result = try DirectionsReader.read(try sample(name), file: name, options: ReadOptions(departure: departure))
        #expect(result.routes.allSatisfy { $0.timeProblem() == nil })
        let routes = layer(result, "routes")
        #expect(!routes.isEmpty && routes.allSatisfy { $0.times?.first == departure })
        for (index, route) in routes.enumerated() {
            let ofRoute = { (layerName: String) in
                layer(result, layerName).filter { $0.properties.contains(Property("route_index", .int(Int64(index)))) }
            }
            // The route arrives after the sum of its steps' durations (steps of no length take none).
            let total = ofRoute("steps").reduce(0.0) { sum, step in
                guard case .double(let seconds)? = step.properties.first(where: { $0.key == "duration_s" })?.value else {
                    return sum
                }
                return sum + seconds
            }
            #expect(abs(Double((route.times?.last ?? 0) - departure) - total * 1000) <= 1, "\(name) route \(index)")
            // Maneuvers start in order, the first at the departure, none after the route's arrival.
            let maneuvers = ofRoute("maneuvers")
            let starts = maneuvers.compactMap { $0.times?.first }
            #expect(starts.count == maneuvers.count && starts.first == departure)
            #expect(starts == starts.sorted())
            #expect((starts.last ?? 0) <= (route.times?.last ?? 0))
        }
    }

    @Test func googleStepsAndTheStatedDeparture() throws {
        let json = #"""
        {"status":"OK","routes":[{"summary":"x","overview_polyline":{"points":"_p~iF~ps|U_c_\\fhde@"},
         "legs":[{"departure_time":{"value":1795788300,"text":"14:05"},"distance":{"value":5},"duration":{"value":70},"steps":[
          {"html_instructions":"Head","duration":{"value":20},"distance":{"value":2},"start_location":{"lat":38.5,"lng":-120.2},"polyline":{"points":"_p~iF~ps|U_ulLnnqC"}},
          {"html_instructions":"Go","duration":{"value":50},"distance":{"value":3},"start_location":{"lat":40.7,"lng":-120.95},"polyline":{"points":"_flwFn`faV_mqNvxq`@"}}]}]}]}
        """#
        let result = try read(json)
        let route = try #require(layer(result, "routes").first)
        // The overview (two positions) is replaced by the steps' lines (three): times need the step boundaries.
        #expect(route.parts == [coordinates([(-120.2, 38.5), (-120.95, 40.7), (-126.453, 43.252)])])
        #expect(route.times == [at(0), at(20), at(70)])
        #expect(layer(result, "maneuvers").map(\.times) == [[at(0)], [at(20)]])
        // The departure asked for wins over the stated one.
        let later = try #require(layer(try read(json, departure: departure + 1000), "routes").first)
        #expect(later.times?.first == departure + 1000)
    }

    @Test func valhallaManeuverTimesRunOnAcrossLegs() throws {
        let json = #"""
        {"trip":{"legs":[
          {"shape":"_p~iF~ps|U_ulLnnqC_mqNvxq`@","maneuvers":[{"type":1,"begin_shape_index":0,"end_shape_index":2,"time":8,"length":1},{"type":4,"begin_shape_index":2,"end_shape_index":2,"time":0}]},
          {"shape":"_p~iF~ps|U_ulLnnqC","maneuvers":[{"type":1,"begin_shape_index":0,"end_shape_index":1,"time":4,"length":1},{"type":4,"begin_shape_index":1,"end_shape_index":1,"time":0}]}],
         "summary":{"length":2,"time":12},"units":"kilometers"}}
        """#
        let result = try read(json, departure: departure)
        let route = try #require(layer(result, "routes").first)
        #expect(route.parts.map(\.count) == [3, 2])
        let times = try #require(route.times)
        #expect(times.count == 5 && times[0] == at(0) && times[2] == at(8) && times[3] == at(8) && times[4] == at(12))
        #expect(times[1] > at(0) && times[1] < at(8))
        #expect(layer(result, "maneuvers").map(\.times) == [[at(0)], [at(8)], [at(8)], [at(12)]])
        #expect(result.routes.allSatisfy { $0.timeProblem() == nil })
    }

    @Test func aNegativeDurationIsAnErrorAtItsPath() {
        let json = osrm(annotation: nil).replacingOccurrences(of: #""duration":10,"#, with: #""duration":-3,"#)
        #expect(inputError { _ = try read(json) }?.description
            == "d.json: routes[0].legs[0].steps[1].duration: -3 is not a duration")
    }
}
