import Foundation
import Synchronization
import Testing
import RouteTiles
@testable import RouteTilesStores

/// MBTiles and PMTiles: round trips through our readers and through independent ones.
@Suite struct ArchiveTests {
    /// A small pyramid with several routes around Paris, to z12.
    static func pyramid() throws -> (RouteTiler, [TileID: [UInt8]]) {
        var rng = SeededGenerator(seed: 11)
        let routes = (0..<4).map { i in
            Route(id: .number(UInt64(i)), properties: [Property("name", .string("track \(i)"))],
                  parts: [Sample.track(count: 600, lon: 2.3 + Double(i) * 0.05, lat: 48.85, step: 0.004, using: &rng)])
        }
        return try Sample.build(routes, Sample.options(maxZoom: 12))
    }

    /// Writes `tiles` into a store of `format` at `path` and commits it.
    /// The pyramid written into `folder` as paris.mbtiles or paris.pmtiles: its tiles, and the archive's path.
    static func parisArchive(_ format: TileStoreFormat, in folder: TemporaryFolder) throws -> (tiles: [TileID: [UInt8]], path: String) {
        let (tiler, tiles) = try pyramid()
        let path = folder.path("paris." + format.rawValue)
        try write(tiles, metadata: TilesetMetadata(name: "paris", tiler: tiler), format: format, path: path)
        return (tiles, path)
    }

