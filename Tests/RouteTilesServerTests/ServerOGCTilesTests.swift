import Foundation
import RouteTiles
import RouteTilesAccess
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// OGC API – Tiles under `/ogc`: every link of the documents leads somewhere, the documents say what the tiles are
/// (limits, bounds, layers, the tile template), and a tile read through the template is the XYZ tile of the same
/// place, changing when it changes and hidden from readers of other groups as it is.
@Suite struct ServerOGCTilesTests {
    static let token = "ogc-write-token-1"

    static func object(_ reply: TestServer.Reply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any], "\(reply.text)")
    }

    static func links(_ object: [String: Any]) -> [[String: Any]] { object["links"] as? [[String: Any]] ?? [] }

    static func link(_ object: [String: Any], rel: String) -> String? {
        links(object).first { $0["rel"] as? String == rel }?["href"] as? String
    }

    /// The template's tile of `tile`: `{tileMatrix}/{tileRow}/{tileCol}` filled in.
    static func fill(_ template: String, _ tile: TileID) -> String {
        template.replacingOccurrences(of: "{tileMatrix}", with: String(tile.z))
            .replacingOccurrences(of: "{tileRow}", with: String(tile.y))
            .replacingOccurrences(of: "{tileCol}", with: String(tile.x))
    }

    @Test func theDocumentsLinkToEachOtherAndTheirTilesAreTheXYZTiles() async throws {
        let routes = Sample.parisRoutes(count: 4, points: 80)
        try await TestServer.with(.routes(routes, options: TestServer.options()), configure: { $0.writeToken = Self.token }) { server in
            let landing = try Self.object(try await server.get("/ogc"))
            let base = server.base
            #expect(Self.link(landing, rel: "self") == base + "/ogc")
            #expect(Self.link(landing, rel: "service-desc") == base + "/openapi.json")
            // Every JSON link of the landing page answers 200 with JSON.
            for link in Self.links(landing) where link["type"] as? String == "application/json" {
                let href = try #require(link["href"] as? String)
                let reply = try await server.get(String(href.dropFirst(base.count)))
                #expect(reply.status == 200 && reply.header("Content-Type") == "application/json", "\(href): \(reply.status)")
                #expect((try? JSONSerialization.jsonObject(with: Data(reply.body))) != nil, "\(href) is JSON")
            }
            let conformance = try Self.object(try await server.get("/ogc/conformance"))["conformsTo"] as? [String] ?? []
            for suffix in ["ogcapi-tiles-1/1.0/conf/core", "ogcapi-tiles-1/1.0/conf/mvt", "ogcapi-tiles-1/1.0/conf/png",
                           "ogcapi-tiles-1/1.0/conf/geodata-tilesets", "ogcapi-common-2/1.0/conf/collections"] {
                #expect(conformance.contains("http://www.opengis.net/spec/" + suffix), "\(suffix)")
            }

            // One collection, routes, whose extent is the tileset's bounds.
            let tileJSON = try Self.object(try await server.get("/tiles.json"))
            let collections = try Self.object(try await server.get("/ogc/collections"))["collections"] as? [[String: Any]] ?? []
            #expect(collections.map { $0["id"] as? String } == ["routes"])
            let bbox = ((collections.first?["extent"] as? [String: Any])?["spatial"] as? [String: Any])?["bbox"] as? [[Double]]
            #expect(bbox == [tileJSON["bounds"] as? [Double] ?? []], "\(String(describing: bbox))")
            let collection = try Self.object(try await server.get("/ogc/collections/routes"))
            let vectorList = try #require(Self.link(collection, rel: OGCRelation.tilesetsVector))
            let mapList = try #require(Self.link(collection, rel: OGCRelation.tilesetsMap))

            // The vector tileset: its limits hold the routes' tiles; its item template gives the XYZ tiles.
            let list = try Self.object(try await server.get(String(vectorList.dropFirst(base.count))))
            let summary = try #require((list["tilesets"] as? [[String: Any]])?.first)
            #expect(summary["dataType"] as? String == "vector" && summary["tileMatrixSetURI"] as? String == WebMercatorQuad.uri)
            let tilesetURL = try #require(Self.link(summary, rel: "self"))
            let tileset = try Self.object(try await server.get(String(tilesetURL.dropFirst(base.count))))
            let layers = tileset["layers"] as? [[String: Any]] ?? []
            #expect(layers.first?["id"] as? String == "routes" && layers.first?["geometryDimension"] as? Int == 1, "\(layers)")
            let item = try #require(Self.links(tileset).first { $0["rel"] as? String == "item" })
            #expect(item["type"] as? String == "application/vnd.mapbox-vector-tile" && item["templated"] as? Bool == true)
            let template = try #require(item["href"] as? String)
            let last = try #require(routes[0].parts[0].last)
            let tile = WebMercator.tile(containing: last, zoom: 14)
            let limits = tileset["tileMatrixSetLimits"] as? [[String: Any]] ?? []
            let limit14 = try #require(limits.first { $0["tileMatrix"] as? String == "14" })
            #expect((limit14["minTileRow"] as? Int ?? .max) <= tile.y && tile.y <= (limit14["maxTileRow"] as? Int ?? -1))
            #expect((limit14["minTileCol"] as? Int ?? .max) <= tile.x && tile.x <= (limit14["maxTileCol"] as? Int ?? -1))
            let ogcPath = String(Self.fill(template, tile).dropFirst(base.count))
            let ogcTile = try await server.get(ogcPath)
            let xyzTile = try await server.get("/tiles/14/\(tile.x)/\(tile.y).mvt")
            #expect(ogcTile.status == 200 && ogcTile.body == xyzTile.body && ogcTile.header("ETag") == xyzTile.header("ETag"))
            #expect(ogcTile.header("Content-Type") == "application/vnd.mapbox-vector-tile")

            // The map tileset's template gives the PNGs of the same tiles.
            let maps = try Self.object(try await server.get(String(mapList.dropFirst(base.count))))
            let mapSummary = try #require((maps["tilesets"] as? [[String: Any]])?.first)
            #expect(mapSummary["dataType"] as? String == "map")
            let mapTileset = try Self.object(try await server.get(String((Self.link(mapSummary, rel: "self") ?? "").dropFirst(base.count))))
            let mapItem = try #require(Self.links(mapTileset).first { $0["rel"] as? String == "item" })
            #expect(mapItem["type"] as? String == "image/png")
            let mapPath = String(Self.fill(mapItem["href"] as? String ?? "", tile).dropFirst(base.count))
            let png = try await server.get(mapPath)
            let xyzPNG = try await server.get("/tiles/14/\(tile.x)/\(tile.y).png")
            #expect(png.status == 200 && png.body == xyzPNG.body && png.header("ETag") == xyzPNG.header("ETag"))
            // The dataset's tilesets are the collection's.
            #expect(try await server.get("/ogc/tiles/WebMercatorQuad/14/\(tile.y)/\(tile.x)").body == xyzTile.body)
            #expect(try await server.get("/ogc/map/tiles/WebMercatorQuad/14/\(tile.y)/\(tile.x)").body == xyzPNG.body)

            // The tile matrix set: matrix z is 2^z tiles wide, its origin the north-west corner.
            let tms = try Self.object(try await server.get("/ogc/tileMatrixSets/WebMercatorQuad"))
            let matrices = tms["tileMatrices"] as? [[String: Any]] ?? []
            #expect(matrices.count == 25 && matrices[14]["matrixWidth"] as? Int == 1 << 14)
            #expect(abs((matrices[0]["scaleDenominator"] as? Double ?? 0) - 559_082_264.028_717_8) < 1e-3)
            let origin = matrices[0]["pointOfOrigin"] as? [Double] ?? []
            #expect(origin.count == 2 && abs(origin[0] + 20_037_508.342_789) < 0.01 && abs(origin[1] - 20_037_508.342_789) < 0.01)

            // Errors: no number (400); outside the matrix (404); another tile matrix set (404).
            #expect(try await server.get("/ogc/tiles/WebMercatorQuad/14/x/0").status == 400)
            #expect(try await server.get("/ogc/tiles/WebMercatorQuad/3/8/0").status == 404)
            #expect(try await server.get("/ogc/tiles/WebMercatorQuad/25/0/0").status == 404)
            #expect(try await server.get("/ogc/tiles/WorldMercatorWGS84Quad/3/0/0").status == 404)

            // A live append changes the OGC tiles it touches, and no tile of a route 0.03° east.
            let far = try #require(routes[3].parts[0].map { WebMercator.tile(containing: $0, zoom: 14) }.first { $0 != tile })
            let farPath = "/ogc/collections/routes/tiles/WebMercatorQuad/14/\(far.y)/\(far.x)"
            let farTag = try await server.get(farPath).header("ETag") ?? ""
            let fix = Array("[[\(last.longitude + 0.0001), \(last.latitude + 0.0001)]]".utf8)
            let appended = try await server.request(.POST, "/routes/100/points", headers: [("Authorization", "Bearer \(Self.token)")], body: fix)
            #expect(appended.status == 200, "\(appended.text)")
            let changed = try await server.get(ogcPath, headers: [("If-None-Match", ogcTile.header("ETag") ?? "")])
            let changedXYZ = try await server.get("/tiles/14/\(tile.x)/\(tile.y).mvt")
            #expect(changed.status == 200 && changed.body == changedXYZ.body)
            let changedPNG = try await server.get(mapPath, headers: [("If-None-Match", png.header("ETag") ?? "")])
            #expect(changedPNG.status == 200)
            #expect(try await server.get(farPath, headers: [("If-None-Match", farTag)]).status == 304)
        }
    }

    /// WorldCRS84Quad beside WebMercatorQuad, for live routes: its definition, a tileset whose limits hold the routes,
    /// tiles cut for their rectangle of longitude and latitude (a route's positions where their degrees put them),
    /// drawn as PNGs, changing when the routes change; a finished tileset offers WebMercatorQuad alone.
    @Test func worldCRS84QuadTilesAreCutForTheirLongitudeAndLatitude() async throws {
        let routes = Sample.parisRoutes(count: 4, points: 80)
        var options = TestServer.options()
        options.simplification = 0
        try await TestServer.with(.routes(routes, options: options), configure: { $0.writeToken = Self.token }) { server in
            let base = server.base
            let sets = try Self.object(try await server.get("/ogc/tileMatrixSets"))["tileMatrixSets"] as? [[String: Any]] ?? []
            #expect(sets.compactMap { $0["id"] as? String } == ["WebMercatorQuad", "WorldCRS84Quad"])
            let tms = try Self.object(try await server.get("/ogc/tileMatrixSets/WorldCRS84Quad"))
            #expect(tms["crs"] as? String == "http://www.opengis.net/def/crs/OGC/1.3/CRS84" && tms["orderedAxes"] as? [String] == ["Lon", "Lat"])
            let matrices = tms["tileMatrices"] as? [[String: Any]] ?? []
            #expect(matrices.count == 24 && matrices[0]["matrixWidth"] as? Int == 2 && matrices[0]["matrixHeight"] as? Int == 1)
            #expect(matrices[0]["cellSize"] as? Double == 0.703125 && matrices[10]["matrixWidth"] as? Int == 2048)
            // OGC's registered scale denominator of matrix 0 (annex D of 17-083r4).
            #expect(abs((matrices[0]["scaleDenominator"] as? Double ?? 0) - 279_541_132.014_358_9) < 1e-3)
            #expect(matrices[0]["pointOfOrigin"] as? [Double] == [-180, 90])

            let list = try Self.object(try await server.get("/ogc/collections/routes/tiles"))
            let summaries = list["tilesets"] as? [[String: Any]] ?? []
            #expect(summaries.compactMap { $0["tileMatrixSetURI"] as? String } == [WebMercatorQuad.uri, WorldCRS84Quad.uri])
            let tileset = try Self.object(try await server.get("/ogc/collections/routes/tiles/WorldCRS84Quad"))
            #expect(tileset["crs"] as? String == WorldCRS84Quad.crs)
            #expect(Self.link(tileset, rel: OGCRelation.tilingScheme) == base + "/ogc/tileMatrixSets/WorldCRS84Quad")
            let template = try #require(Self.links(tileset).first { $0["rel"] as? String == "item" }?["href"] as? String)
            #expect(template == base + "/ogc/collections/routes/tiles/WorldCRS84Quad/{tileMatrix}/{tileRow}/{tileCol}")

            // The z12 tile of a route's last position: in the limits, and the route's positions in it where their
            // longitude and latitude put them, within a unit.
            let last = try #require(routes[0].parts[0].last)
            let side = 180.0 / 4096
            let (row, col) = (Int(((90 - last.latitude) / side).rounded(.down)), Int(((last.longitude + 180) / side).rounded(.down)))
            let limits = tileset["tileMatrixSetLimits"] as? [[String: Any]] ?? []
            let limit12 = try #require(limits.first { $0["tileMatrix"] as? String == "12" })
            #expect((limit12["minTileRow"] as? Int ?? .max) <= row && row <= (limit12["maxTileRow"] as? Int ?? -1), "\(limit12)")
            #expect((limit12["minTileCol"] as? Int ?? .max) <= col && col <= (limit12["maxTileCol"] as? Int ?? -1), "\(limit12)")
            let path = "/ogc/collections/routes/tiles/WorldCRS84Quad/12/\(row)/\(col)"
            let tile = try await server.get(path, gzip: false)
            #expect(tile.status == 200 && tile.header("Content-Type") == "application/vnd.mapbox-vector-tile", "\(tile.status) \(tile.text)")
            let decoded = try VectorTileDecoder.decode(tile.body)
            let id = ProjectedRouteSet.featureID(for: routes[0].id, index: 0)
            let points = try #require(decoded.layer(named: "routes")?.features.first { $0.id == id }).geometry.points
            let west = Double(col) * side - 180, north = 90 - Double(row) * side
            let inside = routes[0].parts[0].filter { $0.longitude >= west && $0.longitude < west + side && $0.latitude <= north && $0.latitude > north - side }
            #expect(!inside.isEmpty)
            for c in inside {
                let (ux, uy) = ((c.longitude - west) / side * 4096, (north - c.latitude) / side * 4096)
                #expect(points.contains { abs(Double($0.x) - ux) <= 1 && abs(Double($0.y) - uy) <= 1 }, "\(c): (\(ux), \(uy))")
            }
            #expect(try await server.get("/ogc/tiles/WorldCRS84Quad/12/\(row)/\(col)", gzip: false).body == tile.body)
            let png = try await server.get("/ogc/collections/routes/map/tiles/WorldCRS84Quad/12/\(row)/\(col)")
            #expect(png.status == 200 && png.header("Content-Type") == "image/png" && Array(png.body.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
            #expect(try await server.get("/ogc/map/tiles/WorldCRS84Quad/12/\(row)/\(col)").body == png.body)

            // Outside the matrix of two columns by one row at zoom 0, and of 2^(z+1) by 2^z: 404.
            #expect(try await server.get("/ogc/tiles/WorldCRS84Quad/0/1/0").status == 404)
            #expect(try await server.get("/ogc/tiles/WorldCRS84Quad/3/0/16").status == 404)
            #expect(try await server.get("/ogc/tiles/WorldCRS84Quad/3/0/15").status == 204)
            #expect(try await server.get("/ogc/tiles/WorldCRS84Quad/24/0/0").status == 404)

            // An append near the last position changes the tile (and its PNG); a tile away from it keeps its tag.
            let appended = try await server.request(.POST, "/routes/100/points", headers: [("Authorization", "Bearer \(Self.token)")],
                                                    body: Array("[[\(last.longitude + 0.0001), \(last.latitude + 0.0001)]]".utf8))
            #expect(appended.status == 200, "\(appended.text)")
            let changed = try await server.get(path, gzip: false, headers: [("If-None-Match", tile.header("ETag") ?? "")])
            #expect(changed.status == 200 && changed.body != tile.body)
            #expect(try await server.get(path, gzip: false, headers: [("If-None-Match", changed.header("ETag") ?? "")]).status == 304)
            let changedPNG = try await server.get("/ogc/map/tiles/WorldCRS84Quad/12/\(row)/\(col)", headers: [("If-None-Match", png.header("ETag") ?? "")])
            #expect(changedPNG.status == 200)
        }

        let (folder, source) = try TestServer.parisTileset()
        defer { withExtendedLifetime(folder) {} }
        try await TestServer.with(.tileset(source)) { server in
            let list = try Self.object(try await server.get("/ogc/collections/routes/tiles"))["tilesets"] as? [[String: Any]] ?? []
            #expect(list.compactMap { $0["tileMatrixSetURI"] as? String } == [WebMercatorQuad.uri])
            let refused = try await server.get("/ogc/collections/routes/tiles/WorldCRS84Quad")
            #expect(refused.status == 404 && refused.text.contains("finished tileset"), "\(refused.text)")
            #expect(try await server.get("/ogc/tiles/WorldCRS84Quad/0/0/0").status == 404)
            #expect(try await server.get("/ogc/tileMatrixSets/WorldCRS84Quad").status == 200)
        }
    }

    @Test func privateReadsGiveTheReadersGroupsAndSignedTemplates() async throws {
        var rng = SeededGenerator(seed: 37)
        let vans = [("van-1", "acme", 2.35), ("van-2", "globex", 2.3505)].map { id, group, lon in
            Route(id: .string(id), properties: [Property("group", .string(group))],
                  parts: [Sample.track(count: 20, lon: lon, lat: 48.85, step: 0.0002, using: &rng)])
        }
        let tile = WebMercator.tile(containing: vans[1].parts[0][3], zoom: 14)
        try await TestServer.with(.routes(vans, options: TestServer.options()), configure: { c in
            c.read = .token
            c.writeToken = Self.token
            c.credentials = try? CredentialVerifier(keys: CredentialKeys(hmacSecret: TestTokens.secret, writeToken: Self.token))
        }) { server in
            // The service's own description is open; what shows routes is not.
            for path in ["/ogc", "/ogc/conformance", "/ogc/tileMatrixSets", "/ogc/tileMatrixSets/WebMercatorQuad"] {
                #expect(try await server.get(path).status == 200, "\(path)")
            }
            for path in ["/ogc/collections", "/ogc/collections/routes/tiles/WebMercatorQuad",
                         "/ogc/collections/routes/tiles/WebMercatorQuad/14/\(tile.y)/\(tile.x)"] {
                let reply = try await server.get(path)
                #expect(reply.status == 401 && reply.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(path)")
            }
            let acme = try await TestTokens.hs256(read: ["acme"])
            let tileset = try await server.get("/ogc/collections/routes/tiles/WebMercatorQuad", headers: [("Authorization", "Bearer \(acme)")])
            #expect(tileset.status == 200 && tileset.header("Cache-Control") == "private, no-cache")
            let template = try #require(Self.links(try Self.object(tileset)).first { $0["rel"] as? String == "item" }?["href"] as? String)
            #expect(template.contains("?exp=") && template.contains("sig="), "\(template)")
            // The signed template reads acme's tile without a credential; globex's van is not in it.
            let signed = try await server.get(String(Self.fill(template, tile).dropFirst(server.base.count)), gzip: false)
            #expect(signed.status == 200 || signed.status == 204, "\(signed.status) \(signed.text)")
            if signed.status == 200 {
                let globex = ProjectedRouteSet.featureID(for: .string("van-2"), index: 1)
                let ids = try VectorTileDecoder.decode(signed.body).layers.flatMap { $0.features.compactMap(\.id) }
                #expect(!ids.contains(globex) && !ids.isEmpty)
            }
            // So does WorldCRS84Quad's signed template, for the tile of the same place.
            let crs84 = try await server.get("/ogc/collections/routes/tiles/WorldCRS84Quad", headers: [("Authorization", "Bearer \(acme)")])
            let crs84Template = try #require(Self.links(try Self.object(crs84)).first { $0["rel"] as? String == "item" }?["href"] as? String)
            let place = vans[1].parts[0][3], side = 180.0 / 8192
            let crs84Tile = TileID(z: 13, x: Int(((place.longitude + 180) / side).rounded(.down)), y: Int(((90 - place.latitude) / side).rounded(.down)))
            let crs84Signed = try await server.get(String(Self.fill(crs84Template, crs84Tile).dropFirst(server.base.count)), gzip: false)
            #expect(crs84Signed.status == 200, "\(crs84Signed.status) \(crs84Signed.text)")
            let crs84IDs = try VectorTileDecoder.decode(crs84Signed.body).layers.flatMap { $0.features.compactMap(\.id) }
            #expect(!crs84IDs.contains(ProjectedRouteSet.featureID(for: .string("van-2"), index: 1)) && !crs84IDs.isEmpty, "\(crs84IDs)")
            #expect(try await server.get(String(Self.fill(crs84Template, crs84Tile).dropFirst(server.base.count))
                .replacingOccurrences(of: "sig=", with: "sig=A")).status == 403)
            // The same tile with the signature changed: 403.
            let forged = Self.fill(template, tile).replacingOccurrences(of: "sig=", with: "sig=A")
            #expect(try await server.get(String(forged.dropFirst(server.base.count))).status == 403)
        }
    }
}
