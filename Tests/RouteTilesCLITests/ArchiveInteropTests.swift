import Foundation
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport
import Testing

/// MBTiles and PMTiles read by independent readers: the pmtiles package, the sqlite3 shell, GDAL, tippecanoe-decode.
@Suite struct ArchiveInteropTests {
    @Test func hilbertIDsMatchThePMTilesPackage() async throws {
        var rng = SeededGenerator(seed: 3)
        let deep = (0..<200).map { _ -> TileID in
            let z = Int.random(in: 7...TileID.maxZoom, using: &rng)
            return TileID(z: z, x: .random(in: 0..<(1 << z), using: &rng), y: .random(in: 0..<(1 << z), using: &rng))
        }
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

    @Test(.enabled(if: ExternalTool.required(ExternalTool.available("sqlite3"))))
    func mbtilesHasTMSRowsAndTheMetadataTableSQLiteShows() async throws {
        let tmp = try TemporaryFolder()
        let (tiles, path) = try ArchiveFixtures.parisArchive(.mbtiles, in: tmp)
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
        let (tiles, path) = try ArchiveFixtures.parisArchive(.mbtiles, in: tmp)
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
        let (tiles, path) = try ArchiveFixtures.parisArchive(.pmtiles, in: tmp)
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
        let (tiler, tiles) = try ArchiveFixtures.pyramid()
        let tile = try #require(tiles.keys.filter { $0.z == 11 }.sorted().first)
        let features = try Sample.decode(tiles[tile, default: []]).layers[0].features.count
        for format in [TileStoreFormat.mbtiles, .pmtiles] {
            let path = tmp.path("paris." + format.rawValue)
            try ArchiveFixtures.write(tiles, metadata: TilesetMetadata(name: "paris", tiler: tiler), format: format, path: path)
            let r = try await ExternalTool.runDetached("/usr/bin/env", ["tippecanoe-decode", path, "\(tile.z)", "\(tile.x)", "\(tile.y)"])
            #expect(r.status == 0, "\(format): \(r.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
            let layers = try #require(json["features"] as? [[String: Any]])
            #expect(layers.first?["properties"].flatMap { ($0 as? [String: Any])?["layer"] as? String } == "routes")
            #expect((layers.first?["features"] as? [Any])?.count == features, "\(format)")
        }
    }

}
