import Foundation
import RouteTiles

/// Appends the z/x/y of invalidated tiles to a file, one per line: the expire list a CDN purge or `routetiles seed
/// --tile-list` reads. Each change is written with one `write` to a file opened with O_APPEND, so lines of
/// concurrent changes never interleave.
final class ExpireLog: Sendable {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError(path: path, message: "cannot open the expire log: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    func append(_ tiles: [TileID]) throws {
        guard !tiles.isEmpty else { return }
        var text = ""
        text.reserveCapacity(tiles.count * 14)
        for tile in tiles { text += "\(tile.z)/\(tile.x)/\(tile.y)\n" }
        try writeAll(Array(text.utf8), to: descriptor, path: path, failure: "cannot write the expire log")
    }
}
