import RouteTilesGeo
import RouteTilesModel

/// Reads a directions response of Google's Directions API, OSRM's route service or Valhalla's route service,
/// recognised by its shape.
///
/// Each route (alternatives included, with `route_index`) becomes a line in the routes' layer (`--layer`, by
/// default `routes`) with `distance_m`, `duration_s` and `summary`; each step a line in layer `steps` with
/// `instruction`, `name`, `distance_m`, `duration_s` and `index`; each maneuver a point in layer `maneuvers` with
/// `type`, `modifier`, `instruction` and `bearing` (degrees clockwise from north). Routes carry no id: feature ids
/// are their order in the response. Errors name the JSON path of the bad member; a bad route stops the read, or,
/// with `--skip-invalid`, is left out with its steps and maneuvers and counted.
///
/// With a departure (`ReadOptions.departure`, or for Google the response's `legs[0].departure_time`), routes, steps
/// and maneuvers get planned times (`PlannedTimes`): OSRM's `legs[].annotation.duration` per segment when its count
/// fits the route's geometry, else the step durations spread over each step's line by geodesic length (Google's and
/// Valhalla's too). Where the route line is not made of the steps' lines (a simplified overview), the timed route's
/// line is the steps' lines joined. Without a departure there are no times: a duration is not an instant.
package enum DirectionsReader {
    package static let stepsLayer = "steps"
    package static let maneuversLayer = "maneuvers"

    package static func read(_ bytes: [UInt8], file: String, options: ReadOptions) throws -> ReadResult {
        let document: JSONValue = try bytes.withUnsafeBufferPointer { buffer throws -> JSONValue in
            var scanner = JSONScanner(bytes: buffer)
            do {
                let value = try scanner.readValue()
                try scanner.finish()
                return value
            } catch let error as JSONSyntaxError {
                throw error.inputError(file: file, in: buffer)
            }
        }
        var builder = DirectionsBuilder(file: file, options: options)
        if document["trip"] != nil {
            try builder.readValhalla(document)
        } else if let routes = document["routes"]?.array {
            if routes.contains(where: { $0["overview_polyline"] != nil || $0["legs"]?.array?.first?["steps"]?
                .array?.first?["html_instructions"] != nil }) {
                try builder.readGoogle(routes)
            } else {
                try builder.readOSRM(document, routes: routes)
            }
        } else {
            throw InputError(file: file, message: "not a directions response: expected \"routes\" (Google, OSRM) "
                                 + "or \"trip\" (Valhalla) at the top level")
        }
        return builder.result
    }

    /// True when `bytes` hold a JSON object with a `routes` or `trip` member and no `type` member at the top level.
    /// Only the top level is walked; on bytes that are not whole JSON (the start of a file), what was seen decides.
    static func looksLikeDirections(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer)
            var found = false
            do {
                var object = try scanner.enterObject()
                while let key = try scanner.nextKey(in: &object) {
                    if key == "type" { return false }
                    if key == "routes" || key == "trip" { found = true }
                    try scanner.skipValue()
                }
            } catch {
                return found
            }
            return found
        }
    }
}

/// Collects the routes, steps and maneuvers of one response.
struct DirectionsBuilder {
    let file: String
    let options: ReadOptions
    var result = ReadResult()

    init(file: String, options: ReadOptions) {
        self.file = file
        self.options = options
    }

    func error(_ path: String, _ message: String) -> InputError {
        InputError(file: file, message: "\(path): \(message)")
    }

    /// The positions of an encoded polyline at `path`, or an error naming the path and the character offset.
    func polyline(_ value: JSONValue?, path: String, precision: Int) throws -> [Coordinate] {
        guard let text = value?.string else { throw error(path, "expected an encoded polyline string") }
        do {
            return try PolylineCodec.decode(Array(text.utf8), precision: precision)
        } catch {
            throw InputError(file: file, location: .offset(error.offset), message: "\(path): \(error.message)")
        }
    }

    /// Reads route `index` of the response with `read`. A route whose data is wrong stops the read, or, with
    /// `--skip-invalid`, is counted and left out with its steps and maneuvers.
    mutating func readRoute(_ read: (inout DirectionsBuilder) throws -> Void) throws {
        let mark = result.routes.count
        do {
            try read(&self)
        } catch let problem as InputError where options.skipInvalid {
            result.routes.removeSubrange(mark...)
            result.invalid.append(problem)
        }
    }

