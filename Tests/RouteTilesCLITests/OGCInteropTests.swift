import Foundation
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport
import Testing

/// `routetiles serve`'s OGC API – Tiles read by GDAL's OGCAPI driver: Debian's GDAL 3.6 (`ogrinfo`), which lists the
/// collection (its driver reads no vector tiles), and the GDAL 3.12 inside PyPI's pyogrio, which reads the vector
/// tiles as layers (one per zoom, "Zoom level N"), in WorldCRS84Quad unless told otherwise, and copies them into a
/// GeoPackage as `ogr2ogr` does.
@Suite(.serialized) struct OGCInteropTests {
    static let sample = "Tiles/samples/paris-runs.geojson"

    @Test(.enabled(if: ExternalTool.required(ExternalTool.available("ogrinfo"))))
    func debiansGDALListsTheCollection() async throws {
        let serve = try await ServeProcess.start([Self.sample, "--maxzoom", "14"])
        let listed = try await ExternalTool.runDetached("/usr/bin/env", ["ogrinfo", "-ro", "OGCAPI:\(serve.base)/ogc"], timeout: 120)
        #expect(listed.text.contains("SUBDATASET_1_NAME=OGCAPI:\(serve.base)/ogc/collections/routes"), "\(listed.text) \(listed.stderr)")
        #expect(listed.text.contains("SUBDATASET_1_DESC=Collection "), "\(listed.text)")
        #expect(await serve.stop() == 0)
    }

    /// What a GDAL or QGIS user does: open the collection with no option. GDAL prefers the WorldCRS84Quad tileset,
    /// lists every zoom the server serves, and reads a zoom's features in CRS84 (each tile's MVT placed by the tile
    /// matrix set); the same features the server's tiles hold, copied into a GeoPackage as `ogr2ogr` does.
    @Test(.enabled(if: ExternalTool.required(ExternalTool.pythonHas("pyogrio") && ExternalTool.pythonHas("mapbox_vector_tile")
                                             && ExternalTool.pythonHas("shapely") && ExternalTool.available("ogrinfo"))))
    func gdal312ListsEveryZoomAndReadsItWithoutOptions() async throws {
        let serve = try await ServeProcess.start([Self.sample, "--maxzoom", "14"])
        let tmp = try TemporaryFolder()
        let gpkg = tmp.path("routes.gpkg")
        let r = try await ExternalTool.pythonDetached("""
            import json, urllib.request
            import pyogrio, mapbox_vector_tile
            from pyogrio import raw
            base = "\(serve.base)"
            def get(path):
                with urllib.request.urlopen(base + path, timeout=30) as answer:
                    return answer.status, answer.read()
            west, south, east, north = json.loads(get("/tiles.json")[1])["bounds"]
            url = "OGCAPI:" + base + "/ogc/collections/routes"
            layers = [name for name, _ in pyogrio.list_layers(url)]
            meta, fids, geometry, fields = raw.read(url, layer="Zoom level 12", return_fids=True)
            names = fields[meta["fields"].tolist().index("name")].tolist() if "name" in meta["fields"].tolist() else []
            # Every vertex GDAL read, in degrees: within the routes' bounds and the tiles' buffer around them.
            import shapely
            coords = shapely.get_coordinates(shapely.from_wkb(geometry))
            pad = 180 / 4096 * 64 / 4096 + 1e-6
            outside = int(((coords[:, 0] < west - pad) | (coords[:, 0] > east + pad) | (coords[:, 1] < south - pad) | (coords[:, 1] > north + pad)).sum())
            # Our count: the features of the routes layer in every z12 tile of the WorldCRS84Quad tileset's limits.
            tileset = json.loads(get("/ogc/collections/routes/tiles/WorldCRS84Quad")[1])
            limits = next(l for l in tileset["tileMatrixSetLimits"] if l["tileMatrix"] == "12")
            ours = 0
            ours_names = set()
            for row in range(limits["minTileRow"], limits["maxTileRow"] + 1):
                for col in range(limits["minTileCol"], limits["maxTileCol"] + 1):
                    status, body = get(f"/ogc/collections/routes/tiles/WorldCRS84Quad/12/{row}/{col}")
                    if status == 200 and body:
                        tile = mapbox_vector_tile.decode(body)
                        features = tile.get("routes", {}).get("features", [])
                        ours += len(features)
                        ours_names.update(f["properties"].get("name") for f in features)
            raw.write("\(gpkg)", geometry, fields, meta["fields"], driver="GPKG", layer="routes",
                      geometry_type=meta["geometry_type"], crs=meta["crs"])
            print(json.dumps(dict(layers=layers, read=len(geometry), ours=ours, crs=meta["crs"], geometry=meta["geometry_type"],
                                  vertices=len(coords), outside=outside,
                                  names=sorted(set(n for n in names if n)), ours_names=sorted(n for n in ours_names if n))))
            """)
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.text.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(r.text)")
        #expect(report["layers"] as? [String] == (0...14).map { "Zoom level \($0)" }, "\(report["layers"] ?? "")")
        let read = report["read"] as? Int ?? -1
        #expect(read > 0 && read == report["ours"] as? Int, "GDAL read \(read) features at z12, the tiles hold \(report["ours"] ?? "?")")
        #expect((report["crs"] as? String)?.contains("CRS84") == true, "\(report)")
        #expect(report["geometry"] as? String == "MultiLineString", "\(report)")
        #expect((report["vertices"] as? Int ?? 0) > 0 && report["outside"] as? Int == 0, "\(report)")
        #expect((report["names"] as? [String]) == (report["ours_names"] as? [String]) && !(report["names"] as? [String] ?? []).isEmpty)
        let copied = try await ExternalTool.runDetached("/usr/bin/env", ["ogrinfo", "-ro", "-so", gpkg, "routes"])
        #expect(copied.text.contains("Feature Count: \(read)"), "\(copied.text) \(copied.stderr)")
        #expect(await serve.stop() == 0)
    }

