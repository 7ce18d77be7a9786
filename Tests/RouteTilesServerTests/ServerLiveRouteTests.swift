import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
@testable import RouteTilesLive
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Live routes over HTTP: authorisation, limits, errors, and exact cache invalidation.
@Suite struct ServerLiveRouteTests {
    static let token = "test-token-123"
    let auth = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/geo+json")]

    func feature(id: String? = nil, _ line: [Coordinate], name: String = "new") -> [UInt8] {
        let coordinates = line.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",")
        let idText = id.map { "\"id\":\"\($0)\"," } ?? ""
        return Array(#"{"type":"Feature",\#(idText)"properties":{"name":"\#(name)"},"geometry":{"type":"LineString","coordinates":[\#(coordinates)]}}"#.utf8)
    }

    func line(from lon: Double, _ lat: Double, count: Int = 50, seed: UInt64 = 9) -> [Coordinate] {
        var rng = SeededGenerator(seed: seed)
        return Sample.track(count: count, lon: lon, lat: lat, step: 0.0004, using: &rng)
    }

    func configure(_ c: inout ServerConfiguration) {
        c.writeToken = Self.token
        c.maxBodyBytes = 100_000
    }

    /// A client that sends `Expect: 100-continue` and waits for the interim answer before its body (curl does for
    /// bodies over 1 MB) gets `100 Continue` at once, then the final answer.
    @Test func expectContinueIsAnsweredBeforeTheBody() async throws {
        let routes = TileBackend.routes(Sample.parisRoutes(count: 1, points: 50), options: TestServer.options())
        try await TestServer.with(routes, configure: { $0.writeToken = Self.token }) { server in
            let port = try #require(Int(server.base.split(separator: ":").last ?? ""))
            let body = feature(id: "expect", line(from: 2.35, 48.85, count: 40))
            let head = "POST /routes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.token)\r\n"
                + "Content-Type: application/geo+json\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n"
                + "Connection: close\r\n\r\n"
            let outcome = try await RawHTTPExchange.run(port: port, head: head, body: body, waitFor: "HTTP/1.1 100 Continue\r\n\r\n")
            #expect(outcome.beforeBody.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(outcome.beforeBody)")
            #expect(outcome.all.contains("HTTP/1.1 201 Created"), "\(outcome.all)")
            #expect(try await server.get("/routes/expect").status == 200)
        }
    }

    @Test func writesNeedTheTokenAndAWellFormedBodyWithinTheLimit() async throws {
        let body = feature(line(from: 2.35, 48.86))
        // Writes off without --write-token.
        try await TestServer.with(.routes([], options: TestServer.options())) { server in
            let refused = try await server.request(.POST, "/routes", headers: auth, body: body)
            #expect(refused.status == 403)
        }
        try await TestServer.with(.routes([], options: TestServer.options()), configure: configure) { server in
            let none = try await server.request(.POST, "/routes", body: body)
            #expect(none.status == 401 && none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            // A credential that does not verify is a 401 that says so (RFC 6750's invalid_token).
            let wrong = try await server.request(.POST, "/routes", headers: [("Authorization", "Bearer wrong-token")], body: body)
            #expect(wrong.status == 401 && wrong.text.contains("not the write token"), "\(wrong.text)")
            #expect(try await server.request(.POST, "/routes", headers: [("Authorization", "Basic eDp5")], body: body).status == 401)

            let big = [UInt8](repeating: 0x20, count: 100_001)
            #expect(try await server.request(.POST, "/routes", headers: auth, body: big).status == 413)

            let broken = Array("{\"type\":\"Feature\",\n\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[3,]]}}".utf8)
            let bad = try await server.request(.POST, "/routes", headers: auth, body: broken)
            #expect(bad.status == 400)
            let message = try #require(bad.json["error"] as? String)
            #expect(message.contains("request body:2:"), "\(message)")

            let outOfRange = feature([Coordinate(longitude: 2, latitude: 95), Coordinate(longitude: 2, latitude: 48)])
            #expect(try await server.request(.POST, "/routes", headers: auth, body: outOfRange).status == 400)

            let created = try await server.request(.POST, "/routes", headers: auth, body: body)
            #expect(created.status == 201)
            #expect((created.json["ids"] as? [String])?.count == 1)
            #expect(try await server.request(.PUT, "/routes/x/points", headers: auth, body: body).status == 405)
            // An empty id could never be addressed as /routes/{id}.
            let emptyID = try await server.request(.POST, "/routes", headers: auth, body: feature(id: "", line(from: 2.35, 48.86)))
            #expect(emptyID.status == 400 && (emptyID.json["error"] as? String)?.contains("empty id") == true, "\(emptyID.text)")
            #expect(try await server.request(.DELETE, "/routes/missing", headers: auth).status == 404)
            #expect(try await server.request(.GET, "/routes/missing").status == 404)
        }
    }

