import Foundation

/// A value that changes with the zoom: stops interpolated as MapLibre's `["interpolate", ["exponential", base],
/// ["zoom"], z0, v0, z1, v1, …]` does (linear when `base` is 1), held at the first and last stop's value outside.
public struct ZoomStops: Sendable, Equatable {
    /// The stops, in increasing zoom.
    public var stops: [Stop]
    /// The exponential base of the interpolation between stops.
    public var base: Double

    public struct Stop: Sendable, Equatable {
        public var zoom: Double
        public var value: Double
        public init(_ zoom: Double, _ value: Double) {
            self.zoom = zoom
            self.value = value
        }
    }

    public init(_ stops: [(Double, Double)], base: Double = 1) {
        self.stops = stops.map { Stop($0.0, $0.1) }
        self.base = base
    }

    /// The value at `zoom`.
    public func value(at zoom: Double) -> Double {
        guard let first = stops.first, let last = stops.last else { return 0 }
        if zoom <= first.zoom { return first.value }
        if zoom >= last.zoom { return last.value }
        for (lower, upper) in zip(stops, stops.dropFirst()) where zoom <= upper.zoom {
            let span = upper.zoom - lower.zoom
            guard span > 0 else { return upper.value }
            let progress = zoom - lower.zoom
            let t = base == 1 ? progress / span : (pow(base, progress) - 1) / (pow(base, span) - 1)
            return lower.value + t * (upper.value - lower.value)
        }
        return last.value
    }

    /// The same stops with every value times `factor`.
    public func scaled(by factor: Double) -> ZoomStops {
        var scaled = self
        scaled.stops = stops.map { Stop($0.zoom, $0.value * factor) }
        return scaled
    }
}
