import RouteTilesModel

/// How far a live track may grow: a route extended by appends keeps its last `maxPoints` positions, and older
/// ones are trimmed away through the store, as a write like any other (every replica applies it, and it
/// invalidates the tiles of the route as it was and as it is).
///
/// The bound is the server's (`serve --max-track-points`) unless the route names its own with the property
/// `max_points` (a positive whole number). A trim comes once a track is an eighth (at least 16 positions) past its
/// bound, so that its cost, a rewrite of the route and of its tiles, is spread over that many appends.
public struct TrackRetention: Sendable, Equatable {
    /// The bound of routes without a `max_points` property; nil for none.
    public var maxPoints: Int?

    /// The property by which a route names its own bound.
    public static let propertyKey = "max_points"

    /// A retention whose routes keep at most `maxPoints` positions (nil: no bound but the routes' own).
    public init(maxPoints: Int? = nil) {
        self.maxPoints = maxPoints
    }

    /// The bound of a route with `properties`: its `max_points`, else the server's.
    public func limit(for properties: [Property]) -> Int? {
        for property in properties.reversed() where property.key == Self.propertyKey {
            switch property.value {
            case let .int(n) where n > 0: return Int(n)
            case let .uint(n) where n > 0: return Int(clamping: n)
            case let .double(d) where d >= 1 && d < 1e15: return Int(d)
            default: continue
            }
        }
        return maxPoints
    }

    /// Whether a track of `count` positions is due for a trim to `limit`.
    public static func isDue(count: Int, limit: Int) -> Bool {
        count > limit + max(limit / 8, 16)
    }

    /// `route` with only its last `keep` positions, dropping whole parts from the start and the start of the first
    /// part kept; nil when it has no more than that (or is not a line). A part left with one position is dropped.
    public static func trimmed(_ route: Route, keeping keep: Int) -> Route? {
        guard route.kind == .line, keep >= 2, route.pointCount > keep else { return nil }
        var left = keep
        var parts: [[Coordinate]] = []
        for part in route.parts.reversed() where left > 0 {
            let taken = Array(part.suffix(left))
            left -= taken.count
            if taken.count >= 2 { parts.append(taken) }
        }
        guard !parts.isEmpty else { return nil }
        var trimmed = route
        trimmed.parts = parts.reversed()
        return trimmed
    }
}
