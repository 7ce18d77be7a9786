import Foundation

/// A longitude/latitude box (west, south, east, north) in degrees: the one type for such a box in the library (the
/// tiles that meet it are in Tiling/BoundingBox+Tiles).
public struct BoundingBox: Sendable, Equatable {
    /// The western longitude, in degrees.
    public var west: Double
    /// The southern latitude, in degrees.
    public var south: Double
    /// The eastern longitude, in degrees.
    public var east: Double
    /// The northern latitude, in degrees.
    public var north: Double

    /// A box with the given edges, in degrees.
    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// Parses "W,S,E,N" in degrees; the error (a `ValueError`) names the text and says which part is wrong.
    package init(parsing text: String) throws {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4 else {
            throw ValueError("bounding box '\(text)': expected W,S,E,N (4 numbers), got \(parts.count) parts")
        }
        for (k, name) in ["west", "south", "east", "north"].enumerated() where parts[k] == nil || !(parts[k]?.isFinite ?? false) {
            throw ValueError("bounding box '\(text)': \(name) (part \(k + 1)) is not a number")
        }
        let v = parts.compactMap { $0 }
        self.init(west: v[0], south: v[1], east: v[2], north: v[3])
        guard (-180...180).contains(west), (-180...180).contains(east), west <= east else {
            throw ValueError("bounding box '\(text)': longitudes must lie in −180…180 with west ≤ east")
        }
        guard (-90...90).contains(south), (-90...90).contains(north), south <= north else {
            throw ValueError("bounding box '\(text)': latitudes must lie in −90…90 with south ≤ north")
        }
    }

    /// The box as the metadata formats write it: [west, south, east, north].
    public var array: [Double] { [west, south, east, north] }
}
