import RouteTilesModel

/// The Encoded Polyline Algorithm Format (Google), at precision 5 (Google) or 6 (OSRM `polyline6`, Valhalla).
///
/// Each value is the zigzag-encoded delta from the previous one, rounded to `10^-precision` degrees, written in
/// 5-bit groups from least significant, each group plus 63 as one ASCII character, with 0x20 set on all but the
/// last. Positions are latitude first. Deltas are accumulated in 64 bits, so no input overflows.
package enum PolylineCodec {
    /// What is wrong with an encoded polyline, at a 0-based character offset.
    package struct DecodingError: Error, Equatable, Sendable {
        package var offset: Int
        package var message: String
    }

    /// The positions of `text` (bytes of the polyline). Throws on a character outside `?`...`~`, on a value longer
    /// than a 64-bit number, on a polyline ending inside a value or after a latitude without its longitude, and on
    /// a position outside the coordinate limits.
    package static func decode<C: Collection>(_ text: C, precision: Int = 5) throws(DecodingError) -> [Coordinate]
    where C.Element == UInt8 {
        let scale = power(precision)
        var result: [Coordinate] = []
        var latitude: Int64 = 0, longitude: Int64 = 0
        var value: UInt64 = 0, shift: UInt64 = 0
        var haveLatitude = false
        var valueStart = 0
        var offset = 0
        for byte in text {
            if shift == 0 { valueStart = offset }
            guard byte >= 63, byte <= 126 else {
                throw DecodingError(offset: offset, message: "character \(describe(byte)) is not part of an encoded "
                                        + "polyline (allowed: '?' to '~')")
            }
            let chunk = UInt64(byte - 63)
            guard shift < 64, shift < 60 || (chunk & 0x1F) >> (64 - shift) == 0 else {
                throw DecodingError(offset: valueStart, message: "value is longer than 64 bits")
            }
            value |= (chunk & 0x1F) << shift
            if chunk & 0x20 != 0 {
                shift += 5
            } else {
                let delta = Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
                if haveLatitude {
                    longitude &+= delta
                    let c = Coordinate(longitude: Double(longitude) / scale, latitude: Double(latitude) / scale)
                    if let problem = CoordinateLimits.problem(with: c) {
                        throw DecodingError(offset: valueStart, message: problem)
                    }
                    result.append(c)
                } else {
                    latitude &+= delta
                }
                haveLatitude.toggle()
                value = 0
                shift = 0
            }
            offset += 1
        }
        if shift != 0 {
            throw DecodingError(offset: valueStart, message: "polyline ends inside a value (truncated?)")
        }
        if haveLatitude {
            throw DecodingError(offset: offset, message: "polyline ends after a latitude without its longitude")
        }
        return result
    }

    /// The encoded polyline of `coordinates`, each rounded to `10^-precision` degrees.
    package static func encode(_ coordinates: [Coordinate], precision: Int = 5) -> String {
        let scale = power(precision)
        var output: [UInt8] = []
        output.reserveCapacity(coordinates.count * 8)
        var previousLatitude: Int64 = 0, previousLongitude: Int64 = 0
        for c in coordinates {
            let latitude = Int64((c.latitude * scale).rounded())
            let longitude = Int64((c.longitude * scale).rounded())
            append(latitude &- previousLatitude, to: &output)
            append(longitude &- previousLongitude, to: &output)
            previousLatitude = latitude
            previousLongitude = longitude
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func append(_ delta: Int64, to output: inout [UInt8]) {
        var value = UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
        while value >= 0x20 {
            output.append(UInt8((value & 0x1F) | 0x20) + 63)
            value >>= 5
        }
        output.append(UInt8(value) + 63)
    }

    static func power(_ precision: Int) -> Double {
        var scale = 1.0
        for _ in 0..<max(0, min(precision, 9)) { scale *= 10 }
        return scale
    }

    static func describe(_ byte: UInt8) -> String {
        (32..<127).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
    }
}
