import RouteTilesModel

/// Writes a route as GPX 1.1 text: a line route as one `<trk>` named by the route's `name` property, with one
/// `<trkseg>` per part and a `<trkpt lat lon>` per position, each with its `<time>` (ISO 8601 UTC) when the route
/// has times; a point route as one `<wpt>` per position. Coordinates are written with the fewest digits that read
/// back as the same `Double` (`GPXReader` gives every position back bit for bit), in plain decimal notation as the
/// GPX schema's `xsd:decimal` requires; text is XML-escaped.
public enum GPXWriter {
    /// The GPX document of `route`, as UTF-8 bytes.
    public static func gpx(_ route: Route, creator: String = "RouteTiles") -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160 + route.pointCount * (route.times == nil ? 48 : 80))
        out.append(contentsOf: #"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
        out.append(contentsOf: "\n<gpx version=\"1.1\" creator=\"".utf8)
        appendEscaped(creator, to: &out)
        out.append(contentsOf: "\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n".utf8)
        let name = route.properties.first(where: { $0.key == "name" }).flatMap { property -> String? in
            if case .string(let text) = property.value { return text }
            return nil
        }
        var index = 0
        if route.kind == .point {
            for part in route.parts {
                for position in part {
                    out.append(contentsOf: "<wpt".utf8)
                    appendCoordinates(position, to: &out)
                    out.append(contentsOf: ">".utf8)
                    appendTime(route.times, index, to: &out)
                    if let name { appendElement("name", name, to: &out) }
                    out.append(contentsOf: "</wpt>\n".utf8)
                    index += 1
                }
            }
        } else {
            out.append(contentsOf: "<trk>".utf8)
            if let name { appendElement("name", name, to: &out) }
            out.append(contentsOf: "\n".utf8)
            for part in route.parts {
                out.append(contentsOf: "<trkseg>\n".utf8)
                for position in part {
                    out.append(contentsOf: "<trkpt".utf8)
                    appendCoordinates(position, to: &out)
                    if route.times != nil {
                        out.append(contentsOf: ">".utf8)
                        appendTime(route.times, index, to: &out)
                        out.append(contentsOf: "</trkpt>\n".utf8)
                    } else {
                        out.append(contentsOf: "/>\n".utf8)
                    }
                    index += 1
                }
                out.append(contentsOf: "</trkseg>\n".utf8)
            }
            out.append(contentsOf: "</trk>\n".utf8)
        }
        out.append(contentsOf: "</gpx>\n".utf8)
        return out
    }

    private static func appendCoordinates(_ position: Coordinate, to out: inout [UInt8]) {
        out.append(contentsOf: " lat=\"".utf8)
        appendDecimal(position.latitude, to: &out)
        out.append(contentsOf: "\" lon=\"".utf8)
        appendDecimal(position.longitude, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    private static func appendTime(_ times: [Int64]?, _ index: Int, to out: inout [UInt8]) {
        guard let times, times.indices.contains(index) else { return }
        out.append(contentsOf: "<time>".utf8)
        TimeValue.appendISO(times[index], to: &out)
        out.append(contentsOf: "</time>".utf8)
    }

    private static func appendElement(_ tag: String, _ text: String, to out: inout [UInt8]) {
        out.append(contentsOf: "<\(tag)>".utf8)
        appendEscaped(text, to: &out)
        out.append(contentsOf: "</\(tag)>".utf8)
    }

    /// `text` with `&`, `<`, `>` and `"` escaped, and the control characters XML 1.0 does not allow left out.
    static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
            case 0x09, 0x0A, 0x0D: out.append(byte)
            case 0x00..<0x20: continue
            default: out.append(byte)
            }
        }
    }

    /// The shortest digits that give `value` back (Swift's `description` of a `Double`), in plain decimal notation:
    /// `1e-05` is written `0.00001`.
    static func appendDecimal(_ value: Double, to out: inout [UInt8]) {
        let text = value.description
        guard let e = text.utf8.firstIndex(of: UInt8(ascii: "e")), let exponent = Int(text[text.index(after: e)...])
        else {
            out.append(contentsOf: text.utf8)
            return
        }
        var mantissa = Substring(text[..<e])
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa = mantissa.dropFirst() }
        // The digits without the point, and where the point stands among them.
        let point = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) }
            ?? mantissa.count
        var digits = Array(mantissa.utf8.filter { $0 != UInt8(ascii: ".") })
        while digits.count > 1, digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let newPoint = point + exponent
        if negative { out.append(UInt8(ascii: "-")) }
        if newPoint <= 0 {
            out.append(contentsOf: "0.".utf8)
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -newPoint))
            out.append(contentsOf: digits)
        } else if newPoint >= digits.count {
            out.append(contentsOf: digits)
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: newPoint - digits.count))
        } else {
            out.append(contentsOf: digits[..<newPoint])
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: digits[newPoint...])
        }
    }
}
