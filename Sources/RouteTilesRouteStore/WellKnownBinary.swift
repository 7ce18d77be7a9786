import RouteTilesModel

/// Geometries as OGC Well-Known Binary, the form PostGIS (`ST_AsBinary`, `ST_GeomFromWKB`), SpatiaLite and GDAL
/// exchange: the route stores keep a route's lines in it.
///
/// Written by hand: it is a byte order mark, a type and counts before little runs of doubles, and no listed package
/// reads it. Only what routes are made of is read: Point, LineString, MultiPoint and MultiLineString, in two
/// dimensions or with M (a route's times: M is Unix seconds, ISO's type codes 2001–2005 or EWKB's M flag), either byte
/// order; anything else (Z among it) is an error that names what was found.
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

    /// LineString for one part, MultiLineString for more; Point for one position, MultiPoint for more. With M (ISO
    /// types 2001–2005) when the route has times, in two dimensions otherwise, byte for byte as before times.
    package static func encode(_ route: Route) -> [UInt8] {
        var out: [UInt8] = []
        var times = TimeCursor(route.times)
        let m = times.hasTimes
        let each = m ? 24 : 16
        switch route.kind {
        case .line:
            let parts = route.parts
            out.reserveCapacity(9 + parts.reduce(0) { $0 + 9 + each * $1.count })
            if parts.count == 1 {
                appendLine(parts[0], times: &times, to: &out)
            } else {
                appendHeader(type: 5, m: m, count: parts.count, to: &out)
                for part in parts { appendLine(part, times: &times, to: &out) }
            }
        case .point:
            let points = route.parts.flatMap { $0 }
            if points.count == 1 {
                appendHeader(type: 1, m: m, count: nil, to: &out)
                appendCoordinate(points[0], time: times.next(), to: &out)
            } else {
                out = multiPoint(points, times: route.times)
            }
        }
        return out
    }

    /// A MultiPoint of `points` (with M when `times` are given, one per point): how appended positions are kept in a
    /// feed row and travel to PostGIS.
    package static func multiPoint(_ points: [Coordinate], times: [Int64]? = nil) -> [UInt8] {
        var cursor = TimeCursor(times)
        let m = cursor.hasTimes
        var out: [UInt8] = []
        out.reserveCapacity(9 + (m ? 29 : 21) * points.count)
        appendHeader(type: 4, m: m, count: points.count, to: &out)
        for point in points {
            appendHeader(type: 1, m: m, count: nil, to: &out)
            appendCoordinate(point, time: cursor.next(), to: &out)
        }
        return out
    }

    /// Walks a route's times alongside its positions while writing.
    private struct TimeCursor {
        let times: [Int64]?
        var index = 0
        init(_ times: [Int64]?) { self.times = times }
        var hasTimes: Bool { times != nil }
        /// The next position's time, as M (Unix seconds); nil without times.
        mutating func next() -> Double? {
            guard let times else { return nil }
            defer { index += 1 }
            return index < times.count ? Double(times[index]) / 1000 : 0
        }
    }

    private static func appendLine(_ part: [Coordinate], times: inout TimeCursor, to out: inout [UInt8]) {
        appendHeader(type: 2, m: times.hasTimes, count: part.count, to: &out)
        for c in part { appendCoordinate(c, time: times.next(), to: &out) }
    }

    private static func appendHeader(type: UInt32, m: Bool, count: Int?, to out: inout [UInt8]) {
        out.append(1)  // little-endian
        appendUInt32(m ? type + 2000 : type, to: &out)
        if let count { appendUInt32(UInt32(truncatingIfNeeded: count), to: &out) }
    }

    private static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func appendCoordinate(_ c: Coordinate, time: Double?, to out: inout [UInt8]) {
        withUnsafeBytes(of: c.longitude.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: c.latitude.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        if let time { withUnsafeBytes(of: time.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
    }

    /// A time as M holds it (Unix seconds) in milliseconds; nil when it is not a time RouteTiles keeps.
    static func milliseconds(fromM m: Double) -> Int64? {
        TimeValue.seconds(m)
    }

    /// Whether `header` (the first five bytes of a geometry, or more) starts a LineString or a MultiLineString:
    /// the geometries an append can extend.
    package static func startsALine(_ header: [UInt8]) -> Bool {
        var reader = Reader(bytes: header)
        guard let (type, _) = try? reader.header() else { return false }
        return type.base == 2 || type.base == 5
    }

    /// Whether `header` (the first five bytes of a geometry, or more) starts a geometry with M: a route with times.
    package static func hasTimes(_ header: [UInt8]) -> Bool {
        var reader = Reader(bytes: header)
        guard let (type, _) = try? reader.header() else { return false }
        return type.m
    }

    /// The line `wkb` with `points` (and their `times`, when the line has M) added to the end of its last part,
    /// spliced in place of decoding and re-encoding it: the work follows the new points, plus one copy of the bytes.
    /// Nil when `wkb` is not a LineString or MultiLineString. Throws when the line has M and `times` are missing, or
    /// the other way round.
    package static func appending(_ points: [Coordinate], times: [Int64]? = nil, to wkb: [UInt8]) throws(Problem) -> [UInt8]? {
        var reader = Reader(bytes: wkb)
        let (type, little) = try reader.header()
        var countOffset: Int
        var lineLittle = little
        switch type.base {
        case 2:
            countOffset = reader.offset
            try reader.skipLine(little, m: type.m)
        case 5:
            let parts = try reader.count(little, each: 9)
            guard parts > 0 else { return nil }
            countOffset = 0
            for _ in 0..<parts {
                let (inner, innerLittle) = try reader.header()
                guard inner.base == 2, inner.m == type.m else {
                    throw Problem(message: "a \(name(of: type.code)) holds a \(name(of: inner.code))")
                }
                countOffset = reader.offset
                lineLittle = innerLittle
                let count = try reader.count(innerLittle, each: type.m ? 24 : 16)
                reader.offset += (type.m ? 24 : 16) * count
            }
        default:
            return nil
        }
        guard reader.offset == wkb.count else { throw Problem(message: "\(wkb.count - reader.offset) bytes follow the geometry") }
        if type.m, times?.count != points.count {
            throw Problem(message: "the line has times (M) and the positions appended have none")
        }
        if !type.m, times != nil {
            throw Problem(message: "the line has no times (M) and the positions appended have some")
        }
        var countReader = Reader(bytes: wkb, offset: countOffset)
        let count = Int(try countReader.uint32(lineLittle)) + points.count
        guard count <= Int(UInt32.max) else { throw Problem(message: "a line of more than 2^32 positions") }
        var out = wkb
        out.reserveCapacity(wkb.count + (type.m ? 24 : 16) * points.count)
        for i in 0..<4 {
            let byte = UInt8(truncatingIfNeeded: UInt32(count) >> (8 * UInt32(i)))
            out[countOffset + (lineLittle ? i : 3 - i)] = byte
        }
        func write(_ value: Double) {
            let bits = value.bitPattern
            for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(lineLittle ? i : 7 - i)))) }
        }
        for (index, c) in points.enumerated() {
            write(c.longitude)
            write(c.latitude)
            if let times { write(Double(times[index]) / 1000) }
        }
        return out
    }

    // MARK: Reading

    /// Reads one geometry; the bytes must hold exactly it. M, when present, is read and dropped (`decodeTimed`
    /// keeps it).
    package static func decode(_ bytes: [UInt8]) throws(Problem) -> Geometry {
        try decodeTimed(bytes).geometry
    }

    /// Reads one geometry and its times: nil without M, else one per position in order (M as Unix seconds, in
    /// milliseconds). An M that is not a time of 1970–9999 is an error naming the position.
    package static func decodeTimed(_ bytes: [UInt8]) throws(Problem) -> (geometry: Geometry, times: [Int64]?) {
        var reader = Reader(bytes: bytes)
        let geometry: Geometry
        let (type, littleEndian) = try reader.header()
        var times: [Int64]? = type.m ? [] : nil
        switch type.base {
        case 1: geometry = .points([try reader.coordinate(littleEndian, m: type.m, times: &times)])
        case 2: geometry = .lines([try reader.line(littleEndian, m: type.m, times: &times)])
        case 4:
            geometry = .points(try reader.members(of: type, littleEndian, memberBase: 1, each: type.m ? 29 : 21) { r, little throws(Problem) in
                try r.coordinate(little, m: type.m, times: &times)
            })
        case 5:
            geometry = .lines(try reader.members(of: type, littleEndian, memberBase: 2, each: 9) { r, little throws(Problem) in
                try r.line(little, m: type.m, times: &times)
            })
        default:
            throw Problem(message: "the geometry is a \(name(of: type.code)), not a line or points")
        }
        guard reader.offset == bytes.count else {
            throw Problem(message: "\(bytes.count - reader.offset) bytes follow the geometry")
        }
        return (geometry, times)
    }

    /// The OGC name of a WKB type code, with the dimensions ISO and EWKB add.
    static func name(of code: UInt32) -> String {
        let names = [1: "Point", 2: "LineString", 3: "Polygon", 4: "MultiPoint", 5: "MultiLineString",
                     6: "MultiPolygon", 7: "GeometryCollection"]
        let ewkbZ = code & 0x8000_0000 != 0, ewkbM = code & 0x4000_0000 != 0
        let base = Int((code & 0x0FFF_FFFF) % 1000)
        let dimensions = Int((code & 0x0FFF_FFFF) / 1000)
        let name = names[base] ?? "geometry of type \(code)"
        let z = ewkbZ || dimensions == 1 || dimensions == 3
        let m = ewkbM || dimensions == 2 || dimensions == 3
        if dimensions > 3 { return "\(name) of unknown dimensions" }
        if z { return "\(name) with Z\(m ? " and M" : "") (only 2D geometries, or 2D with M, are read)" }
        if m { return "\(name) with M" }
        return name
    }

    /// A geometry type as read: the code, its base type (1 to 7) and whether it has M. Z makes `base` 0, which no
    /// reader accepts, so that Z is refused by name.
    struct GeometryType {
        var code: UInt32
        var base: UInt32
        var m: Bool

        init(code: UInt32) {
            self.code = code
            let ewkbZ = code & 0x8000_0000 != 0, ewkbM = code & 0x4000_0000 != 0
            let iso = code & 0x0FFF_FFFF
            let dimensions = iso / 1000
            let z = ewkbZ || dimensions == 1 || dimensions == 3 || dimensions > 3
            m = ewkbM || dimensions == 2
            base = z || (ewkbM && dimensions != 0) ? 0 : iso % 1000
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func header() throws(Problem) -> (type: GeometryType, littleEndian: Bool) {
            guard offset < bytes.count else { throw Problem(message: "the geometry ends early") }
            let order = bytes[offset]
            guard order <= 1 else { throw Problem(message: "byte \(offset) is not a WKB byte order (0 or 1)") }
            offset += 1
            var code = try uint32(order == 1)
            // EWKB with an SRID: the SRID follows the type.
            if code & 0x2000_0000 != 0 {
                _ = try uint32(order == 1)
                code &= ~UInt32(0x2000_0000)
            }
            return (GeometryType(code: code), order == 1)
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

        /// One position; with `m`, its M is read into `times` (which is then not nil).
        mutating func coordinate(_ little: Bool, m: Bool, times: inout [Int64]?) throws(Problem) -> Coordinate {
            let x = try double(little)
            let c = Coordinate(longitude: x, latitude: try double(little))
            if m {
                let value = try double(little)
                guard let time = WellKnownBinary.milliseconds(fromM: value) else {
                    throw Problem(message: "position \(times?.count ?? 0): M \(value) is not a time (Unix seconds of 1970–9999)")
                }
                times?.append(time)
            }
            return c
        }

        mutating func line(_ little: Bool, m: Bool, times: inout [Int64]?) throws(Problem) -> [Coordinate] {
            let count = try count(little, each: m ? 24 : 16)
            var line: [Coordinate] = []
            line.reserveCapacity(count)
            if m, let held = times?.count { times?.reserveCapacity(held + count) }
            for _ in 0..<count { line.append(try coordinate(little, m: m, times: &times)) }
            return line
        }

        /// Passes over a line's positions (while splicing).
        mutating func skipLine(_ little: Bool, m: Bool) throws(Problem) {
            let count = try count(little, each: m ? 24 : 16)
            offset += (m ? 24 : 16) * count
        }

        /// The members of a MultiPoint or MultiLineString (`type`): a count, then each member a geometry of its own,
        /// of `memberBase` with the same M as the whole and at least `each` bytes, whose body `read` reads.
        mutating func members<Member>(of type: GeometryType, _ little: Bool, memberBase: UInt32, each: Int,
                                      _ read: (inout Reader, Bool) throws(Problem) -> Member) throws(Problem) -> [Member] {
            let count = try count(little, each: each)
            var members: [Member] = []
            members.reserveCapacity(count)
            for _ in 0..<count {
                let (inner, innerLittle) = try header()
                guard inner.base == memberBase, inner.m == type.m else {
                    throw Problem(message: "a \(WellKnownBinary.name(of: type.code)) holds a \(WellKnownBinary.name(of: inner.code))")
                }
                members.append(try read(&self, innerLittle))
            }
            return members
        }
    }
}
