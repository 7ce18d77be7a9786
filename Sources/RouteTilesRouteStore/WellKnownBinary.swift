import RouteTilesModel

/// Geometries as OGC Well-Known Binary, the form PostGIS (`ST_AsBinary`, `ST_GeomFromWKB`), SpatiaLite and GDAL
/// exchange: the route stores keep a route's lines in it.
///
/// Written by hand: it is a byte order mark, a type and counts before little runs of doubles, and no listed package
/// reads it. Only what routes are made of is read: Point, LineString, MultiPoint and MultiLineString, in two
/// dimensions, either byte order; anything else is an error that names what was found.
package enum WellKnownBinary {
    package enum Geometry: Equatable, Sendable {
        case lines([[Coordinate]])
        case points([Coordinate])
    }

    package struct Problem: Error, Sendable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    // MARK: Writing

    /// LineString for one part, MultiLineString for more; Point for one position, MultiPoint for more.
    package static func encode(_ route: Route) -> [UInt8] {
        var out: [UInt8] = []
        switch route.kind {
        case .line:
            let parts = route.parts
            out.reserveCapacity(9 + parts.reduce(0) { $0 + 9 + 16 * $1.count })
            if parts.count == 1 {
                appendLine(parts[0], to: &out)
            } else {
                appendHeader(type: 5, count: parts.count, to: &out)
                for part in parts { appendLine(part, to: &out) }
            }
        case .point:
            let points = route.parts.flatMap { $0 }
            if points.count == 1 {
                appendHeader(type: 1, count: nil, to: &out)
                appendCoordinate(points[0], to: &out)
            } else {
                out = multiPoint(points)
            }
        }
        return out
    }

    /// A MultiPoint of `points`: how appended positions travel to PostGIS.
    package static func multiPoint(_ points: [Coordinate]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(9 + 21 * points.count)
        appendHeader(type: 4, count: points.count, to: &out)
        for point in points {
            appendHeader(type: 1, count: nil, to: &out)
            appendCoordinate(point, to: &out)
        }
        return out
    }

    private static func appendLine(_ part: [Coordinate], to out: inout [UInt8]) {
        appendHeader(type: 2, count: part.count, to: &out)
        for c in part { appendCoordinate(c, to: &out) }
    }

    private static func appendHeader(type: UInt32, count: Int?, to out: inout [UInt8]) {
        out.append(1)  // little-endian
        appendUInt32(type, to: &out)
        if let count { appendUInt32(UInt32(truncatingIfNeeded: count), to: &out) }
    }

    private static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func appendCoordinate(_ c: Coordinate, to out: inout [UInt8]) {
        withUnsafeBytes(of: c.longitude.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: c.latitude.bitPattern.littleEndian) { out.append(contentsOf: $0) }
    }

    /// Whether `header` (the first five bytes of a geometry, or more) starts a LineString or a MultiLineString:
    /// the geometries an append can extend.
    package static func startsALine(_ header: [UInt8]) -> Bool {
        var reader = Reader(bytes: header)
        guard let (type, _) = try? reader.header() else { return false }
        return type == 2 || type == 5
    }

    /// The line `wkb` with `points` added to the end of its last part, spliced in place of decoding and
    /// re-encoding it: the work follows the new points, plus one copy of the bytes. Nil when `wkb` is not a
    /// LineString or MultiLineString.
    package static func appending(_ points: [Coordinate], to wkb: [UInt8]) throws(Problem) -> [UInt8]? {
        var reader = Reader(bytes: wkb)
        let (type, little) = try reader.header()
        var countOffset: Int
        var lineLittle = little
        switch type {
        case 2:
            countOffset = reader.offset
            _ = try reader.line(little)
        case 5:
            let parts = try reader.count(little, each: 9)
            guard parts > 0 else { return nil }
            countOffset = 0
            for _ in 0..<parts {
                let (inner, innerLittle) = try reader.header()
                guard inner == 2 else { throw Problem(message: "a MultiLineString holds a \(name(of: inner))") }
                countOffset = reader.offset
                lineLittle = innerLittle
                let count = try reader.count(innerLittle, each: 16)
                reader.offset += 16 * count
            }
        default:
            return nil
        }
        guard reader.offset == wkb.count else { throw Problem(message: "\(wkb.count - reader.offset) bytes follow the geometry") }
        var countReader = Reader(bytes: wkb, offset: countOffset)
        let count = Int(try countReader.uint32(lineLittle)) + points.count
        guard count <= Int(UInt32.max) else { throw Problem(message: "a line of more than 2^32 positions") }
        var out = wkb
        out.reserveCapacity(wkb.count + 16 * points.count)
        for i in 0..<4 {
            let byte = UInt8(truncatingIfNeeded: UInt32(count) >> (8 * UInt32(i)))
            out[countOffset + (lineLittle ? i : 3 - i)] = byte
        }
        for c in points {
            for value in [c.longitude, c.latitude] {
                let bits = value.bitPattern
                for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(lineLittle ? i : 7 - i)))) }
            }
        }
        return out
    }

    // MARK: Reading

    /// Reads one geometry; the bytes must hold exactly it.
    package static func decode(_ bytes: [UInt8]) throws(Problem) -> Geometry {
        var reader = Reader(bytes: bytes)
        let geometry: Geometry
        let (type, littleEndian) = try reader.header()
        switch type {
        case 1: geometry = .points([try reader.coordinate(littleEndian)])
        case 2: geometry = .lines([try reader.line(littleEndian)])
        case 4:
            geometry = .points(try reader.members(of: type, littleEndian, memberType: 1, each: 21) { r, little throws(Problem) in
                try r.coordinate(little)
            })
        case 5:
            geometry = .lines(try reader.members(of: type, littleEndian, memberType: 2, each: 9) { r, little throws(Problem) in
                try r.line(little)
            })
        default:
            throw Problem(message: "the geometry is a \(name(of: type)), not a line or points")
        }
        guard reader.offset == bytes.count else {
            throw Problem(message: "\(bytes.count - reader.offset) bytes follow the geometry")
        }
        return geometry
    }

    /// The OGC name of a WKB type code, with the dimensions ISO and EWKB add.
    static func name(of type: UInt32) -> String {
        let names = [1: "Point", 2: "LineString", 3: "Polygon", 4: "MultiPoint", 5: "MultiLineString",
                     6: "MultiPolygon", 7: "GeometryCollection"]
        let ewkbFlags = type & 0xF000_0000
        let base = Int((type & 0x0FFF_FFFF) % 1000)
        let dimensions = Int((type & 0x0FFF_FFFF) / 1000)
        let name = names[base] ?? "geometry of type \(type)"
        if ewkbFlags != 0 || dimensions != 0 { return "\(name) with Z or M (only 2D geometries are read)" }
        return name
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func header() throws(Problem) -> (type: UInt32, littleEndian: Bool) {
            guard offset < bytes.count else { throw Problem(message: "the geometry ends early") }
            let order = bytes[offset]
            guard order <= 1 else { throw Problem(message: "byte \(offset) is not a WKB byte order (0 or 1)") }
            offset += 1
            return (try uint32(order == 1), order == 1)
        }

        mutating func uint32(_ little: Bool) throws(Problem) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw Problem(message: "the geometry ends early") }
            var value: UInt32 = 0
            for i in 0..<4 {
                let byte = UInt32(bytes[offset + (little ? i : 3 - i)])
                value |= byte << (8 * UInt32(i))
            }
            offset += 4
            return value
        }

        mutating func double(_ little: Bool) throws(Problem) -> Double {
            guard offset + 8 <= bytes.count else { throw Problem(message: "the geometry ends early") }
            var bits: UInt64 = 0
            for i in 0..<8 {
                bits |= UInt64(bytes[offset + (little ? i : 7 - i)]) << (8 * UInt64(i))
            }
            offset += 8
            return Double(bitPattern: bits)
        }

        /// A count of elements of at least `each` bytes, checked against the bytes left so that a corrupt count
        /// cannot ask for a huge allocation.
        mutating func count(_ little: Bool, each: Int) throws(Problem) -> Int {
            let count = Int(try uint32(little))
            guard count <= (bytes.count - offset) / each else { throw Problem(message: "the geometry ends early") }
            return count
        }

        mutating func coordinate(_ little: Bool) throws(Problem) -> Coordinate {
            let x = try double(little)
            return Coordinate(longitude: x, latitude: try double(little))
        }

        mutating func line(_ little: Bool) throws(Problem) -> [Coordinate] {
            let count = try count(little, each: 16)
            var line: [Coordinate] = []
            line.reserveCapacity(count)
            for _ in 0..<count { line.append(try coordinate(little)) }
            return line
        }

        /// The members of a MultiPoint or MultiLineString (`type`): a count, then each member a geometry of its own,
        /// of `memberType` and at least `each` bytes, whose body `read` reads.
        mutating func members<Member>(of type: UInt32, _ little: Bool, memberType: UInt32, each: Int,
                                      _ read: (inout Reader, Bool) throws(Problem) -> Member) throws(Problem) -> [Member] {
            let count = try count(little, each: each)
            var members: [Member] = []
            members.reserveCapacity(count)
            for _ in 0..<count {
                let (inner, innerLittle) = try header()
                guard inner == memberType else {
                    throw Problem(message: "a \(WellKnownBinary.name(of: type)) holds a \(WellKnownBinary.name(of: inner))")
                }
                members.append(try read(&self, innerLittle))
            }
            return members
        }
    }
}
