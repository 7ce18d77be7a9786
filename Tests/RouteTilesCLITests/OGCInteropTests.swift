import Foundation
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport
import Testing

/// `routetiles serve`'s OGC API – Tiles read by GDAL's OGCAPI driver: Debian's GDAL 3.6 (`ogrinfo`), which lists the
/// collection (its driver reads no vector tiles), and the GDAL 3.12 inside PyPI's pyogrio, which reads the vector
/// tiles as layers (one per zoom, "Zoom level N") and copies them into a GeoPackage as `ogr2ogr` does.
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

    @Test(.enabled(if: ExternalTool.required(ExternalTool.pythonHas("pyogrio") && ExternalTool.pythonHas("mapbox_vector_tile")
                                             && ExternalTool.available("ogrinfo"))))
    func gdal312ReadsTheVectorTilesOfAZoomAndCopiesThem() async throws {
        let serve = try await ServeProcess.start([Self.sample, "--maxzoom", "14"])
        let tmp = try TemporaryFolder()
        let gpkg = tmp.path("routes.gpkg")
        // GDAL 3.12.4 reads the collection's bbox as if it were in the tile matrix set's CRS (seen with its OGCAPI
        // driver): the area is given again in EPSG:3857 metres, as Docs/CLIENTS.md tells users to.
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
            area = dict(MINX=str(mx(west)), MINY=str(my(south)), MAXX=str(mx(east)), MAXY=str(my(north)))
            url = "OGCAPI:" + base + "/ogc/collections/routes"
            # Listed without the area, GDAL keeps the zooms whose limits meet the misread bbox: 0 to 2. With it, the
            # deepest zoom is there too.
            layers = [name for name, _ in pyogrio.list_layers(url)]
            deepest = pyogrio.read_info(url, layer="Zoom level 14", **area)["geometry_type"]
            meta, fids, geometry, fields = raw.read(url, layer="Zoom level 12", return_fids=True, **area)
            names = fields[meta["fields"].tolist().index("name")].tolist() if "name" in meta["fields"].tolist() else []
            # Our count: the features of the routes layer in every z12 tile of the tileset's limits.
            tileset = json.loads(get("/ogc/collections/routes/tiles/WebMercatorQuad")[1])
            limits = next(l for l in tileset["tileMatrixSetLimits"] if l["tileMatrix"] == "12")
            ours = 0
            ours_names = set()
            for row in range(limits["minTileRow"], limits["maxTileRow"] + 1):
                for col in range(limits["minTileCol"], limits["maxTileCol"] + 1):
                    status, body = get(f"/tiles/12/{col}/{row}.mvt")
                    if status == 200 and body:
                        tile = mapbox_vector_tile.decode(body)
                        features = tile.get("routes", {}).get("features", [])
                        ours += len(features)
                        ours_names.update(f["properties"].get("name") for f in features)
            # ogr2ogr's work: the layer written into a GeoPackage with GDAL 3.12, read back by Debian's ogrinfo.
            raw.write("\(gpkg)", geometry, fields, meta["fields"], driver="GPKG", layer="routes",
                      geometry_type=meta["geometry_type"], crs=meta["crs"])
            print(json.dumps(dict(layers=layers, deepest=deepest, read=len(geometry), ours=ours, crs=meta["crs"], geometry=meta["geometry_type"],
                                  names=sorted(set(n for n in names if n)), ours_names=sorted(n for n in ours_names if n))))
            """)
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.text.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(r.text)")
        let layers = report["layers"] as? [String] ?? []
        #expect(layers.contains("Zoom level 0"), "\(layers)")
        #expect(report["deepest"] as? String == "MultiLineString", "\(report)")
        let read = report["read"] as? Int ?? -1
        #expect(read > 0 && read == report["ours"] as? Int, "GDAL read \(read) features at z12, the tiles hold \(report["ours"] ?? "?")")
        #expect((report["crs"] as? String)?.contains("3857") == true, "\(report)")
        #expect((report["names"] as? [String]) == (report["ours_names"] as? [String]) && !(report["names"] as? [String] ?? []).isEmpty)
        let copied = try await ExternalTool.runDetached("/usr/bin/env", ["ogrinfo", "-ro", "-so", gpkg, "routes"])
        #expect(copied.text.contains("Feature Count: \(read)"), "\(copied.text) \(copied.stderr)")
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
            request = urllib.request.Request(base + "/tiles.json", headers={"Authorization": "Bearer " + token})
            west, south, east, north = json.loads(urllib.request.urlopen(request, timeout=30).read())["bounds"]
            R = 6378137.0
            area = dict(MINX=str(math.radians(west) * R), MINY=str(R * math.log(math.tan(math.pi / 4 + math.radians(south) / 2))),
                        MAXX=str(math.radians(east) * R), MAXY=str(R * math.log(math.tan(math.pi / 4 + math.radians(north) / 2))))
            url = "OGCAPI:" + base + "/ogc/collections/routes"
            try:
                pyogrio.list_layers(url)
                refused = False
            except Exception:
                refused = True
            pyogrio.set_gdal_config_options({"GDAL_HTTP_AUTH": "BEARER", "GDAL_HTTP_BEARER": token})
            meta, fids, geometry, fields = raw.read(url, layer="Zoom level 12", return_fids=True, **area)
            print(json.dumps(dict(refused=refused, read=len(geometry))))
            """)
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.text.split(separator: "\n").last.map(String.init) ?? ""
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(r.text)")
        #expect(report["refused"] as? Bool == true && (report["read"] as? Int ?? 0) > 0, "\(report)")
        #expect(await serve.stop() == 0)
    }
}
