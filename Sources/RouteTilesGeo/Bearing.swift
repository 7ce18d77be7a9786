import Foundation
import RouteTilesModel

/// Compass directions between positions.
package enum Bearing {
    /// The initial great-circle bearing from `a` toward `b`, in degrees clockwise from north, in 0..<360.
    package static func initial(_ a: Coordinate, _ b: Coordinate) -> Double {
        let radians = Double.pi / 180
        let phi1 = a.latitude * radians, phi2 = b.latitude * radians
        let deltaLambda = (b.longitude - a.longitude) * radians
        let y = sin(deltaLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(deltaLambda)
        let degrees = atan2(y, x) / radians
        return degrees < 0 ? degrees + 360 : (degrees >= 360 ? 0 : degrees)
    }
}
