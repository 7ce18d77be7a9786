import Foundation
import RouteTiles
import Synchronization
import Testing

/// Archives of a small pyramid around Paris, for the archive tests and the independent readers'.
package enum ArchiveFixtures {
    /// A small pyramid with several routes around Paris, to z12.
    package static func pyramid() throws -> (RouteTiler, [TileID: [UInt8]]) {
        var rng = SeededGenerator(seed: 11)
        let routes = (0..<4).map { i in
            Route(id: .number(UInt64(i)), properties: [Property("name", .string("track \(i)"))],
                  parts: [Sample.track(count: 600, lon: 2.3 + Double(i) * 0.05, lat: 48.85, step: 0.004, using: &rng)])
        }
        return try Sample.build(routes, Sample.options(maxZoom: 12))
    }

    /// Writes `tiles` into a store of `format` at `path` and commits it.
    /// The pyramid written into `folder` as paris.mbtiles or paris.pmtiles: its tiles, and the archive's path.
    package static func parisArchive(_ format: TileStoreFormat, in folder: TemporaryFolder) throws -> (tiles: [TileID: [UInt8]], path: String) {
        let (tiler, tiles) = try pyramid()
        let path = folder.path("paris." + format.rawValue)
        try write(tiles, metadata: TilesetMetadata(name: "paris", tiler: tiler), format: format, path: path)
        return (tiles, path)
    }

    package static func write(_ tiles: [TileID: [UInt8]], metadata: TilesetMetadata, format: TileStoreFormat, path: String) throws {
        let store = try format.makeStore(path: path, replace: true)
        // From several threads, as the builder does.
        let items = Array(tiles)
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for (k, item) in items.enumerated() where k % 4 == worker {
                do { try store.put(item.key, gzipData: item.value) } catch { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        try store.putMetadata(metadata)
        try store.commit()
    }
}