    static func write(_ tiles: [TileID: [UInt8]], metadata: TilesetMetadata, format: TileStoreFormat, path: String) throws {
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

    @Test func hilbertIDsRoundTripAndMatchThePMTilesPackage() async throws {
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
        guard ExternalTool.required(ExternalTool.pythonHas("pmtiles")) else { return }
        let input = deep.map { "\($0.z) \($0.x) \($0.y)" }.joined(separator: "\n")
        let r = try await ExternalTool.pythonDetached("""
            import sys
            from pmtiles.tile import zxy_to_tileid
            for line in sys.stdin.read().split("\\n"):
                z, x, y = map(int, line.split())
                print(zxy_to_tileid(z, x, y))
            """, stdin: Array(input.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.split(separator: "\n").map(String.init) == deep.map { String($0.pmtilesID) })
    }

    @Test(arguments: [TileStoreFormat.mbtiles, .pmtiles, .directory])
    func roundTripGivesByteIdenticalTilesAndMetadata(format: TileStoreFormat) throws {
        let tmp = try TemporaryFolder()
        let (tiler, tiles) = try Self.pyramid()
        #expect(tiles.count > 100)
        let metadata = TilesetMetadata(name: "paris", tiler: tiler)
        let path = tmp.path("paris" + (format == .directory ? "" : "." + format.rawValue))
        try Self.write(tiles, metadata: metadata, format: format, path: path)
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

    @Test(.enabled(if: ExternalTool.required(ExternalTool.available("sqlite3"))))
    func mbtilesHasTMSRowsAndTheMetadataTableSQLiteShows() async throws {
        let tmp = try TemporaryFolder()
        let (tiles, path) = try Self.parisArchive(.mbtiles, in: tmp)
        let rows = try await ExternalTool.runDetached("/usr/bin/env", ["sqlite3", "-separator", " ", path,
                                                         "SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles"])
        #expect(rows.status == 0, "\(rows.stderr)")
        var count = 0
        for line in rows.text.split(separator: "\n") {
            let f = line.split(separator: " ")
            let z = Int(f[0]) ?? -1, x = Int(f[1]) ?? -1, row = Int(f[2]) ?? -1
            let id = TileID(z: z, x: x, y: (1 << z) - 1 - row)
            let hex = tiles[id]?.map { String(format: "%02X", $0) }.joined()
            #expect(hex == String(f[3]), "tile \(id) at TMS row \(row)")
            count += 1
        }
        #expect(count == tiles.count)
        let meta = try await ExternalTool.runDetached("/usr/bin/env", ["sqlite3", "-separator", "=", path, "SELECT name, value FROM metadata"])
        let pairs = Dictionary(meta.text.split(separator: "\n").map { line -> (String, String) in
            let parts = line.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }, uniquingKeysWith: { a, _ in a })
        #expect(pairs["format"] == "pbf" && pairs["name"] == "paris" && pairs["minzoom"] == "0" && pairs["maxzoom"] == "12")
        #expect(pairs["json"]?.contains("\"vector_layers\"") == true)
        #expect(pairs["bounds"]?.split(separator: ",").count == 4 && pairs["center"]?.split(separator: ",").count == 3)
        let index = try await ExternalTool.runDetached("/usr/bin/env", ["sqlite3", path, "PRAGMA index_list(tiles)"])
        #expect(index.text.contains("tile_index|1"), "a unique index on the tiles: \(index.text)")
    }

    @Test(.enabled(if: ExternalTool.required(ExternalTool.available("ogrinfo"))))
    func gdalReadsAZoomOfTheMBTiles() async throws {
        let tmp = try TemporaryFolder()
        let (tiles, path) = try Self.parisArchive(.mbtiles, in: tmp)
        // Count our features at z10 (one per route and tile) against GDAL's count.
        var features = 0
        for (id, bytes) in tiles where id.z == 10 { features += try Sample.decode(bytes).layers[0].features.count }
        let r = try await ExternalTool.runDetached("/usr/bin/env", ["ogrinfo", "-ro", "-so", "-oo", "ZOOM_LEVEL=10", path, "routes"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("Feature Count: \(features)"), "\(r.text)")
        #expect(r.text.contains("name: String"))
    }

    @Test(.enabled(if: ExternalTool.required(ExternalTool.pythonHas("pmtiles") && ExternalTool.available("pmtiles-show"))))
    func pmtilesPackageReadsEveryTileAndTheHeader() async throws {
        let tmp = try TemporaryFolder()
        let (tiles, path) = try Self.parisArchive(.pmtiles, in: tmp)
        let show = try await ExternalTool.runDetached("/usr/bin/env", ["pmtiles-show", path])
        #expect(show.status == 0, "\(show.stderr)")
        for field in ["'version': 3", "'tile_type': <TileType.MVT: 1>", "'clustered': True", "'max_zoom': 12",
                      "'tile_compression': <Compression.GZIP: 2>", "'addressed_tiles_count': \(tiles.count)", "'name': 'paris'"] {
            #expect(show.text.contains(field), "\(field) in \(show.text)")
        }
        // The package's reader over every tile: z x y and a hash of the bytes.
        let r = try await ExternalTool.pythonDetached("""
            import sys, hashlib
            from pmtiles.reader import MmapSource, Reader, all_tiles
            with open(sys.argv[1] if len(sys.argv) > 1 else "\(path)", "r+b") as f:
                reader = Reader(MmapSource(f))
                for (z, x, y), data in all_tiles(reader.get_bytes):
                    print(z, x, y, hashlib.sha1(data).hexdigest())
                print("meta", sorted(reader.metadata().keys()))
            """)
        #expect(r.status == 0, "\(r.stderr)")
        var theirs: [TileID: String] = [:]
        for line in r.text.split(separator: "\n") where !line.hasPrefix("meta") {
            let f = line.split(separator: " ")
            theirs[TileID(z: Int(f[0]) ?? -1, x: Int(f[1]) ?? -1, y: Int(f[2]) ?? -1)] = String(f[3])
        }
        #expect(Set(theirs.keys) == Set(tiles.keys))
        let sha = try await ExternalTool.pythonDetached("""
            import sys, hashlib
            for line in sys.stdin.read().split("\\n"):
                if line: print(hashlib.sha1(bytes.fromhex(line)).hexdigest())
            """, stdin: Array(tiles.keys.sorted().map { id in tiles[id, default: []].map { String(format: "%02x", $0) }.joined() }
                .joined(separator: "\n").utf8))
        #expect(sha.text.split(separator: "\n").map(String.init) == tiles.keys.sorted().map { theirs[$0] ?? "" })
        #expect(r.text.contains("'vector_layers'"))
    }

    @Test(.enabled(if: ExternalTool.required(ExternalTool.available("tippecanoe-decode"))))
    func tippecanoeDecodesBothArchives() async throws {
        let tmp = try TemporaryFolder()
        let (tiler, tiles) = try Self.pyramid()
        let tile = try #require(tiles.keys.filter { $0.z == 11 }.sorted().first)
        let features = try Sample.decode(tiles[tile, default: []]).layers[0].features.count
        for format in [TileStoreFormat.mbtiles, .pmtiles] {
            let path = tmp.path("paris." + format.rawValue)
            try Self.write(tiles, metadata: TilesetMetadata(name: "paris", tiler: tiler), format: format, path: path)
            let r = try await ExternalTool.runDetached("/usr/bin/env", ["tippecanoe-decode", path, "\(tile.z)", "\(tile.x)", "\(tile.y)"])
            #expect(r.status == 0, "\(format): \(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
            let layers = try #require(json["features"] as? [[String: Any]])
            #expect(layers.first?["properties"].flatMap { ($0 as? [String: Any])?["layer"] as? String } == "routes")
            #expect((layers.first?["features"] as? [Any])?.count == features, "\(format)")
        }
    }

    @Test func pmtilesStoresIdenticalTilesOnceWithRuns() throws {
        let tmp = try TemporaryFolder()
        let path = tmp.path("same.pmtiles")
        let same = try Gzip.compress(Array("the same tile".utf8))
        var tiles: [TileID: [UInt8]] = [:]
        for x in 0..<64 { for y in 0..<64 { tiles[TileID(z: 6, x: x, y: y)] = same } }
        tiles[TileID(z: 0, x: 0, y: 0)] = try Gzip.compress(Array("another".utf8))
        let metadata = TilesetMetadata(name: "same", layers: [], minZoom: 0, maxZoom: 6, bounds: [-180, -85, 180, 85], center: [0, 0, 0])
        try Self.write(tiles, metadata: metadata, format: .pmtiles, path: path)
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
        let (tiler, tiles) = try Self.pyramid()
        for format in [TileStoreFormat.mbtiles, .pmtiles] {
            let path = tmp.path("a." + format.rawValue)
            try Self.write(tiles, metadata: TilesetMetadata(name: "a", tiler: tiler), format: format, path: path)
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