    /// A duration in seconds read from a response: nil when missing; an error naming `path` when negative or not a
    /// number.
    func duration(_ value: JSONValue?, path: String) throws -> Double? {
        guard let value, value != .null else { return nil }
        guard let seconds = value.double, seconds >= 0 else {
            let shown: String
            if case .number(let number) = value { shown = number.text } else { shown = value.kindDescription }
            throw error(path, "\(shown) is not a duration")
        }
        return seconds
    }

    /// A maneuver's position, checked like every other coordinate.
    func location(longitude: Double, latitude: Double, path: String) throws -> Coordinate {
        let c = Coordinate(longitude: longitude, latitude: latitude)
        if let problem = CoordinateLimits.problem(with: c) { throw error(path, problem) }
        return c
    }

    /// The departure planned times start from: `ReadOptions.departure`, else `fallback` (Google's
    /// `departure_time`); nil with `--times ignore`, or when it lies outside 1970–9999.
    func departure(fallback: Int64? = nil) -> Int64? {
        guard options.keepsTimes, let departure = options.departure ?? fallback,
              departure >= TimeValue.earliest, departure <= TimeValue.latest else { return nil }
        return departure
    }

    mutating func addRoute(index: Int, parts: [[Coordinate]], distance: Double?, duration: Double?, summary: String?,
                           provider: String, origin: String, times: [Int64]? = nil) throws {
        let lines = parts.filter { $0.count >= 2 }
        // Times are given for the parts as they are; a part too short to keep would shift them.
        let times = lines.count == parts.count && times?.count == parts.reduce(0, { $0 + $1.count }) ? times : nil
        guard !lines.isEmpty else {
            throw error(origin, "the route has no line of two or more positions")
        }
        var properties = [Property("route_index", .int(Int64(index))), Property("provider", .string(provider))]
        if let distance { properties.append(Property("distance_m", .double(distance))) }
        if let duration { properties.append(Property("duration_s", .double(duration))) }
        if let summary, !summary.isEmpty { properties.append(Property("summary", .string(summary))) }
        result.routes.append(Route(properties: properties, parts: lines,
                                   origin: "\(file) \(origin)", geodesic: options.geodesic, times: times))
    }

    struct Step {
        var routeIndex: Int
        var line: [Coordinate]
        var instruction: String?
        var name: String?
        var distance: Double?
        var duration: Double?
        var type: String?
        var modifier: String?
        var bearing: Double?
        var location: Coordinate?
    }

    /// Adds a step's line (in layer `steps`) and its maneuver (a point in layer `maneuvers`); `times` are those of
    /// `step.line`, and the maneuver gets the first.
    mutating func addStep(_ step: Step, index: Int, origin: String, times: ArraySlice<Int64>? = nil) {
        var properties = [Property("route_index", .int(Int64(step.routeIndex))), Property("index", .int(Int64(index)))]
        if let instruction = step.instruction { properties.append(Property("instruction", .string(instruction))) }
        if let name = step.name, !name.isEmpty { properties.append(Property("name", .string(name))) }
        if let distance = step.distance { properties.append(Property("distance_m", .double(distance))) }
        if let duration = step.duration { properties.append(Property("duration_s", .double(duration))) }
        let line = step.line.count >= 2 && Set(step.line).count >= 2 ? step.line : nil
        if let line {
            result.routes.append(Route(properties: properties, parts: [line],
                                       origin: "\(file) \(origin)", layer: DirectionsReader.stepsLayer,
                                       times: times?.count == line.count ? Array(times ?? []) : nil))
        }
        guard let location = step.location ?? step.line.first else { return }
        var maneuver = [Property("route_index", .int(Int64(step.routeIndex))), Property("index", .int(Int64(index)))]
        if let type = step.type { maneuver.append(Property("type", .string(type))) }
        if let modifier = step.modifier { maneuver.append(Property("modifier", .string(modifier))) }
        if let instruction = step.instruction { maneuver.append(Property("instruction", .string(instruction))) }
        let bearing = step.bearing ?? line.flatMap { l in l.first(where: { $0 != l[0] }).map { Bearing.initial(l[0], $0) } }
        if let bearing { maneuver.append(Property("bearing", .double((bearing * 10).rounded() / 10))) }
        result.routes.append(Route(properties: maneuver, parts: [[location]],
                                   origin: "\(file) \(origin)", layer: DirectionsReader.maneuversLayer, kind: .point,
                                   times: times?.first.map { [$0] }))
    }
}
