import Foundation
import RouteTilesModel

/// One geodesic on the WGS84 ellipsoid between two positions, by Vincenty's inverse and direct formulas, so that
/// its points can be taken at any distance from the start.
///
/// For nearly antipodal pairs, where Vincenty's inverse iteration does not converge, the line falls back to the
/// great circle on the mean-radius sphere.
struct GeodesicLine {
    private static let a = GeodesicDistance.semiMajorAxis
    private static let f = GeodesicDistance.flattening
    private static let b = a * (1 - f)
    private static let radians = Double.pi / 180

    let start: Coordinate
    let end: Coordinate
    /// Length in metres.
    let length: Double
    /// Initial azimuth in radians, clockwise from north (unused on the spherical fallback).
    private let azimuth: Double
    private let spherical: Bool

    init(from start: Coordinate, to end: Coordinate) {
        self.start = start
        self.end = end
        if let (s, alpha) = Self.inverse(start, end) {
            length = s
            azimuth = alpha
            spherical = false
        } else {
            length = GeodesicDistance.sphericalMetres(start, end)
            azimuth = 0
            spherical = true
        }
    }

    /// The position at `fraction` (0...1) of the length from the start.
    func point(at fraction: Double) -> Coordinate {
        if fraction <= 0 { return start }
        if fraction >= 1 { return end }
        if spherical { return Self.slerp(start, end, fraction) }
        return Self.direct(start, azimuth: azimuth, distance: length * fraction)
    }

    /// Distance and initial azimuth, or nil when the iteration does not converge.
    static func inverse(_ p: Coordinate, _ q: Coordinate) -> (Double, Double)? {
        let L = remainder((q.longitude - p.longitude) * radians, 2 * Double.pi)
        return GeodesicDistance.vincentyInverse(p, q, longitudeDifference: L)
    }

    /// The position `distance` metres from `p` along the geodesic leaving it at `azimuth` (radians).
    static func direct(_ p: Coordinate, azimuth alpha1: Double, distance s: Double) -> Coordinate {
        let sinAlpha1 = sin(alpha1), cosAlpha1 = cos(alpha1)
        let tanU1 = (1 - f) * tan(p.latitude * radians)
        let cosU1 = 1 / (1 + tanU1 * tanU1).squareRoot(), sinU1 = tanU1 * cosU1
        let sigma1 = atan2(tanU1, cosAlpha1)
        let sinAlpha = cosU1 * sinAlpha1
        let cosSqAlpha = 1 - sinAlpha * sinAlpha
        let uSq = cosSqAlpha * (a * a - b * b) / (b * b)
        let A = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
        let B = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
        var sigma = s / (b * A)
        var sinSigma = 0.0, cosSigma = 0.0, cos2SigmaM = 0.0
        for _ in 0..<100 {
            cos2SigmaM = cos(2 * sigma1 + sigma)
            sinSigma = sin(sigma)
            cosSigma = cos(sigma)
            let deltaSigma = B * sinSigma * (cos2SigmaM + B / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
            let previous = sigma
            sigma = s / (b * A) + deltaSigma
            if abs(sigma - previous) < 1e-12 { break }
        }
        sinSigma = sin(sigma)
        cosSigma = cos(sigma)
        cos2SigmaM = cos(2 * sigma1 + sigma)
        let x = sinU1 * sinSigma - cosU1 * cosSigma * cosAlpha1
        let phi2 = atan2(sinU1 * cosSigma + cosU1 * sinSigma * cosAlpha1, (1 - f) * (sinAlpha * sinAlpha + x * x).squareRoot())
        let lambda = atan2(sinSigma * sinAlpha1, cosU1 * cosSigma - sinU1 * sinSigma * cosAlpha1)
        let C = f / 16 * cosSqAlpha * (4 + f * (4 - 3 * cosSqAlpha))
        let L = lambda - (1 - C) * f * sinAlpha
            * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
        return Coordinate(longitude: p.longitude + L / radians, latitude: phi2 / radians)
    }

    /// The great-circle point at `t` between `p` and `q` on a sphere.
    static func slerp(_ p: Coordinate, _ q: Coordinate, _ t: Double) -> Coordinate {
        func vector(_ c: Coordinate) -> (Double, Double, Double) {
            let phi = c.latitude * radians, lambda = c.longitude * radians
            return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
        }
        let u = vector(p), v = vector(q)
        let dot = max(-1, min(1, u.0 * v.0 + u.1 * v.1 + u.2 * v.2))
        let omega = acos(dot)
        guard omega > 1e-12, sin(omega) > 1e-9 else { return p }
        let k0 = sin((1 - t) * omega) / sin(omega), k1 = sin(t * omega) / sin(omega)
        let w = (k0 * u.0 + k1 * v.0, k0 * u.1 + k1 * v.1, k0 * u.2 + k1 * v.2)
        let longitude = atan2(w.1, w.0) / radians
        let latitude = atan2(w.2, (w.0 * w.0 + w.1 * w.1).squareRoot()) / radians
        return Coordinate(longitude: p.longitude + remainder(longitude - p.longitude, 360), latitude: latitude)
    }
}
