import Foundation
import RouteTilesModel

/// Distances on the WGS84 ellipsoid.
package enum GeodesicDistance {
    static let semiMajorAxis = 6_378_137.0
    static let flattening = 1 / 298.257223563
    @usableFromInline static let semiMinorAxis = semiMajorAxis * (1 - flattening)

    /// The ellipsoidal distance in metres between two positions, by Vincenty's inverse formula (accurate to well
    /// under a millimetre). The longitude difference is taken the short way, so unwrapped longitudes work. For the
    /// nearly antipodal pairs where the iteration does not converge, the answer falls back to the spherical
    /// distance on the mean radius, which errs by at most about 0.5%.
    package static func metres(_ p: Coordinate, _ q: Coordinate) -> Double {
        if p == q { return 0 }
        if let short = shortSegmentMetres(p, q) { return short }
        return vincentyMetres(p, q)
    }

    /// For segments under 5 km away from the poles (nearly every segment of a GPS track), the length on the plane
    /// tangent at the mid-latitude, with the ellipsoid's meridional and prime-vertical radii of curvature there. Its
    /// relative error is of the order of (length / radius)², under a millimetre at 5 km, at a fraction of
    /// Vincenty's cost. Returns nil for longer or polar segments.
    @inlinable static func shortSegmentMetres(_ p: Coordinate, _ q: Coordinate) -> Double? {
        let rad = Double.pi / 180
        let midLat = (p.latitude + q.latitude) * 0.5
        guard abs(midLat) < 80 else { return nil }
        var dLon = q.longitude - p.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let dLat = q.latitude - p.latitude
        guard abs(dLat) < 0.05, abs(dLon) < 0.3 else { return nil }
        let phi = midLat * rad
        let s = sin(phi), e2 = flattening * (2 - flattening)
        let w2 = 1 - e2 * s * s
        let w = w2.squareRoot()
        let n = semiMajorAxis / w                      // prime vertical radius of curvature
        let m = semiMajorAxis * (1 - e2) / (w2 * w)     // meridional radius of curvature
        let dy = m * dLat * rad
        let dx = n * cos(phi) * dLon * rad
        let d = (dx * dx + dy * dy).squareRoot()
        return d < 5000 ? d : nil
    }

    /// Vincenty's inverse formula; see `metres`.
    static func vincentyMetres(_ p: Coordinate, _ q: Coordinate) -> Double {
        if p == q { return 0 }
        let rad = Double.pi / 180
        var dLon = (q.longitude - p.longitude).truncatingRemainder(dividingBy: 360)
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return vincentyInverse(p, q, longitudeDifference: dLon * rad)?.metres ?? sphericalMetres(p, q)
    }

    /// Vincenty's inverse formula: the length of the geodesic from `p` to `q` and its azimuth at `p` (radians,
    /// clockwise from north), or nil when the iteration does not converge (nearly antipodal positions).
    ///
    /// `longitudeDifference` is q's longitude less p's, in radians, reduced to −π…π by the caller: `metres` reduces
    /// it in degrees, `GeodesicLine` in radians, and the two differ in the last bits for unwrapped longitudes, so
    /// each keeps its own to keep lengths (and tiles) exactly as they were.
    static func vincentyInverse(_ p: Coordinate, _ q: Coordinate,
                                longitudeDifference L: Double) -> (metres: Double, azimuth: Double)? {
        let a = semiMajorAxis, b = semiMinorAxis, f = flattening
        let rad = Double.pi / 180
        let u1 = atan((1 - f) * tan(p.latitude * rad))
        let u2 = atan((1 - f) * tan(q.latitude * rad))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)
        var lambda = L
        for _ in 0..<200 {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            let t1 = cosU2 * sinLambda
            let t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            let sinSigma = (t1 * t1 + t2 * t2).squareRoot()
            if sinSigma == 0 { return (0, 0) }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            let cos2Alpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let c = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda = L + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let uSq = cos2Alpha * (a * a - b * b) / (b * b)
                let bigA = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
                let bigB = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
                let deltaSigma = bigB * sinSigma * (cos2SigmaM + bigB / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                    - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                return (b * bigA * (sigma - deltaSigma), atan2(t1, t2))
            }
        }
        return nil
    }

    /// Great-circle distance on a sphere of the WGS84 mean radius (haversine).
    static func sphericalMetres(_ p: Coordinate, _ q: Coordinate) -> Double {
        let rad = Double.pi / 180
        let meanRadius = (2 * semiMajorAxis + semiMinorAxis) / 3
        let dLat = (q.latitude - p.latitude) * rad
        let dLon = (q.longitude - p.longitude) * rad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(p.latitude * rad) * cos(q.latitude * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * meanRadius * asin(min(1, h.squareRoot()))
    }
}