    /// WebMercatorQuad, asked for by name (`TILEMATRIXSET`): GDAL 3.12.4 reads the collection's CRS84 bbox as if it
    /// were in the tile matrix set's metres (its vector branch does not reproject it), so the area is given again in
    /// EPSG:3857 metres, as Docs/CLIENTS.md says; the features are then those of the XYZ tiles.
    @Test(.enabled(if: ExternalTool.required(ExternalTool.pythonHas("pyogrio") && ExternalTool.pythonHas("mapbox_vector_tile"))))
    func gdal312ReadsWebMercatorQuadWhenAskedWithTheArea() async throws {
        let serve = try await ServeProcess.start([Self.sample, "--maxzoom", "14"])
        let r = try await ExternalTool.pythonDetached("""
            import json, math, urllib.request
            import pyogrio, mapbox_vector_tile
            from pyogrio import raw
            base = "\(serve.base)"
            def get(path):
                with urllib.request.urlopen(base + path, timeout=30) as answer:
                    return answer.status, answer.read()
            west, south, east, north = json.loads(get("/tiles.json")[1])["bounds"]
            R = 6378137.0
            mx = lambda lon: math.radians(lon) * R
            my = lambda lat: R * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))
            area = dict(MINX=str(mx(west)), MINY=str(my(south)), MAXX=str(mx(east)), MAXY=str(my(north)),
                        TILEMATRIXSET="WebMercatorQuad")
            url = "OGCAPI:" + base + "/ogc/collections/routes"
            deepest = pyogrio.read_info(url, layer="Zoom level 14", **area)["geometry_type"]
            meta, fids, geometry, fields = raw.read(url, layer="Zoom level 12", return_fids=True, **area)
            tileset = json.loads(get("/ogc/collections/routes/tiles/WebMercatorQuad")[1])
            limits = next(l for l in tileset["tileMatrixSetLimits"] if l["tileMatrix"] == "12")
            ours = 0
            for row in range(limits["minTileRow"], limits["maxTileRow"] + 1):
                for col in range(limits["minTileCol"], limits["maxTileCol"] + 1):
                    status, body = get(f"/tiles/12/{col}/{row}.mvt")
                    if status == 200 and body:
                        ours += len(mapbox_vector_tile.decode(body).get("routes", {}).get("features", []))
            print(json.dumps(dict(deepest=deepest, read=len(geometry), ours=ours, crs=meta["crs"])))
            """)
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.text.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(r.text)")
        #expect(report["deepest"] as? String == "MultiLineString", "\(report)")
        let read = report["read"] as? Int ?? -1
        #expect(read > 0 && read == report["ours"] as? Int, "GDAL read \(read) features at z12, the tiles hold \(report["ours"] ?? "?")")
        #expect((report["crs"] as? String)?.contains("3857") == true, "\(report)")
        #expect(await serve.stop() == 0)
    }

    /// A private server (`--read token`): GDAL given the credential once, as its bearer token (`GDAL_HTTP_AUTH=BEARER`,
    /// `GDAL_HTTP_BEARER`), reads the collection's features; the tile template it follows is signed for the reader.
    /// Without the credential, it cannot open the collection. (GDAL sends neither `GDAL_HTTP_HEADERS` nor a query
    /// given on the URL with the requests of this driver, seen with 3.12.4.)
    @Test(.enabled(if: ExternalTool.required(ExternalTool.pythonHas("pyogrio"))))
    func gdal312ReadsAPrivateServerGivenItsBearerToken() async throws {
        let tmp = try TemporaryFolder()
        let secret = tmp.path("secret")
        try Data(TestTokens.secret).write(to: URL(fileURLWithPath: secret))
        let serve = try await ServeProcess.start([Self.sample, "--maxzoom", "14", "--read", "token", "--jwt-secret-file", secret])
        let token = try await TestTokens.hs256(read: ["*"])
        let r = try await ExternalTool.pythonDetached("""
            import json, math, os, urllib.request
            import pyogrio
            from pyogrio import raw
            base, token = "\(serve.base)", "\(token)"
            url = "OGCAPI:" + base + "/ogc/collections/routes"
            try:
                pyogrio.list_layers(url)
                refused = False
            except Exception:
                refused = True
            pyogrio.set_gdal_config_options({"GDAL_HTTP_AUTH": "BEARER", "GDAL_HTTP_BEARER": token})
            meta, fids, geometry, fields = raw.read(url, layer="Zoom level 12", return_fids=True)
            print(json.dumps(dict(refused=refused, read=len(geometry))))
            """)
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.text.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(r.text)")
        #expect(report["refused"] as? Bool == true && (report["read"] as? Int ?? 0) > 0, "\(report)")
        #expect(await serve.stop() == 0)
    }
}
