import RouteTiles

/// `/tiles/{z}/{x}/{y}.mvt` (or `.pbf`), parsed strictly: decimal numbers without signs or leading zeros.
enum TileRequestPath {
    enum Parsed: Equatable {
        case tile(TileID)
        /// Not a tile path at all, or numbers that are not numbers: 400.
        case malformed(String)
        /// Numbers outside 0..<2^z: 400.
        case outOfRange(String)
    }

    /// Parses the part after `/tiles/`.
    static func parse(_ rest: Substring) -> Parsed {
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .malformed("expected /tiles/{z}/{x}/{y}.mvt") }
        var last = parts[2]
        if last.hasSuffix(".mvt") || last.hasSuffix(".pbf") {
            last = last.dropLast(4)
        } else {
            return .malformed("a tile path ends in .mvt or .pbf")
        }
        guard let z = number(parts[0]), let x = number(parts[1]), let y = number(last) else {
            return .malformed("z, x and y must be non-negative integers")
        }
        guard z <= TileID.maxZoom else { return .outOfRange("zoom \(z) is beyond \(TileID.maxZoom)") }
        let n = 1 << z
        guard x < n, y < n else { return .outOfRange("x and y must be below 2^\(z) = \(n) at zoom \(z)") }
        return .tile(TileID(z: z, x: x, y: y))
    }

    private static func number(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.count <= 9, s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        if s.count > 1 && s.first == "0" { return nil }
        return Int(s)
    }
}
