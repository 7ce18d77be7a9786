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

    /// Appends one change's tiles; each of its `subtrees` (tiles under which every tile changed, not listed) as a
    /// comment line `# subtree z/x/y`, which tile-list readers skip (`seed --tile-list` with `--expand-zooms` reaches
    /// the tiles below) and purge scripts can take as a prefix.
    func append(_ tiles: [TileID], subtrees: [TileID] = []) throws {
        guard !tiles.isEmpty || !subtrees.isEmpty else { return }
        var text = ""
        text.reserveCapacity(tiles.count * 14 + subtrees.count * 24)
        for tile in tiles { text += "\(tile.z)/\(tile.x)/\(tile.y)\n" }
        for tile in subtrees { text += "# subtree \(tile.z)/\(tile.x)/\(tile.y)\n" }
        try writeAll(Array(text.utf8), to: descriptor, path: path, failure: "cannot write the expire log")
    }
}
