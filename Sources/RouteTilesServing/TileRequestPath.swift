import RouteTilesModel

/// `/tiles/{z}/{x}/{y}.mvt` (or `.pbf`), and the raster tiles `{y}.png`, `{y}@2x.png`, `{y}@3x.png`, parsed
/// strictly: decimal numbers without signs or leading zeros.
@usableFromInline
package enum TileRequestPath {
    @usableFromInline
    package enum Parsed: Equatable {
        case tile(TileID)
        /// A raster tile (`.png`, `@2x.png`, `@3x.png`) and its scale.
        case raster(TileID, scale: Int)
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
        let suffix: Int, scale: Int?
        if last.count >= 4, last.suffix(4).elementsEqual(".mvt".utf8) || last.suffix(4).elementsEqual(".pbf".utf8) {
            (suffix, scale) = (4, nil)
        } else if last.count >= 7, last.suffix(7).elementsEqual("@2x.png".utf8) || last.suffix(7).elementsEqual("@3x.png".utf8) {
            (suffix, scale) = (7, Int(last[last.endIndex - 6] - UInt8(ascii: "0")))
        } else if last.count >= 4, last.suffix(4).elementsEqual(".png".utf8) {
            (suffix, scale) = (4, 1)
        } else {
            return .malformed("a tile path ends in .mvt or .pbf (vector), or .png, @2x.png or @3x.png (raster)")
        }
        guard let z = number(rest[..<first]), let x = number(rest[(first + 1)..<second]), let y = number(last.dropLast(suffix))
        else { return .malformed("z, x and y must be non-negative integers") }
        guard z <= TileID.maxZoom else { return .outOfRange("zoom \(z) is beyond \(TileID.maxZoom)") }
        let n = 1 << z
        guard x < n, y < n else { return .outsideGrid("no tile \(z)/\(x)/\(y): x and y lie below 2^\(z) = \(n) at zoom \(z)") }
        let id = TileID(z: z, x: x, y: y)
        return scale.map { .raster(id, scale: $0) } ?? .tile(id)
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
