import RouteTilesModel

/// The glitch filters fleet software applies to appended fixes (Traccar's `filter.zero` and `filter.invalid`):
/// positions a GPS device sends that are no position at all, dropped before they reach a track instead of drawing a
/// line across the world. Off by default: without a filter, (0, 0) is a position like any other and an out-of-range
/// coordinate makes the whole point list a 400.
public struct FixFilter: Sendable, Equatable {
    /// Drop fixes at exactly (0, 0): what many devices send before they have a fix.
    public var dropZero: Bool
    /// Drop fixes whose coordinates are no position: latitude outside ±90°, longitude outside ±180°, or not a
    /// number. Without it such a fix makes its point list a 400.
    public var dropInvalid: Bool

    public init(dropZero: Bool = false, dropInvalid: Bool = false) {
        self.dropZero = dropZero
        self.dropInvalid = dropInvalid
    }

    /// Whether any filter is on.
    public var isActive: Bool { dropZero || dropInvalid }

    /// How many fixes the filters dropped from a point list, by reason.
    public struct Dropped: Sendable, Equatable {
        public var zero = 0
        public var invalid = 0

        public init(zero: Int = 0, invalid: Int = 0) {
            self.zero = zero
            self.invalid = invalid
        }

        public var total: Int { zero + invalid }

        public static func += (a: inout Dropped, b: Dropped) {
            a.zero += b.zero
            a.invalid += b.invalid
        }
    }

    /// Removes from `points` the fixes the filters drop, in place, keeping the others' order; returns the count.
    public func filter(_ points: inout [Coordinate]) -> Dropped {
        guard isActive else { return Dropped() }
        var dropped = Dropped()
        points.removeAll { c in
            if dropInvalid && !Self.isPosition(c) {
                dropped.invalid += 1
                return true
            }
            if dropZero && c.longitude == 0 && c.latitude == 0 {
                dropped.zero += 1
                return true
            }
            return false
        }
        return dropped
    }

    /// `filter(_:)` over points with their times (nil: none), which drop with their points.
    public func filter(_ points: inout [Coordinate], times: inout [Int64]?) -> Dropped {
        guard isActive, let held = times else { return filter(&points) }
        var dropped = Dropped()
        var keptPoints: [Coordinate] = []
        var keptTimes: [Int64] = []
        keptPoints.reserveCapacity(points.count)
        keptTimes.reserveCapacity(points.count)
        for (c, time) in zip(points, held) {
            if dropInvalid && !Self.isPosition(c) {
                dropped.invalid += 1
            } else if dropZero && c.longitude == 0 && c.latitude == 0 {
                dropped.zero += 1
            } else {
                keptPoints.append(c)
                keptTimes.append(time)
            }
        }
        points = keptPoints
        times = keptTimes
        return dropped
    }

    /// Whether `c` can be where a device is: finite, latitude within ±90°, longitude within ±180°.
    static func isPosition(_ c: Coordinate) -> Bool {
        (-90...90).contains(c.latitude) && (-180...180).contains(c.longitude)
    }
}
