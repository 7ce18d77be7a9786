import RouteTilesModel

/// How far a live track may grow: a route extended by appends keeps its last `maxPoints` positions, and older
/// ones are trimmed away through the store, as a write like any other (every replica applies it, and it
/// invalidates the tiles whose bytes it changes).
///
/// Tracks with times may be bounded by age as well (`keepFor`, `serve --keep-for`): positions recorded longer ago
/// than the bound are trimmed, by the server's retention ticker, at least once a minute.
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

    /// How long the positions of routes without a `keep_for_s` property are kept, in seconds: older ones (by their
    /// recorded time, not by when they arrived) are trimmed. Nil for no bound. Routes without times are not trimmed
    /// by time.
    public var keepFor: Int64?

    /// The property by which a route names its own time bound, in seconds; it wins over the server's.
    public static let keepForKey = "keep_for_s"

    /// A retention whose routes keep at most `maxPoints` positions (nil: no bound but the routes' own), and their
    /// positions of the last `keepFor` seconds (nil: none but the routes' own).
    public init(maxPoints: Int? = nil, keepFor: Int64? = nil) {
        self.maxPoints = maxPoints
        self.keepFor = keepFor
    }

    /// The time bound of a route with `properties`, in seconds: its `keep_for_s` (a positive number), else the
    /// server's.
    public func keepFor(for properties: [Property]) -> Int64? {
        for property in properties.reversed() where property.key == Self.keepForKey {
            switch property.value {
            case let .int(n) where n > 0: return n
            case let .uint(n) where n > 0: return Int64(clamping: n)
            case let .double(d) where d >= 1 && d < 1e12: return Int64(d)
            default: continue
            }
        }
        return keepFor
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
    /// A route of one part with `keep` of `2 * blockStep` or more loses the most positions that leaves at least
    /// `keep` and ends the drop on a boundary of its simplification blocks (nil when that is none): a whole number of
    /// `blockStep`s for a route never trimmed by time.
    public static func trimmed(_ route: Route, keeping keep: Int) -> Route? {
        guard route.kind == .line, keep >= 2, route.pointCount > keep else { return nil }
        if keep >= 2 * blockStep, route.parts.count == 1 {
            let phase = max(route.trimmed, 0) % blockStep
            let drop = (route.pointCount - keep + phase) / blockStep * blockStep - phase
            guard drop > 0 else { return nil }
            return dropping(drop, from: route)
        }
        return dropping(route.pointCount - keep, from: route)
    }

    /// `route` without its positions recorded before `cutoff` (milliseconds since 1970), keeping at least its last
    /// two; nil when it has no times, is not a line, or has nothing to drop.
    public static func trimmed(_ route: Route, before cutoff: Int64) -> Route? {
        guard route.kind == .line, let times = route.times, route.pointCount > 2 else { return nil }
        // Times never go back (`Route.timeProblem`): the ones before the cutoff are a leading run.
        var low = 0, high = times.count
        while low < high {
            let mid = (low + high) / 2
            if times[mid] < cutoff { low = mid + 1 } else { high = mid }
        }
        let drop = min(low, route.pointCount - 2)
        guard drop > 0 else { return nil }
        return dropping(drop, from: route)
    }

    /// `route` without its first `drop` positions (parts flattened in order): whole parts, then the start of the
    /// first part kept; a part left with one position goes too, and nil when no part of two is left. The times
    /// follow, and `Route.trimmed` counts what the first part lost (its own cut when an earlier part went whole).
    static func dropping(_ drop: Int, from route: Route) -> Route? {
        guard drop > 0 else { return nil }
        var left = drop
        var parts: [[Coordinate]] = []
        var trimmedCount = route.trimmed
        for (index, part) in route.parts.enumerated() {
            if left >= part.count - 1 {
                left = max(left - part.count, 0)
                continue
            }
            if parts.isEmpty { trimmedCount = index == 0 ? max(route.trimmed, 0) + left : left }
            parts.append(left > 0 ? Array(part.dropFirst(left)) : part)
            left = 0
        }
        guard !parts.isEmpty else { return nil }
        var trimmed = route
        trimmed.parts = parts
        trimmed.trimmed = trimmedCount
        // What is kept is a run at the end of the positions, parts flattened: so are its times.
        trimmed.times = route.times.map { Array($0.suffix(trimmed.pointCount)) }
        return trimmed
    }
}
