import RouteTiles
import RouteTilesTiling

/// Shorthands for building geometries and comparing decoded values in the encoding tests.
package enum TileTestSupport {
    package static func point(_ x: Int32, _ y: Int32) -> TilePoint {
        TilePoint(x: x, y: y)
    }

    /// A line geometry with one part per argument.
    package static func lines(_ parts: [(Int32, Int32)]...) -> TileGeometry {
        var geometry = TileGeometry(kind: .lineString)
        for part in parts { geometry.appendPart(part.map { point($0.0, $0.1) }) }
        return geometry
    }

    /// A point geometry with each point as its own part.
    package static func points(_ coordinates: (Int32, Int32)...) -> TileGeometry {
        var geometry = TileGeometry(kind: .point)
        for coordinate in coordinates { geometry.appendPart([point(coordinate.0, coordinate.1)]) }
        return geometry
    }

    /// The command stream `GeometryEncoder` writes, or nil when it refuses the geometry.
    package static func encodedGeometry(_ geometry: TileGeometry) -> [UInt8]? {
        var buffer: [UInt8] = []
        guard let count = GeometryEncoder.encode(geometry, into: &buffer) else { return nil }
        return Array(buffer.prefix(count))
    }

    /// Equality that tells apart what a tile tells apart: doubles by bit pattern, strings by UTF-8 bytes.
    package static func sameValue(_ lhs: PropertyValue, _ rhs: PropertyValue) -> Bool {
        switch (lhs, rhs) {
        case let (.double(a), .double(b)): return a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): return Array(a.utf8) == Array(b.utf8)
        default: return lhs == rhs
        }
    }

    package static func sameProperties(_ lhs: [Property], _ rhs: [Property]) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy {
            Array($0.key.utf8) == Array($1.key.utf8) && sameValue($0.value, $1.value)
        }
    }

    /// What the decoder gives back for a value: integers up to Int64.max come back as `.int`.
    package static func normalized(_ value: PropertyValue) -> PropertyValue {
        if case let .uint(number) = value, number <= UInt64(Int64.max) { return .int(Int64(number)) }
        return value
    }
}
