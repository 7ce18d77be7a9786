import Foundation
import RouteTilesModel

/// A list of tiles, one `z/x/y` per line (the expire log the server writes); blank lines and lines starting with
/// `#` are skipped, a trailing `.mvt`/`.pbf` is allowed. Errors name the file, the line and the column.
package enum TileListFile {
    /// Reads the list at `path`: a file, or a pipe such as `/dev/stdin` or a shell's `<(…)`.
    package static func read(path: String) throws -> [TileID] {
        let bytes = try FileBytes.contents(atPath: path)
        return try parse(String(decoding: bytes, as: UTF8.self), file: path)
    }

    package static func parse(_ text: String, file: String) throws -> [TileID] {
        var tiles: [TileID] = []
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, line) in lines.enumerated() {
            let indent = line.prefix(while: { $0 == " " || $0 == "\t" }).count
            var body = line.dropFirst(indent)
            while body.last == " " || body.last == "\t" { body = body.dropLast() }
            if body.isEmpty || body.hasPrefix("#") { continue }
            for suffix in [".mvt", ".pbf"] where body.hasSuffix(suffix) { body = body.dropLast(suffix.count) }
            let fields = body.split(separator: "/", omittingEmptySubsequences: false)
            var column = indent + 1
            guard fields.count == 3 else {
                throw InputError(file: file, location: .line(index + 1, column: column),
                                 message: "expected z/x/y, found '\(body)'")
            }
            var numbers: [Int] = []
            for (k, field) in fields.enumerated() {
                guard let n = Int(field), n >= 0 else {
                    throw InputError(file: file, location: .line(index + 1, column: column),
                                     message: "\(["z", "x", "y"][k]) '\(field)' is not a non-negative integer")
                }
                numbers.append(n)
                column += field.utf8.count + 1
            }
            let tile = TileID(z: numbers[0], x: numbers[1], y: numbers[2])
            guard tile.isValid else {
                throw InputError(file: file, location: .line(index + 1, column: indent + 1),
                                 message: "\(tile) is not a tile (z ≤ \(TileID.maxZoom), x and y < 2^z)")
            }
            tiles.append(tile)
        }
        return tiles
    }
}
