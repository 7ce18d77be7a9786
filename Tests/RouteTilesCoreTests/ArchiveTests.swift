import Foundation
import Synchronization
import Testing
import RouteTiles
@testable import RouteTilesStores
import RouteTilesCoreTestSupport

/// MBTiles and PMTiles: round trips through our readers (ArchiveInteropTests: through independent ones).
@Suite struct ArchiveTests {
    @Test func hilbertIDsRoundTrip() throws {
        var seen = Set<UInt64>()
        for z in 0...6 {
            for x in 0..<(1 << z) {
                for y in 0..<(1 << z) {
                    let t = TileID(z: z, x: x, y: y)
                    #expect(TileID(pmtilesID: t.pmtilesID) == t)
                    seen.insert(t.pmtilesID)
                }
            }
        }
        // Zooms 0–6 fill ids 0..<(4^7 − 1)/3 exactly.
        #expect(seen == Set(0..<UInt64(5461)))
        var rng = SeededGenerator(seed: 3)
        let deep = (0..<200).map { _ -> TileID in
            let z = Int.random(in: 7...TileID.maxZoom, using: &rng)
            return TileID(z: z, x: .random(in: 0..<(1 << z), using: &rng), y: .random(in: 0..<(1 << z), using: &rng))
        }
        for t in deep { #expect(TileID(pmtilesID: t.pmtilesID) == t) }
    }

    @Test(arguments: [TileStoreFormat.mbtiles, .pmtiles, .directory])
    func roundTripGivesByteIdenticalTilesAndMetadata(format: TileStoreFormat) throws {
        let tmp = try TemporaryFolder()
        let (tiler, tiles) = try ArchiveFixtures.pyramid()
        #expect(tiles.count > 100)
        let metadata = TilesetMetadata(name: "paris", tiler: tiler)
        let path = tmp.path("paris" + (format == .directory ? "" : "." + format.rawValue))
        try ArchiveFixtures.write(tiles, metadata: metadata, format: format, path: path)
        let source = try TileStoreFormat.openSource(path: path)
        #expect(Set(try source.tileIDs()) == Set(tiles.keys))
        for (id, bytes) in tiles { #expect(try source.gzipTile(id) == bytes, "tile \(id)") }
        #expect(try source.gzipTile(TileID(z: 3, x: 0, y: 0)) == nil)
        #expect(source.metadata.layers == metadata.layers)
        #expect(source.metadata.minZoom == 0 && source.metadata.maxZoom == 12)
        for (a, b) in zip(source.metadata.bounds + source.metadata.center, metadata.bounds + metadata.center) {
            #expect(abs(a - b) < 1e-6)
        }
        // Only the archive is left: no staging or scratch file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.url.path) == [URL(fileURLWithPath: path).lastPathComponent])
    }

    @Test func pmtilesStoresIdenticalTilesOnceWithRuns() throws {
        let tmp = try TemporaryFolder()
        let path = tmp.path("same.pmtiles")
        let same = try Gzip.compress(Array("the same tile".utf8))
        var tiles: [TileID: [UInt8]] = [:]
        for x in 0..<64 { for y in 0..<64 { tiles[TileID(z: 6, x: x, y: y)] = same } }
        tiles[TileID(z: 0, x: 0, y: 0)] = try Gzip.compress(Array("another".utf8))
        let metadata = TilesetMetadata(name: "same", layers: [], minZoom: 0, maxZoom: 6, bounds: [-180, -85, 180, 85], center: [0, 0, 0])
        try ArchiveFixtures.write(tiles, metadata: metadata, format: .pmtiles, path: path)
        let source = try PMTilesSource(path: path)
        #expect(source.header.addressedTiles == 4097)
        #expect(source.header.tileContents == 2)
        // All of z6 is one run of ids holding one content.
        #expect(source.header.tileEntries == 2)
        #expect(source.header.tileDataLength == UInt64(same.count + tiles[TileID(z: 0, x: 0, y: 0), default: []].count))
        for (id, bytes) in tiles { #expect(try source.gzipTile(id) == bytes) }
    }

    @Test func pmtilesSpillsEntriesIntoLeafDirectoriesWhenTheRootIsFull() throws {
        let tmp = try TemporaryFolder()
        let path = tmp.path("many.pmtiles")
        let store = try PMTilesStore(destination: URL(fileURLWithPath: path), replace: false)
        // About one tile in 25 of z10, at random (irregular id gaps, no runs), each with its own bytes.
        var expected: [TileID: [UInt8]] = [:]
        var rng = SeededGenerator(seed: 8)
        for x in 0..<1024 {
            for y in 0..<1024 where Int.random(in: 0..<25, using: &rng) == 0 {
                let id = TileID(z: 10, x: x, y: y)
                let bytes: [UInt8] = [0x1f, 0x8b, UInt8(x & 0xff), UInt8(x >> 8), UInt8(y & 0xff), UInt8(y >> 8)]
                try store.put(id, gzipData: bytes)
                expected[id] = bytes
            }
        }
        try store.commit()
        let source = try PMTilesSource(path: path)
        #expect(source.header.leafLength > 0)
        #expect(source.header.rootOffset + source.header.rootLength <= 16_384)
        #expect(source.header.tileContents == UInt64(expected.count))
        #expect(Set(try source.tileIDs()) == Set(expected.keys))
        for (id, bytes) in expected { #expect(try source.gzipTile(id) == bytes) }
        #expect(try source.gzipTile(TileID(z: 9, x: 0, y: 1)) == nil)
        #expect(try source.gzipTile(TileID(z: 11, x: 0, y: 1)) == nil)
    }

    @Test func abortLeavesThePreviousArchiveAndNoStagingFile() throws {
        let tmp = try TemporaryFolder()
        let (tiler, tiles) = try ArchiveFixtures.pyramid()
        for format in [TileStoreFormat.mbtiles, .pmtiles] {
            let path = tmp.path("a." + format.rawValue)
            try ArchiveFixtures.write(tiles, metadata: TilesetMetadata(name: "a", tiler: tiler), format: format, path: path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(throws: StoreError.self) { try format.makeStore(path: path, replace: false) }
            let store = try format.makeStore(path: path, replace: true)
            try store.put(TileID(z: 0, x: 0, y: 0), gzipData: try Gzip.compress([1, 2, 3]))
            store.abort()
            store.abort()
            #expect(throws: StoreError.self) { try store.put(TileID(z: 1, x: 0, y: 0), gzipData: []) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: tmp.url.path)).contains { $0.hasPrefix(".") })
        }
    }

    @Test func corruptArchivesAreRejectedWithTheirPath() throws {
        let tmp = try TemporaryFolder()
        let bad = tmp.path("bad.pmtiles")
        try Data("PMTiles".utf8 + [3] + [UInt8](repeating: 0xff, count: 130)).write(to: URL(fileURLWithPath: bad))
        #expect { try TileStoreFormat.openSource(path: bad) } throws: { ($0 as? StoreError)?.path == bad }
        let text = tmp.path("text.mbtiles")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        #expect { try TileStoreFormat.openSource(path: text) } throws: { "\($0)".contains("neither a PMTiles nor an MBTiles") }
    }
}