    /// `POST /routes/points`: many routes' fixes in one request, each route all or nothing, with what was applied
    /// and what was refused per id; malformed bodies, duplicate ids, empty objects and bodies over the limit are
    /// refused whole.
    @Test func manyRoutesAreExtendedInOneRequest() async throws {
        let start = [Coordinate(longitude: 2.35, latitude: 48.85), Coordinate(longitude: 2.351, latitude: 48.851)]
        let routes = ["veh-1", "veh-2", "veh-3"].map { Route(id: .string($0), parts: [start]) }
            + [Route(id: .string("stop"), parts: [[start[0]]], kind: .point),
               Route(id: .string("points"), parts: [start])]
        let backend = TileBackend.routes(routes, options: TestServer.options())
        try await TestServer.with(backend, configure: configure) { server in
            let body = Array(#"{"veh-1": [[2.352, 48.852], [2.353, 48.853]], "veh-2": [[2.36, 48.86]], "ghost": [[2.1, 48.1]], "veh-3": [[2.36, 95.0]], "stop": [[2.3, 48.8]], "points": [[2.37, 48.87]]}"#.utf8)
            let reply = try await server.request(.POST, "/routes/points", headers: auth, body: body)
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            let applied = try #require(reply.json["applied"] as? [[String: Any]])
            #expect(applied.compactMap { $0["id"] as? String } == ["veh-1", "veh-2", "points"])
            #expect(applied.compactMap { $0["points"] as? Int } == [2, 1, 1])
            let refused = try #require(reply.json["refused"] as? [[String: Any]])
            var why: [String: (status: Int, error: String)] = [:]
            for entry in refused {
                if let id = entry["id"] as? String { why[id] = (entry["status"] as? Int ?? 0, entry["error"] as? String ?? "") }
            }
            #expect(why["ghost"]?.status == 404)
            let badPosition = why["veh-3"]
            #expect(badPosition?.status == 400 && badPosition?.error.contains("latitude 95") == true, "\(why)")
            #expect(why["stop"]?.status == 409)
            #expect(why.count == 3)
            #expect(reply.json["sequence"] is Int)
            let invalidated = reply.json["invalidated_tiles"] as? Int ?? 0
            #expect(invalidated > 0)

            // Each route holds exactly what was applied to it.
            @Sendable func positions(_ key: String) async throws -> Int {
                let feature = try await server.get("/routes/\(key)")
                let geometry = feature.json["geometry"] as? [String: Any]
                return (geometry?["coordinates"] as? [Any])?.count ?? -1
            }
            #expect(try await positions("veh-1") == 4)
            #expect(try await positions("veh-2") == 3)
            #expect(try await positions("veh-3") == 2)
            #expect(try await positions("points") == 3)

            // Nothing applied: 422, with the reasons.
            let none = try await server.request(.POST, "/routes/points", headers: auth, body: Array(#"{"ghost": [[2, 48]]}"#.utf8))
            #expect(none.status == 422)
            let noneRefused = none.json["refused"] as? [[String: Any]]
            #expect(noneRefused?.first?["status"] as? Int == 404)

            // Refused whole: nothing changes.
            let wholeRefusals: [(String, String)] = [
                (#"{}"#, "names no route"),
                (#"[[2.3, 48.8]]"#, "expected an object"),
                (#"{"veh-1": [[2.4, 48.9]], "veh-1": [[2.5, 48.9]]}"#, "given twice"),
                (#"{"veh-1": [[2.4, 48.9]], "veh-2": }"#, "request body:1:"),
                // The document's propertyNames minLength 1: an empty id refuses the request, not just itself.
                (#"{"veh-1": [[2.4, 48.9]], "": ""}"#, "request body:1:29: a route id is empty"),
            ]
            for (text, words) in wholeRefusals {
                let refusedWhole = try await server.request(.POST, "/routes/points", headers: auth, body: Array(text.utf8))
                #expect(refusedWhole.status == 400, "\(text)")
                let message = refusedWhole.json["error"] as? String ?? ""
                #expect(message.contains(words), "\(text): \(message)")
            }
            #expect(try await positions("veh-1") == 4)
            let many = Array(repeating: "[2.35, 48.85]", count: 10_000).joined(separator: ",")
            let big = Array(("{\"veh-1\": [" + many + "]}").utf8)
            #expect(try await server.request(.POST, "/routes/points", headers: auth, body: big).status == 413)
            #expect(try await server.request(.POST, "/routes/points", body: body).status == 401)
            // The other methods of the path address the route called "points".
            #expect(try await server.request(.GET, "/routes/points").status == 200)
            #expect(try await positions("veh-1") == 4)
        }
    }

    /// The position layer over HTTP: listed in tiles.json with its fields, drawn by style.json (a dot, and an arrow
    /// turned to the bearing), and moved by an append, in the tile of the new position.
    @Test func thePositionLayerIsDescribedStyledAndMoved() async throws {
        var options = TestServer.options()
        options.positionLayer = "positions"
        let track = line(from: 2.35, 48.85, count: 30)
        let backend = TileBackend.routes([Route(id: .string("van"), parts: [track])], options: options)
        try await TestServer.with(backend, configure: configure) { server in
            let tilejson = try await server.get("/tiles.json").json
            let layers = tilejson["vector_layers"] as? [[String: Any]] ?? []
            let positions = layers.first { $0["id"] as? String == "positions" }
            #expect(positions?["fields"] as? [String: String] == ["bearing": "Number", "fix_time": "Number", "speed": "Number"], "\(layers)")
            let style = try await server.get("/style.json").json
            let ids = (style["layers"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(ids.contains("positions-dot") && ids.contains("positions-heading"), "\(ids)")

            func features(at c: Coordinate) async throws -> [DecodedFeature] {
                let t = WebMercator.tile(containing: c, zoom: 14)
                let reply = try await server.get("/tiles/14/\(t.x)/\(t.y).mvt", gzip: false)
                guard reply.status == 200 else { return [] }
                return try VectorTileDecoder.decode(reply.body).layer(named: "positions")?.features ?? []
            }
            let id = ProjectedRouteSet.featureID(for: .string("van"), index: 0)
            #expect(try await features(at: track[29]).map(\.id) == [id])
            let fix = Coordinate(longitude: 2.42, latitude: 48.88)
            let reply = try await server.request(.POST, "/routes/van/points", headers: auth, body: Array("[[2.42, 48.88]]".utf8))
            #expect(reply.status == 200)
            let moved = try await features(at: fix)
            #expect(moved.map(\.id) == [id])
            #expect(moved.first?.properties.map(\.key) == ["bearing", "fix_time"])
            #expect(try await features(at: track[29]).isEmpty)
        }
    }

    /// Every tile of `tiles` as the server sends it, uncompressed (nil for 204).
    func fetch(_ server: TestServer.Handle, _ tiles: [TileID]) async throws -> [TileID: [UInt8]] {
        var out: [TileID: [UInt8]] = [:]
        for t in tiles {
            let reply = try await server.get("/tiles/\(t.z)/\(t.x)/\(t.y).mvt", gzip: false)
            #expect(reply.status == 200 || reply.status == 204)
            if reply.status == 200 { out[t] = reply.body }
        }
        return out
    }

    @Test func changesInvalidateExactlyTheTilesWhoseContentChanges() async throws {
        let options = TestServer.options(maxZoom: 12)
        let base = Sample.parisRoutes(count: 4, points: 300)
        let folder = try TemporaryFolder()
        let expirePath = folder.path("expire.log")
        try await TestServer.with(.routes(base, options: options), configure: {
            configure(&$0)
            $0.expireLogPath = expirePath
        }) { server in
            // Every geometry the test will give the new route, decided up front, so that the watched tiles cover
            // every state: all tiles of every route at every zoom, before and after each change.
            let newLine = line(from: 2.36, 48.855, count: 80, seed: 21)
            let moved = line(from: 2.37, 48.86, count: 60, seed: 22)
            let extra = line(from: moved[moved.count - 1].longitude, moved[moved.count - 1].latitude, count: 10, seed: 23)
            let added = Route(id: .string("bus-7"), properties: [Property("name", .string("new"))], parts: [newLine])
            var watched = Set<TileID>()
            for route in base { watched.formUnion(RouteCover.tiles(of: route, options: options)) }
            for geometry in [newLine, moved, moved + extra] {
                var r = added
                r.parts = [geometry]
                watched.formUnion(RouteCover.tiles(of: r, options: options))
            }
            let tiles = watched.sorted()
            let before = try await fetch(server, tiles)

            // Each kind of change, then every watched tile is compared with a fresh engine over the same routes:
            // a tile left stale in the cache would differ; a tile that changed must be among the invalidated.
            var expected = base
            /// `old` and `new` are the changed route before and after the change (nil: absent).
            func check(_ reply: TestServer.Reply, previous: [TileID: [UInt8]], old: Route?, new: Route?) async throws -> [TileID: [UInt8]] {
                #expect(reply.status == 200 || reply.status == 201, "\(reply.text)")
                let after = try await fetch(server, tiles)
                let truth = RouteTiler(routes: expected, options: options)
                var changed = Set<TileID>()
                for t in tiles {
                    #expect(try after[t] == truth.tile(z: t.z, x: t.x, y: t.y), "tile \(t) is stale")
                    if after[t] != previous[t] { changed.insert(t) }
                }
                let count = try #require(reply.json["invalidated_tiles"] as? Int)
                let logged = try String(contentsOfFile: expirePath, encoding: .utf8).split(separator: "\n").suffix(count)
                let invalidated = Set(logged.compactMap { TileID(path: String($0)) })
                #expect(invalidated.count == count)
                #expect(changed.isSubset(of: invalidated), "changed but not invalidated: \(changed.subtracting(invalidated))")
                // No others: exactly the tiles the route is drawn in before or after the change, and each of them
                // did change (its geometry, or its length_m).
                var covers = Set<TileID>()
                for route in [old, new].compactMap({ $0 }) { covers.formUnion(RouteCover.tiles(of: route, options: options)) }
                #expect(invalidated == covers, "over: \(invalidated.subtracting(covers).count), under: \(covers.subtracting(invalidated).count)")
                #expect(changed == invalidated, "invalidated but unchanged: \(invalidated.subtracting(changed).sorted { $0.z < $1.z }.prefix(5))")
                return after
            }

            var state = before
            // POST a new route.
            expected.append(added)
            state = try await check(try await server.request(.POST, "/routes", headers: auth,
                                                             body: feature(id: "bus-7", newLine)), previous: state,
                                    old: nil, new: expected[expected.count - 1])
            // PUT: move it.
            let unmoved = expected[expected.count - 1]
            expected[expected.count - 1].parts = [moved]
            state = try await check(try await server.request(.PUT, "/routes/bus-7", headers: auth,
                                                             body: feature(moved)), previous: state,
                                    old: unmoved, new: expected[expected.count - 1])
            // Append points to an existing route.
            let short = expected[expected.count - 1]
            expected[expected.count - 1].parts[0] += extra
            let points = "[" + extra.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",") + "]"
            state = try await check(try await server.request(.POST, "/routes/bus-7/points", headers: auth,
                                                             body: Array(points.utf8)), previous: state,
                                    old: short, new: expected[expected.count - 1])
            let stored = try await server.get("/routes/bus-7").json
            #expect(((stored["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])?.count == 70)
            // DELETE one of the original routes.
            let removed = expected.remove(at: 1)
            state = try await check(try await server.request(.DELETE, "/routes/101", headers: auth), previous: state,
                                    old: removed, new: nil)
            _ = state
        }
    }
}

extension TileID {
    /// Parses "z/x/y".
    init?(path: String) {
        let parts = path.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        self.init(z: parts[0], x: parts[1], y: parts[2])
    }
}
