import RouteTilesModel

/// `/tiles/{z}/{x}/{y}.mvt` (or `.pbf`), parsed strictly: decimal numbers without signs or leading zeros.
@usableFromInline
package enum TileRequestPath {
    @usableFromInline
    package enum Parsed: Equatable {
        case tile(TileID)
        /// Not a tile path at all, or numbers that are not numbers: 400.
        case malformed(String)
        /// A zoom beyond `TileID.maxZoom`: 400.
        case outOfRange(String)
        /// x or y not below 2^z: no such tile in the grid at that zoom, 404 (as a tile of a zoom not served).
        case outsideGrid(String)
    }

    /// Parses the part after `/tiles/`.
    package static func parse(_ rest: Substring) -> Parsed {
        var rest = rest
        return rest.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// Parses the bytes after `/tiles/`, in place: this runs on every tile request.
    @usableFromInline
    package static func parse(_ rest: UnsafeRawBufferPointer) -> Parsed {
        let slash = UInt8(ascii: "/")
        guard let first = rest.firstIndex(of: slash),
              let second = rest[(first + 1)...].firstIndex(of: slash),
              !rest[(second + 1)...].contains(slash)
        else { return .malformed("expected /tiles/{z}/{x}/{y}.mvt") }
        let last = rest[(second + 1)...]
        guard last.count >= 4, last.suffix(4).elementsEqual(".mvt".utf8) || last.suffix(4).elementsEqual(".pbf".utf8)
        else { return .malformed("a tile path ends in .mvt or .pbf") }
        guard let z = number(rest[..<first]), let x = number(rest[(first + 1)..<second]), let y = number(last.dropLast(4))
        else { return .malformed("z, x and y must be non-negative integers") }
        guard z <= TileID.maxZoom else { return .outOfRange("zoom \(z) is beyond \(TileID.maxZoom)") }
        let n = 1 << z
        guard x < n, y < n else { return .outsideGrid("no tile \(z)/\(x)/\(y): x and y lie below 2^\(z) = \(n) at zoom \(z)") }
        return .tile(TileID(z: z, x: x, y: y))
    }

    /// A non-negative integer without leading zeros; past nine digits, `Int.max` (no tile is that far: beyond the
    /// grid, or a zoom beyond the greatest).
    private static func number(_ digits: Slice<UnsafeRawBufferPointer>) -> Int? {
        guard !digits.isEmpty else { return nil }
        if digits.count > 1, digits.first == UInt8(ascii: "0") { return nil }
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            if value < 100_000_000 { value = value * 10 + Int(digit - UInt8(ascii: "0")) } else { value = .max }
        }
        return value
    }
}
