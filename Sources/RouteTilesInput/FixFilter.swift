import Foundation
import RouteTilesGeo
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
    /// Fixes with times only (Traccar's `filter.maxSpeed`): drop a fix that implies more than this speed (m/s) from
    /// the last fix kept.
    public var maxSpeed: Double?
    /// Fixes with times only (Traccar's `filter.minPeriod`): drop a fix less than this many milliseconds after the
    /// last fix kept.
    public var minPeriod: Int64?
    /// Fixes with times only (Traccar's `filter.duplicate`): drop a fix at the very position of the last fix kept.
    public var dropRepeated: Bool

    public init(dropZero: Bool = false, dropInvalid: Bool = false, maxSpeed: Double? = nil, minPeriod: Int64? = nil,
                dropRepeated: Bool = false) {
        self.dropZero = dropZero
        self.dropInvalid = dropInvalid
        self.maxSpeed = maxSpeed
        self.minPeriod = minPeriod
        self.dropRepeated = dropRepeated
    }

    /// Whether any filter of single fixes is on.
    public var isActive: Bool { dropZero || dropInvalid }

    /// Whether any filter that compares a fix with the last one kept is on.
    public var comparesFixes: Bool { maxSpeed != nil || minPeriod != nil || dropRepeated }

    /// How many fixes the filters dropped from a point list, by reason.
    public struct Dropped: Sendable, Equatable {
        public var zero = 0
        public var invalid = 0
        /// Fixes past `maxSpeed`, sooner than `minPeriod`, at the last kept position (`dropRepeated`).
        public var speed = 0
        public var period = 0
        public var repeated = 0

        public init(zero: Int = 0, invalid: Int = 0, speed: Int = 0, period: Int = 0, repeated: Int = 0) {
            self.zero = zero
            self.invalid = invalid
            self.speed = speed
            self.period = period
            self.repeated = repeated
        }

        public var total: Int { zero + invalid + speed + period + repeated }

        public static func += (a: inout Dropped, b: Dropped) {
            a.zero += b.zero
            a.invalid += b.invalid
            a.speed += b.speed
            a.period += b.period
            a.repeated += b.repeated
        }
    }

    /// Removes, in place, the fixes (with their `times`) that the filters comparing fixes drop: walked in time
    /// order from `last` (the route's last fix: position and time in milliseconds), each fix after it is compared
    /// with the last one kept. Fixes at or before `last`'s time are left to the store (late fixes, duplicates).
    public func filterAgainstLast(_ points: inout [Coordinate], times: inout [Int64],
                                  last: (position: Coordinate, time: Int64)?) -> Dropped {
        guard comparesFixes, points.count == times.count else { return Dropped() }
        var dropped = Dropped()
        var kept = last
        var drop = Array(repeating: false, count: points.count)
        for index in times.indices.sorted(by: { (times[$0], $0) < (times[$1], $1) }) {
            let (point, time) = (points[index], times[index])
            guard let previous = kept, time > previous.time else {
                if kept == nil { kept = (point, time) }
                continue
            }
            if dropRepeated, point == previous.position {
                dropped.repeated += 1
                drop[index] = true
            } else if let minPeriod, time - previous.time < minPeriod {
                dropped.period += 1
                drop[index] = true
            } else if let maxSpeed, GeodesicDistance.metres(previous.position, point) / (Double(time - previous.time) / 1000) > maxSpeed {
                dropped.speed += 1
                drop[index] = true
            } else {
                kept = (point, time)
            }
        }
        guard dropped.total > 0 else { return dropped }
        var keptPoints: [Coordinate] = []
        var keptTimes: [Int64] = []
        for index in points.indices where !drop[index] {
            keptPoints.append(points[index])
            keptTimes.append(times[index])
        }
        points = keptPoints
        times = keptTimes
        return dropped
    }

    /// A speed as people write it: `300km/h`, `80kn`, `50m/s`, or a bare number of m/s; in m/s. Nil when unreadable
    /// or not positive.
    public static func speed(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        for (suffix, factor) in [("km/h", 1 / 3.6), ("kmh", 1 / 3.6), ("kn", 0.514444), ("m/s", 1.0), ("mph", 0.44704)]
            where trimmed.hasSuffix(suffix) {
            guard let value = Double(trimmed.dropLast(suffix.count)), value.isFinite, value > 0 else { return nil }
            return value * factor
        }
        guard let value = Double(trimmed), value.isFinite, value > 0 else { return nil }
        return value
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
