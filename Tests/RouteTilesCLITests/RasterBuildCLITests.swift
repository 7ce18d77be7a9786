import Foundation
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport
import Testing

/// `build --tile-format png`: static pyramids and archives of raster tiles, read by independent readers (GDAL's
/// MBTiles raster driver, the pmtiles package, Pillow), holding the tiles the vector build holds, each drawn as the
/// server draws `/tiles/{z}/{x}/{y}.png`.
@Suite struct RasterBuildCLITests {
    let samples = PackageFolder.root.appendingPathComponent("Tiles/samples")
    func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    func build(_ output: String, _ extra: [String]) async throws {
        let args = ["build", sample("paris-runs.geojson"), "-o", output, "--maxzoom", "14", "--quiet"] + extra
        let r = try await ExternalTool.runDetached(ExternalTool.routetiles, args)
        #expect(r.status == 0, "\(args): \(r.stderr)")
    }

    /// The width and height a PNG's IHDR chunk gives, nil for bytes that are not a PNG.
    static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count > 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              Array(bytes[12..<16]) == Array("IHDR".utf8)
        else { return nil }
        func be(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    /// Every `{z}/{x}/{y}<ending>` file of a pyramid folder.
    static func files(in root: String, ending: String) throws -> [TileID: [UInt8]] {
        var found: [TileID: [UInt8]] = [:]
        let fm = FileManager.default
        for z in try fm.contentsOfDirectory(atPath: root) where Int(z) != nil {
            for x in try fm.contentsOfDirectory(atPath: root + "/" + z) {
                for name in try fm.contentsOfDirectory(atPath: root + "/\(z)/\(x)") where name.hasSuffix(ending) {
                    guard let y = Int(name.dropLast(ending.count)), let zi = Int(z), let xi = Int(x) else { continue }
                    found[TileID(z: zi, x: xi, y: y)] = try FileBytes.contents(atPath: root + "/\(z)/\(x)/\(name)")
                }
            }
        }
        return found
    }

    @Test func aPNGFolderHoldsTheVectorBuildsTilesDrawnAsTheServerDrawsThem() async throws {
        let tmp = try TemporaryFolder()
        try await build(tmp.path("vector"), [])
        try await build(tmp.path("png"), ["--tile-format", "png", "--base-url", "https://tiles.example.com/paris"])
        try await build(tmp.path("png2x"), ["--tile-format", "png", "--tile-scale", "2"])
        let vector = try Self.files(in: tmp.path("vector"), ending: ".mvt")
        let png = try Self.files(in: tmp.path("png"), ending: ".png")
        let png2x = try Self.files(in: tmp.path("png2x"), ending: "@2x.png")
        #expect(vector.count > 30)
        #expect(Set(png.keys) == Set(vector.keys), "the PNG folder has a file for every vector tile and no other")
        #expect(Set(png2x.keys) == Set(vector.keys))
        let renderer = RasterTileRenderer()
        for (id, mvt) in vector {
            let drawn = try renderer.png(ofVectorTile: mvt, zoom: id.z, scale: 1)
            #expect(png[id] == drawn, "tile \(id) of the folder is the server's drawing of the vector tile")
            #expect(png[id].flatMap(Self.pngSize).map { $0 == (256, 256) } == true)
            #expect(png2x[id].flatMap(Self.pngSize).map { $0 == (512, 512) } == true)
        }
        let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp.path("png/metadata.json")))) as? [String: Any]
        #expect(metadata?["format"] as? String == "png" && metadata?["json"] == nil, "\(String(describing: metadata))")
        let scaled = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp.path("png2x/metadata.json")))) as? [String: Any]
        #expect(scaled?["routetiles_tile_scale"] as? String == "2")
        let tileJSON = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp.path("png/tiles.json")))) as? [String: Any]
        #expect(tileJSON?["tiles"] as? [String] == ["https://tiles.example.com/paris/{z}/{x}/{y}.png"])
        #expect(tileJSON?["vector_layers"] == nil)
        // What reads vector tilesets refuses a PNG one with a reason.
        let serve = try await ExternalTool.runDetached(ExternalTool.routetiles, ["serve", "--tiles", tmp.path("png"), "--port", "0"])
        #expect(serve.status != 0 && serve.stderr.contains("holds png tiles"), "\(serve.stderr)")
    }

    @Test(.enabled(if: ExternalTool.required(ExternalTool.available("gdalinfo"))))
    func gdalReadsThePNGMBTilesAsAnImage() async throws {
        let tmp = try TemporaryFolder()
        let path = tmp.path("paris.mbtiles")
        try await build(path, ["--tile-format", "png"])
        // GDAL's MBTiles raster driver: four bands (RGBA) over the routes' bounds at zoom 14, and routes drawn (some
        // opaque pixels, most transparent).
        let info = try await ExternalTool.runDetached("/usr/bin/env", ["gdalinfo", "-json", "-stats", path])
        #expect(info.status == 0, "\(info.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(info.text.utf8)) as? [String: Any]
        #expect((object?["driverShortName"] as? String) == "MBTiles")
        let bands = object?["bands"] as? [[String: Any]] ?? []
        #expect(bands.count == 4, "\(bands)")
        #expect(bands.last?["colorInterpretation"] as? String == "Alpha")
        let alphaMax = bands.last?["maximum"] as? Double ?? 0
        let alphaMean = bands.last?["mean"] as? Double ?? 255
        #expect(alphaMax == 255 && alphaMean > 0.01 && alphaMean < 128, "routes drawn on a transparent ground: \(bands.last ?? [:])")
        let size = object?["size"] as? [Int] ?? []
        #expect(size.count == 2 && size[0] > 256 && size[1] > 256, "\(size)")
        let metadata = try await ExternalTool.runDetached("/usr/bin/env", ["sqlite3", path, "SELECT value FROM metadata WHERE name = 'format'"])
        #expect(metadata.text.trimmingCharacters(in: .whitespacesAndNewlines) == "png")
        let refused = try await ExternalTool.runDetached(ExternalTool.routetiles, ["convert", path, tmp.path("out.pmtiles")])
        #expect(refused.status != 0 && refused.stderr.contains("holds png tiles"), "\(refused.stderr)")
    }

    @Test(.enabled(if: ExternalTool.required(ExternalTool.pythonHas("pmtiles") && ExternalTool.pythonHas("PIL"))))
    func thePMTilesPackageReadsPNGTilesOfTheRightTypeAndSize() async throws {
        let tmp = try TemporaryFolder()
        let path = tmp.path("paris.pmtiles")
        try await build(path, ["--tile-format", "png", "--tile-scale", "3"])
        try await build(tmp.path("vector"), [])
        let vectorCount = try Self.files(in: tmp.path("vector"), ending: ".mvt").count
        let r = try await ExternalTool.pythonDetached("""
            import io
            from PIL import Image
            from pmtiles.reader import MmapSource, Reader, all_tiles
            with open("\(path)", "r+b") as f:
                reader = Reader(MmapSource(f))
                header = reader.header()
                print("type", header["tile_type"].name, "compression", header["tile_compression"].name)
                sizes = set()
                count = 0
                opaque = 0
                for (z, x, y), data in all_tiles(reader.get_bytes):
                    image = Image.open(io.BytesIO(data))
                    sizes.add((image.format, image.mode, image.size))
                    opaque += image.getchannel("A").getextrema()[1] == 255
                    count += 1
                print("tiles", count, "with ink", opaque)
                print("sizes", sorted(sizes))
                print("format", reader.metadata().get("format"), "scale", reader.metadata().get("routetiles_tile_scale"))
            """)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("type PNG compression NONE"), "\(r.text)")
        // A tile may hold only a route's buffer, outside its square (1/0/0 beside Paris's 1/1/0): most tiles, not
        // all, have opaque pixels.
        let counts = r.text.split(separator: "\n").first { $0.hasPrefix("tiles ") }?.split(separator: " ").compactMap { Int($0) } ?? []
        #expect(counts.count == 2 && counts[0] == vectorCount && counts[1] * 3 >= counts[0] * 2, "\(r.text)")
        #expect(r.text.contains("sizes [('PNG', 'RGBA', (768, 768))]"), "\(r.text)")
        #expect(r.text.contains("format png scale 3"), "\(r.text)")
    }

    @Test func badTileFormatsAreRefusedWithAReason() async throws {
        let tmp = try TemporaryFolder()
        for (extra, message) in [(["--tile-format", "jpg"], "unknown --tile-format 'jpg'"),
                                 (["--tile-scale", "2"], "--tile-scale is for --tile-format png"),
                                 (["--tile-format", "png", "--tile-scale", "4"], "--tile-scale must be 1, 2 or 3"),
                                 (["--tile-format", "png", "--shard", "0/2"], "build PNG tiles in one part")] {
            let r = try await ExternalTool.runDetached(ExternalTool.routetiles,
                                                       ["build", sample("paris-runs.geojson"), "-o", tmp.path("x")] + extra)
            #expect(r.status != 0 && r.stderr.contains(message), "\(extra): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: tmp.path("x")))
        }
    }

    /// `PNGWriter` (the system zlib, the Up filter) against cairo's own writer (libpng), decoded by Pillow: the same
    /// pixels, for every tile of a pyramid at @1x and @2x (colour channels within 1 where a pixel is not transparent:
    /// both round the un-premultiplied value, alpha exact).
    @Test(.enabled(if: ExternalTool.required(ExternalTool.pythonHas("PIL"))))
    func ourPNGsDecodeToCairosPixels() async throws {
        let tmp = try TemporaryFolder()
        try await build(tmp.path("vector"), [])
        let renderer = RasterTileRenderer()
        var pairs: [String] = []
        for (id, mvt) in try Self.files(in: tmp.path("vector"), ending: ".mvt") {
            let decoded = try VectorTileDecoder.decode(try Gzip.decompress(mvt))
            for scale in [1, 2] {
                let name = "\(id.z)-\(id.x)-\(id.y)@\(scale)"
                try Data(try renderer.png(of: decoded, zoom: id.z, scale: scale)).write(to: URL(fileURLWithPath: tmp.path(name + "-ours.png")))
                try Data(try renderer.cairoPNG(of: decoded, zoom: id.z, scale: scale)).write(to: URL(fileURLWithPath: tmp.path(name + "-cairo.png")))
                pairs.append(name)
            }
        }
        let r = try await ExternalTool.pythonDetached("""
            import os, sys
            from PIL import Image, ImageChops
            folder, names = "\(tmp.path(""))", sys.stdin.read().split()
            worst = 0
            bad = []
            ours_bytes = cairo_bytes = 0
            for name in names:
                ours = Image.open(os.path.join(folder, name + "-ours.png"))
                cairo = Image.open(os.path.join(folder, name + "-cairo.png"))
                ours_bytes += os.path.getsize(os.path.join(folder, name + "-ours.png"))
                cairo_bytes += os.path.getsize(os.path.join(folder, name + "-cairo.png"))
                if ours.mode != "RGBA" or ours.size != cairo.size:
                    bad.append(f"{name}: {ours.mode} {ours.size} against {cairo.mode} {cairo.size}")
                    continue
                cairo = cairo.convert("RGBA")
                if ImageChops.difference(ours.getchannel("A"), cairo.getchannel("A")).getbbox() is not None:
                    bad.append(f"{name}: alpha differs")
                mask = ours.getchannel("A").point(lambda a: 255 if a > 0 else 0)
                for band in "RGB":
                    diff = ImageChops.difference(ours.getchannel(band), cairo.getchannel(band))
                    most = ImageChops.multiply(diff, mask.point(lambda m: 1 if m else 0)).getextrema()[1]
                    worst = max(worst, most)
            print(f"pairs {len(names)} worst {worst} bad {len(bad)} ours {ours_bytes} cairo {cairo_bytes}")
            for line in bad[:5]: print(line)
            """, stdin: Array(pairs.joined(separator: "\n").utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("pairs \(pairs.count) worst ") && r.text.contains(" bad 0 "), "\(r.text)")
        let worst = r.text.split(separator: " ").firstIndex(of: "worst").flatMap { Int(r.text.split(separator: " ")[$0 + 1]) }
        #expect(worst.map { $0 <= 1 } == true, "\(r.text)")
        // The sizes of both, for the record (BENCHMARKS.md, "Raster tiles").
        Attachment.record(Array(r.text.utf8), named: "png-writers.txt")
    }
}
