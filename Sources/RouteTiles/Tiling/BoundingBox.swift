import Foundation

/// A longitude/latitude box (west, south, east, north), and the tiles that meet it at a zoom.
public struct BoundingBox: Sendable, Equatable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// Parses "W,S,E,N" in degrees; the error (a `ValueError`) names the text and says which part is wrong.
    public init(parsing text: String) throws {
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

    /// The columns and rows of the tiles at zoom `z` that meet the box.
    public func tileRange(zoom z: Int) -> (x: ClosedRange<Int>, y: ClosedRange<Int>) {
        let n = 1 << z
        func column(_ lon: Double) -> Int { min(n - 1, max(0, Int(((lon + 180) / 360 * Double(n)).rounded(.down)))) }
        func row(_ lat: Double) -> Int {
            let clamped = min(max(lat, -85.0511287798), 85.0511287798) * .pi / 180
            let y = (1 - log(tan(clamped) + 1 / cos(clamped)) / .pi) / 2 * Double(n)
            return min(n - 1, max(0, Int(y.rounded(.down))))
        }
        return (column(west)...column(east), row(north)...row(south))
    }

    /// How many tiles meet the box at zoom `z`.
    public func tileCount(zoom z: Int) -> Int {
        let r = tileRange(zoom: z)
        return r.x.count * r.y.count
    }

    /// The tiles that meet the box at zoom `z`.
    public func tiles(zoom z: Int) -> [TileID] {
        let r = tileRange(zoom: z)
        var out: [TileID] = []
        out.reserveCapacity(r.x.count * r.y.count)
        for x in r.x { for y in r.y { out.append(TileID(z: z, x: x, y: y)) } }
        return out
    }
}
