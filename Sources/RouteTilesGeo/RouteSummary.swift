import Foundation
import RouteTilesModel

/// What a list of routes shows of one route: a name, its length on the ground, its duration where the input tells
/// it, and the box a map flies to.
///
/// - The name is the first of the properties `name`, `title`, `summary` and `ref` that holds a non-empty string.
/// - The length follows the route's positions on the WGS84 ellipsoid, part after part (the gaps between parts are not
///   counted). A geodesic route's segments are great-circle arcs, which is what the ellipsoidal distance measures.
/// - The duration is `duration_s` (directions), `moving_time_s` or `elapsed_time_s` when one is a number, else the
///   time from `start_time` to `end_time` (GPX) when both are ISO 8601 instants, else, for a route with a time on
///   every position, from its first to its last.
/// - The bounds are in degrees with longitudes unwrapped across the antimeridian, so that a flight from Tokyo to
///   San Francisco has a west below an east (the east may lie beyond 180°).
package struct RouteSummary: Sendable, Equatable {
    package var name: String?
    package var lengthMetres: Double
    package var durationSeconds: Double?
    /// West, south, east, north; nil for a route without positions.
    package var bounds: [Double]?
    package var pointCount: Int
    /// For a route with times: when its first and last positions were recorded, in milliseconds since 1970.
    package var firstTime: Int64?
    package var lastTime: Int64?

    package static let nameKeys = ["name", "title", "summary", "ref"]
    package static let durationKeys = ["duration_s", "moving_time_s", "elapsed_time_s"]

    package init(of route: Route) {
        name = Self.name(of: route.properties)
        firstTime = route.times?.first
        lastTime = route.times?.last
        // A route with times lasts from its first to its last, unless its properties tell otherwise.
        durationSeconds = Self.duration(of: route.properties)
        if durationSeconds == nil, let first = route.times?.first, let last = route.times?.last {
            durationSeconds = Double(last - first) / 1000
        }
        pointCount = route.pointCount
        var length = 0.0
        var west = Double.infinity, south = Double.infinity, east = -Double.infinity, north = -Double.infinity
        for part in route.parts where !part.isEmpty {
            let line = part.count >= 2 ? AntimeridianUnwrap.unwrapped(part) : part
            var previous = line[0]
            for position in line {
                length += GeodesicDistance.metres(previous, position)
                previous = position
                west = min(west, position.longitude)
                east = max(east, position.longitude)
                south = min(south, position.latitude)
                north = max(north, position.latitude)
            }
        }
        lengthMetres = length
        bounds = west <= east ? [west, south, east, north] : nil
    }

    static func name(of properties: [Property]) -> String? {
        for key in nameKeys {
            if let property = properties.first(where: { $0.key == key }), case let .string(s) = property.value, !s.isEmpty {
                return s
            }
        }
        return nil
    }

    static func duration(of properties: [Property]) -> Double? {
        func value(_ key: String) -> PropertyValue? { properties.first(where: { $0.key == key })?.value }
        for key in durationKeys {
            switch value(key) {
            case let .double(d)? where d.isFinite && d >= 0: return d
            case let .int(i)? where i >= 0: return Double(i)
            case let .uint(u)?: return Double(u)
            default: continue
            }
        }
        guard case let .string(start)? = value("start_time"), case let .string(end)? = value("end_time"),
              let from = instant(start), let to = instant(end), to >= from else { return nil }
        return to.timeIntervalSince(from)
    }

    /// An ISO 8601 date and time with a zone, with or without fractional seconds.
    static func instant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
