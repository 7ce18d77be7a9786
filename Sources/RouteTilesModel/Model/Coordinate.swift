/// A position on the WGS84 ellipsoid in degrees, as the input gave it.
///
/// Longitudes may lie beyond ±180° when a route is written unwrapped (a flight that keeps going east past the
/// antimeridian); the projection folds them back.
public struct Coordinate: Hashable, Sendable {
    /// Degrees east of Greenwich (negative to the west).
    public var longitude: Double
    /// Degrees north of the equator (negative to the south).
    public var latitude: Double

    /// A position at `longitude`, `latitude`, in degrees.
    public init(longitude: Double, latitude: Double) {
        self.longitude = longitude
        self.latitude = latitude
    }
}
