import RouteTilesModel

/// How far a live track may grow: a route extended by appends keeps its last `maxPoints` positions, and older
/// ones are trimmed away through the store, as a write like any other (every replica applies it, and it
/// invalidates the tiles whose bytes it changes).
///
/// The bound is the server's (`serve --max-track-points`) unless the route names its own with the property
/// `max_points` (a positive whole number). A trim comes once a track is an eighth (at least 16 positions) past its
/// bound, so that its cost, a rewrite of the route and of its tiles, is spread over that many appends.
///
/// A bound of `2 * blockStep` positions or more is kept in whole steps of `blockStep` (256) instead: a trim comes
/// once the track is `blockStep` past its bound and drops the largest whole number of steps that leaves at least the
/// bound, so the track holds from N to N + 255 positions. Then what stays is whole simplification blocks
/// (`VertexImportance.blockLength` in the tiling module), which keep their importance, and a trim changes only the
/// tiles the dropped positions were drawn in (`RouteTiler.tilesChanged(byTrimming:)`) where a cut anywhere else
/// changes every tile of the route.
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

    /// The step of a large bound's trims: the tiling's simplification block.
    public static let blockStep = 256

    /// Whether a track of `count` positions is due for a trim to `limit`.
    public static func isDue(count: Int, limit: Int) -> Bool {
        count > limit + (limit >= 2 * blockStep ? blockStep - 1 : max(limit / 8, 16))
    }

    /// `route` with only its last `keep` positions, dropping whole parts from the start and the start of the first
    /// part kept; nil when it has no more than that (or is not a line). A part left with one position is dropped.
    /// A route of one part with `keep` of `2 * blockStep` or more loses a whole number of `blockStep`s instead, the
    /// most that leaves at least `keep` (nil when that is none).
    public static func trimmed(_ route: Route, keeping keep: Int) -> Route? {
        guard route.kind == .line, keep >= 2, route.pointCount > keep else { return nil }
        if keep >= 2 * blockStep, route.parts.count == 1 {
            let drop = (route.pointCount - keep) / blockStep * blockStep
            guard drop > 0 else { return nil }
            var trimmed = route
            trimmed.parts = [Array(route.parts[0].dropFirst(drop))]
            trimmed.times = route.times.map { Array($0.dropFirst(drop)) }
            return trimmed
        }
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
        // What is kept is a run at the end of the positions, parts flattened: so are its times.
        trimmed.times = route.times.map { Array($0.suffix(trimmed.pointCount)) }
        return trimmed
    }
}
