import RouteTilesModel

/// The coordinate ranges every reader enforces, and how out-of-range values are named in messages.
///
/// Longitudes up to ±720° are accepted on purpose: a route written unwrapped (continuing east past the antimeridian
/// as 190°, 200°, …) is valid input, and the projection folds it back.
package enum CoordinateLimits {
    static let latitude: ClosedRange<Double> = -90...90
    static let longitude: ClosedRange<Double> = -720...720

    /// What is wrong with a coordinate, or nil if nothing is: "latitude 91.5 is out of range [-90, 90]".
    @inline(__always)
    package static func problem(with coordinate: Coordinate) -> String? {
        if let problem = latitudeProblem(coordinate.latitude, text: format(coordinate.latitude)) { return problem }
        return longitudeProblem(coordinate.longitude, text: format(coordinate.longitude))
    }

    /// A message if `value` (written as `text`) is not a usable latitude. NaN fails the range test too.
    @inline(__always)
    static func latitudeProblem(_ value: Double, text: @autoclosure () -> String) -> String? {
        latitude.contains(value) ? nil : "latitude \(text()) is out of range [-90, 90]"
    }

    /// A message if `value` (written as `text`) is not a usable longitude.
    @inline(__always)
    static func longitudeProblem(_ value: Double, text: @autoclosure () -> String) -> String? {
        longitude.contains(value) ? nil : "longitude \(text()) is out of range [-720, 720]"
    }

    /// A number as people write it: `95` rather than `95.0`, otherwise Swift's shortest round-trip form.
    static func format(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return "\(value)"
    }
}
