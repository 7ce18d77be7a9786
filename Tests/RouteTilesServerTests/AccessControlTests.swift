import NIOHTTP1
import Foundation
import RouteTiles
import RouteTilesAccess
@testable import RouteTilesServer
import RouteTilesCoreTestSupport
import RouteTilesTestSupport
import Synchronization
import Testing

/// Private reads, scoped credentials and groups over HTTP: a real server on a loopback port, a real client, JWTs
/// signed with the server's HS256 secret.
@Suite struct AccessControlTests {
    static let writeToken = "the-write-token-0123"

    /// Three vans in three groups (acme, globex, and default, which has no property), each a line of 30 fixes.
    static func vans() -> [Route] {
        var rng = SeededGenerator(seed: 36)
        return [("veh-17", "acme"), ("veh-18", "globex"), ("veh-19", nil)].enumerated().map { i, van in
            var properties = [Property("name", .string(van.0))]
            if let group = van.1 { properties.append(Property("group", .string(group))) }
            return Route(id: .string(van.0), properties: properties,
                         parts: [Sample.track(count: 30, lon: 2.35 + Double(i) * 0.0005, lat: 48.85, step: 0.0004, using: &rng)])
        }
    }

    static func privateServer(_ c: inout ServerConfiguration) {
        c.read = .token
        c.writeToken = writeToken
        c.credentials = try? TestTokens.verifier(writeToken: writeToken)
    }

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    static var backend: TileBackend {
        var options = TestServer.options()
        options.positionLayer = "positions"
        return .routes(vans(), options: options)
    }

    /// The tiles every van touches at z14.
    static func tiles() -> [TileID] {
        var tiles = Set<TileID>()
        for van in vans() { for c in van.parts[0] { tiles.insert(WebMercator.tile(containing: c, zoom: 14)) } }
        return tiles.sorted()
    }

    @Test func privateReadsNeedACredentialWhileTheViewerAndProbesStayOpen() async throws {
        try await TestServer.with(Self.backend, configure: Self.privateServer) { server in
            let t = Self.tiles()[0]
            for path in ["/tiles/14/\(t.x)/\(t.y).mvt", "/routes", "/routes/veh-17", "/routes/veh-17/gpx", "/tiles.json",
                         "/style.json", "/events", "/metrics"] {
                let refused = try await server.get(path)
                #expect(refused.status == 401 && refused.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer") == true,
                        "\(path): \(refused.status) \(refused.text)")
            }
            for path in ["/", "/viewer.js", "/health", "/health/live", "/health/ready", "/openapi.json"] {
                #expect(try await server.get(path).status == 200, "\(path)")
            }
            // The health names no route or point count.
            let health = try await server.get("/health").json
            #expect(health["routes"] == nil && health["points"] == nil && health["generation"] == nil, "\(health)")

            let everything = try await TestTokens.hs256(read: ["*"], subject: "dispatcher")
            let full = try await TestTokens.hs256(read: ["*"], write: ["*"], subject: "operator")
            for credential in [Self.writeToken, everything, full] {
                #expect(try await server.get("/routes", headers: Self.bearer(credential)).status == 200)
                #expect(try await server.get("/tiles/14/\(t.x)/\(t.y).mvt", headers: Self.bearer(credential)).status == 200)
            }
            // /metrics: full access alone.
            #expect(try await server.get("/metrics", headers: Self.bearer(Self.writeToken)).status == 200)
            #expect(try await server.get("/metrics", headers: Self.bearer(full)).status == 200)
            #expect(try await server.get("/metrics", headers: Self.bearer(everything)).status == 403)
            // As a query parameter, for clients that cannot set headers.
            #expect(try await server.get("/routes?access_token=\(everything)").status == 200)
            // Expired beyond the skew, signed with another secret, or no JWT at all: 401, saying why.
            let expired = try await TestTokens.hs256(read: ["*"], expiresIn: -120)
            let expiredReply = try await server.get("/routes", headers: Self.bearer(expired))
            #expect(expiredReply.status == 401 && expiredReply.text.contains("expired"), "\(expiredReply.text)")
            let foreign = try await TestTokens.hs256(read: ["*"], secret: Array("another secret that is long enough, surely".utf8))
            #expect(try await server.get("/routes", headers: Self.bearer(foreign)).text.contains("signature"))
            #expect(try await server.get("/routes", headers: [("Authorization", "Basic eDp5")]).status == 401)
            // A credential that reads nothing, and a reader of some groups at /metrics: 403.
            let van = try await TestTokens.hs256(write: ["veh-17"])
            #expect(try await server.get("/routes", headers: Self.bearer(van)).status == 403)
            let acme = try await TestTokens.hs256(read: ["acme"])
            #expect(try await server.get("/metrics", headers: Self.bearer(acme)).status == 403)
            let failures = try await server.get("/metrics", headers: Self.bearer(Self.writeToken)).text
            #expect(Self.metric(failures, "routetiles_authentication_failures_total") >= 3, "\(failures)")
        }
    }

    static func metric(_ text: String, _ name: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(Double(line.split(separator: " ")[1]) ?? -1)
        }
        return 0
    }

    @Test func aReaderOfSomeGroupsNeverSeesAnotherGroupsRoutes() async throws {
        try await TestServer.with(Self.backend, configure: Self.privateServer) { server in
            let acme = Self.bearer(try await TestTokens.hs256(read: ["acme"]))
            let others = Self.bearer(try await TestTokens.hs256(read: ["globex", "default"]))
            let list = try await server.get("/routes", headers: acme).json
            #expect((list["routes"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["veh-17"], "\(list)")
            let otherList = try await server.get("/routes", headers: others).json
            #expect((otherList["routes"] as? [[String: Any]])?.compactMap { $0["id"] as? String }.sorted() == ["veh-18", "veh-19"])
            // No generation for a limited reader: it counts every group's changes. A reader of all gets it.
            #expect(list["generation"] == nil && otherList["generation"] == nil, "\(list)")
            let everything = Self.bearer(try await TestTokens.hs256(read: ["*"]))
            #expect(try await server.get("/routes", headers: everything).json["generation"] != nil)
            // Another group's route is answered as one that does not exist, to the byte.
            let hidden = try await server.get("/routes/veh-18", headers: acme)
            let missing = try await server.get("/routes/veh-99", headers: acme)
            #expect(hidden.status == 404 && hidden.text == missing.text.replacingOccurrences(of: "veh-99", with: "veh-18"))
            for path in ["/routes/veh-18/gpx", "/routes/veh-18/position?at=0"] {
                #expect(try await server.get(path, headers: acme).status == 404, "\(path)")
            }
            #expect(try await server.get("/routes/veh-17", headers: acme).status == 200)

            // Tiles: acme's reader gets features of veh-17 alone, lines and positions; the other reader never
            // veh-17's. Each set of tiles is cached apart: asked in turn, neither gets the other's.
            let fid17 = ProjectedRouteSet.featureID(for: .string("veh-17"), index: 0)
            var seen17 = 0, seenOthers = 0
            for _ in 0..<2 {
                for t in Self.tiles() {
                    let path = "/tiles/14/\(t.x)/\(t.y).mvt"
                    for (headers, mine) in [(acme, true), (others, false)] {
                        let reply = try await server.get(path, gzip: false, headers: headers)
                        #expect(reply.status == 200 || reply.status == 204)
                        guard reply.status == 200 else { continue }
                        for layer in try VectorTileDecoder.decode(reply.body).layers {
                            for feature in layer.features {
                                #expect((feature.id == fid17) == mine, "\(path) \(layer.name) \(feature.id ?? 0)")
                                if feature.id == fid17 { seen17 += 1 } else { seenOthers += 1 }
                            }
                        }
                    }
                }
            }
            #expect(seen17 > 0 && seenOthers > 0)
            // tiles.json: the bounds of acme's route alone.
            let tilejson = try await server.get("/tiles.json", headers: acme).json
            let bounds = try #require(tilejson["bounds"] as? [Double])
            let van17 = Self.vans()[0].parts[0]
            #expect(bounds[0] >= van17.map(\.longitude).min()! - 1e-6 && bounds[2] <= van17.map(\.longitude).max()! + 1e-6,
                    "\(bounds)")
        }
    }

    @Test func aCredentialWritesOnlyTheRoutesItNames() async throws {
        try await TestServer.with(Self.backend, configure: Self.privateServer) { server in
            let van = Self.bearer(try await TestTokens.hs256(write: ["veh-17"], subject: "van-17"))
            let fix = Array(#"[[2.3601, 48.8501]]"#.utf8)
            #expect(try await server.request(.POST, "/routes/veh-17/points", headers: van, body: fix).status == 200)
            for (method, path) in [(HTTPMethod.POST, "/routes/veh-18/points"), (.PUT, "/routes/veh-18"), (.DELETE, "/routes/veh-18"),
                                   (.POST, "/routes/veh-99/points")] {
                let refused = try await server.request(method, path, headers: van, body: method == .DELETE ? nil : fix)
                #expect(refused.status == 403 && refused.text.contains("may not write route"), "\(path) \(refused.text)")
            }
            // A batch: its own route applied, the other refused with 403, not looked at.
            let batch = Array(#"{"veh-17": [[2.3602, 48.8502]], "veh-18": [[2.3602, 48.8502]], "veh-99": [[2.3602, 48.8502]]}"#.utf8)
            let answer = try await server.request(.POST, "/routes/points", headers: van, body: batch)
            #expect(answer.status == 200, "\(answer.text)")
            let applied = (answer.json["applied"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            let refused = (answer.json["refused"] as? [[String: Any]])?.map { "\($0["id"] ?? "") \($0["status"] ?? "")" }
            #expect(applied == ["veh-17"] && refused?.sorted() == ["veh-18 403", "veh-99 403"], "\(answer.text)")
            // POST /routes: a route it names, yes; one without an id (numbered by the server), no.
            let named = Array(#"{"type":"Feature","id":"veh-17","properties":{},"geometry":{"type":"LineString","coordinates":[[2.35,48.85],[2.36,48.86]]}}"#.utf8)
            #expect(try await server.request(.POST, "/routes", headers: van + [("Content-Type", "application/geo+json")], body: named).status == 201)
            let unnamed = Array(#"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[2.35,48.85],[2.36,48.86]]}}"#.utf8)
            let noID = try await server.request(.POST, "/routes", headers: van + [("Content-Type", "application/geo+json")], body: unnamed)
            #expect(noID.status == 403 && noID.text.contains("no id"), "\(noID.text)")
            // /osmand with the credential as its token field.
            let vanToken = try await TestTokens.hs256(write: ["veh-17"])
            #expect(try await server.get("/osmand?id=veh-18&lat=48.85&lon=2.36&token=\(vanToken)").status == 403)
            // A reader may not write at all.
            let reader = Self.bearer(try await TestTokens.hs256(read: ["*"]))
            #expect(try await server.request(.POST, "/routes/veh-17/points", headers: reader, body: fix).status == 403)
            let metrics = try await server.get("/metrics", headers: Self.bearer(Self.writeToken)).text
            #expect(Self.metric(metrics, "routetiles_writes_forbidden_total") >= 8, "\(metrics)")
        }
    }

    @Test func aReaderOfSomeGroupsGetsTheEventsOfItsRoutesAlone() async throws {
        try await TestServer.with(Self.backend, configure: Self.privateServer) { server in
            let acmeToken = try await TestTokens.hs256(read: ["acme"])
            let stream = try await EventStreamReader(url: server.base + "/events?access_token=\(acmeToken)")
            #expect(stream.status == 200)
            let hello = try #require(try await stream.next())
            // No counter of every group's changes: no generation, no sequence, and an id that is no number.
            #expect(hello.name == "hello" && hello.json.isEmpty && hello.id == nil, "\(hello)")
            let helloID = try #require(hello.rawID)
            let full = Self.bearer(Self.writeToken)
            let fix = Array(#"[[2.3601, 48.8501]]"#.utf8)
            // Another group's change: nothing. Then acme's: its ids and tiles. Then both in one batch: acme's id,
            // no tile, and the world as a subtree.
            _ = try await server.request(.POST, "/routes/veh-18/points", headers: full, body: fix)
            _ = try await server.request(.POST, "/routes/veh-17/points", headers: full, body: fix)
            let own = try #require(try await stream.next())
            #expect(own.json["ids"] as? [String] == ["veh-17"] && (own.json["tiles"] as? [String])?.isEmpty == false, "\(own.data)")
            let both = Array(#"{"veh-17": [[2.3602, 48.8502]], "veh-18": [[2.3602, 48.8502]]}"#.utf8)
            _ = try await server.request(.POST, "/routes/points", headers: full, body: both)
            let mixed = try #require(try await stream.next())
            #expect(mixed.json["ids"] as? [String] == ["veh-17"] && (mixed.json["tiles"] as? [String]) == []
                && mixed.json["subtrees"] as? [String] == ["0/0/0"], "\(mixed.data)")
            // A deleted route's event reaches the readers of the group it had.
            _ = try await server.request(.DELETE, "/routes/veh-18", headers: full)
            _ = try await server.request(.DELETE, "/routes/veh-17", headers: full)
            let deleted = try #require(try await stream.next())
            #expect(deleted.json["ids"] as? [String] == ["veh-17"], "\(deleted.data)")
            stream.close()
            for event in [own, mixed, deleted] {
                #expect(event.json["generation"] == nil && event.json["sequence"] == nil && event.id == nil, "\(event)")
            }
            // Sealed ids differ even for one sequence, and say nothing of their order.
            let again = try await EventStreamReader(url: server.base + "/events?access_token=\(acmeToken)")
            let hello2 = try #require(try await again.next())
            again.close()
            #expect(Set([helloID, own.rawID, mixed.rawID, deleted.rawID, hello2.rawID]).count == 5)
            // Given back, a sealed id resumes: behind, a resync that names no id; current, a hello.
            let behind = try await EventStreamReader(url: server.base + "/events?access_token=\(acmeToken)",
                                                     lastEventText: helloID)
            let resync = try #require(try await behind.next())
            behind.close()
            #expect(resync.name == "resync" && resync.data == #"{"ids":null}"#, "\(resync)")
            let current = try await EventStreamReader(url: server.base + "/events?access_token=\(acmeToken)",
                                                      lastEventText: deleted.rawID)
            #expect(try await current.next()?.name == "hello")
            current.close()
            // A plain sequence, or an id sealed elsewhere, opens to nothing: resync.
            for text in ["3", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"] {
                let unknown = try await EventStreamReader(url: server.base + "/events?access_token=\(acmeToken)",
                                                          lastEventText: text)
                #expect(try await unknown.next()?.name == "resync", "\(text)")
                unknown.close()
            }
            // A reader of every group still gets the counters.
            let everything = try await TestTokens.hs256(read: ["*"])
            let all = try await EventStreamReader(url: server.base + "/events?access_token=\(everything)")
            let allHello = try #require(try await all.next())
            all.close()
            #expect(allHello.json["generation"] != nil && allHello.id != nil, "\(allHello)")
        }
    }

    @Test func theFastPathServesCachedTilesOnlyToCredentialsThatReadEverything() async throws {
        try await TestServer.with(Self.backend, configure: Self.privateServer) { server in
            let t = Self.tiles()[0]
            let path = "/tiles/14/\(t.x)/\(t.y).mvt"
            let everything = Self.bearer(try await TestTokens.hs256(read: ["*"]))
            // Cached by the first, answered before the HTTP decoder for the second.
            #expect(try await server.get(path, headers: everything).status == 200)
            #expect(try await server.get(path, headers: everything).status == 200)
            let fast = Self.metric(try await server.get("/metrics", headers: Self.bearer(Self.writeToken)).text, "routetiles_http_fast_answers_total")
            #expect(fast >= 1)
            // The same cached tile, without a credential, with a bad one, and for a limited reader: never the fast
            // path's answer.
            #expect(try await server.get(path).status == 401)
            #expect(try await server.get(path, headers: Self.bearer("nonsense")).status == 401)
            let acme = Self.bearer(try await TestTokens.hs256(read: ["globex"]))
            let limited = try await server.get(path, gzip: false, headers: acme)
            let ids = limited.status == 200 ? try VectorTileDecoder.decode(limited.body).layers.flatMap { $0.features.compactMap(\.id) } : []
            #expect(!ids.contains(ProjectedRouteSet.featureID(for: .string("veh-17"), index: 0)))
            let after = Self.metric(try await server.get("/metrics", headers: Self.bearer(Self.writeToken)).text, "routetiles_http_fast_answers_total")
            #expect(after == fast)
        }
    }

    /// The tile path and query of a signed tile URL from `tiles.json`, for tile `t`.
    static func signedPath(_ tilejson: [String: Any], _ t: TileID, base: String) throws -> String {
        let template = try #require((tilejson["tiles"] as? [String])?.first)
        return String(template.dropFirst(base.count)).replacingOccurrences(of: "{z}", with: String(t.z))
            .replacingOccurrences(of: "{x}", with: String(t.x)).replacingOccurrences(of: "{y}", with: String(t.y))
    }

    @Test func signedTileURLsReadTheirGroupsWithoutACredential() async throws {
        try await TestServer.with(Self.backend, configure: Self.privateServer) { server in
            let acme = Self.bearer(try await TestTokens.hs256(read: ["acme"], expiresIn: 7200))
            let tilejson = try await server.get("/tiles.json", headers: acme)
            #expect(tilejson.headers.first(name: "Cache-Control")?.contains("private") == true)
            let fid17 = ProjectedRouteSet.featureID(for: .string("veh-17"), index: 0)
            var signedPaths: [String] = []
            for t in Self.tiles() {
                let path = try Self.signedPath(tilejson.json, t, base: server.base)
                #expect(path.contains("exp=") && path.contains("g=acme") && path.contains("sig="), "\(path)")
                signedPaths.append(path)
                // No credential: the URL is the credential. Only acme's features, and a public Cache-Control.
                let reply = try await server.get(path, gzip: false)
                #expect(reply.status == 200 || reply.status == 204, "\(path) \(reply.text)")
                #expect(reply.headers.first(name: "Cache-Control")?.hasPrefix("public") == true)
                if reply.status == 200 {
                    let ids = try VectorTileDecoder.decode(reply.body).layers.flatMap { $0.features.compactMap(\.id) }
                    #expect(ids.allSatisfy { $0 == fid17 }, "\(path)")
                }
            }
            // Every URL of the hour is the same for every reader of the scope: the same exp and sig.
            let again = try await server.get("/tiles.json", headers: Self.bearer(try await TestTokens.hs256(read: ["acme"], expiresIn: 7200)))
            #expect(try Self.signedPath(again.json, Self.tiles()[0], base: server.base) == signedPaths[0])
            // A changed signature, another scope under the same signature, an expired URL: 403.
            let path = signedPaths[0]
            let tampered = path.replacingOccurrences(of: "sig=", with: "sig=A")
            #expect(try await server.get(tampered).status == 403)
            let widened = path.replacingOccurrences(of: "g=acme", with: "g=acme,globex")
            #expect(try await server.get(widened).status == 403)
            let dropped = path.replacingOccurrences(of: "&g=acme", with: "")
            #expect(try await server.get(dropped).status == 403)
            let verifier = try TestTokens.verifier(writeToken: Self.writeToken)
            let stale = verifier.urlSigner.query(scope: .only(["acme"]), exp: verifier.currentTime - 10)
            let t = Self.tiles()[0]
            let expired = try await server.get("/tiles/14/\(t.x)/\(t.y).mvt?" + stale)
            #expect(expired.status == 403 && expired.text.contains("expired"), "\(expired.text)")
            // A URL signed by another server's secret.
            let foreign = TileURLSigner(secret: Array("some other server's secret, long enough to sign".utf8))
            let exp = verifier.currentTime + 3600
            #expect(try await server.get("/tiles/14/\(t.x)/\(t.y).mvt?" + foreign.query(scope: .only(["acme"]), exp: exp)).status == 403)
            // A URL of a credential that expires sooner expires with it.
            let short = try await TestTokens.hs256(read: ["acme"], expiresIn: 600)
            let shortPath = try Self.signedPath(try await server.get("/tiles.json", headers: Self.bearer(short)).json, t, base: server.base)
            let shortExp = try #require(shortPath.split(separator: "exp=").last?.prefix { $0.isNumber }).description
            #expect(try #require(Int64(shortExp)) <= verifier.currentTime + 601)
            // style.json names the signed tiles itself.
            let style = try await server.get("/style.json", headers: acme).json
            let source = (style["sources"] as? [String: Any])?["routes"] as? [String: Any]
            #expect((source?["tiles"] as? [String])?.first?.contains("sig=") == true, "\(style)")
            // Tiles read with a bearer credential are private.
            let direct = try await server.get("/tiles/14/\(t.x)/\(t.y).mvt", headers: acme)
            #expect(direct.headers.first(name: "Cache-Control")?.hasPrefix("private") == true)
        }
    }

    @Test func signedURLsOfEveryGroupAreAnsweredByTheFastPath() async throws {
        try await TestServer.with(Self.backend, configure: Self.privateServer) { server in
            let tilejson = try await server.get("/tiles.json", headers: Self.bearer(Self.writeToken)).json
            let t = Self.tiles()[0]
            let path = try Self.signedPath(tilejson, t, base: server.base)
            #expect(!path.contains("&g="))
            #expect(try await server.get(path).status == 200)
            let before = Self.metric(try await server.get("/metrics", headers: Self.bearer(Self.writeToken)).text,
                                     "routetiles_http_fast_answers_total")
            let cached = try await server.get(path)
            #expect(cached.status == 200 && cached.headers.first(name: "Cache-Control")?.hasPrefix("public") == true)
            let after = Self.metric(try await server.get("/metrics", headers: Self.bearer(Self.writeToken)).text,
                                    "routetiles_http_fast_answers_total")
            #expect(after == before + 1)
            // The fast path checks the signature too.
            #expect(try await server.get(path.replacingOccurrences(of: "sig=", with: "sig=x")).status == 403)
        }
    }

    @Test func abuseIsLimitedAndEveryWriteIsAudited() async throws {
        let folder = try TemporaryFolder()
        let auditPath = folder.path("audit.jsonl")
        let limitedCount = Mutex(0)
        try await TestServer.with(Self.backend, configure: { c in
            Self.privateServer(&c)
            c.rateLimits.writesPerCredential = 5
            c.rateLimits.authenticationFailuresPerAddress = 4
            c.auditLogPath = auditPath
        }) { server in
            let van = Self.bearer(try await TestTokens.hs256(write: ["veh-17"], subject: "van-17"))
            let fix = Array(#"[[2.3601, 48.8501]]"#.utf8)
            // Five a minute: the first five pass, and of the next seven most are refused (a write's worth comes back
            // every 12 s, which a slow, loaded run may reach once or twice).
            var statuses: [Int] = []
            for _ in 0..<12 {
                let reply = try await server.request(.POST, "/routes/veh-17/points", headers: van, body: fix)
                statuses.append(reply.status)
                if reply.status == 429 {
                    #expect(Int(reply.headers.first(name: "Retry-After") ?? "") ?? 0 >= 1, "\(reply.headers)")
                }
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == 200 } && statuses.filter { $0 == 429 }.count >= 3, "\(statuses)")
            #expect(Set(statuses).isSubset(of: [200, 429]))
            limitedCount.withLock { $0 = statuses.filter { $0 == 429 }.count }
            // Another credential is not held back by the van's limit; the write token is never limited.
            let other = Self.bearer(try await TestTokens.hs256(write: ["veh-18"], subject: "van-18"))
            #expect(try await server.request(.POST, "/routes/veh-18/points", headers: other, body: fix).status == 200)
            for _ in 0..<8 {
                #expect(try await server.request(.POST, "/routes/veh-19/points", headers: Self.bearer(Self.writeToken), body: fix).status == 200)
            }
            // A batch: a line per route it names.
            let batch = Array(#"{"veh-19": [[2.3602, 48.8502]], "veh-18": [[2.3602, 48.8502]]}"#.utf8)
            #expect(try await server.request(.POST, "/routes/points", headers: Self.bearer(Self.writeToken), body: batch).status == 200)
            // Four failed authentications from this address, then every request with a credential waits: even a
            // good one, and reads too.
            for _ in 0..<4 { #expect(try await server.get("/routes", headers: Self.bearer("bad.to.ken")).status == 401) }
            let blocked = try await server.get("/routes", headers: Self.bearer(Self.writeToken))
            #expect(blocked.status == 429 && blocked.headers.first(name: "Retry-After") != nil, "\(blocked.text)")
            let metrics = try await server.request(.GET, "/metrics?access_token=\(try await TestTokens.hs256(read: ["*"]))")
            #expect(metrics.status == 429)
        }
        // The audit log: one line per write, with who, from where, what, and how it ended.
        let lines = try String(contentsOfFile: auditPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 23, "twelve of van-17, one of van-18, eight and two of the write token: \(lines.count)")
        let batchLines = try lines.suffix(2).map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let batchRoutes: [String?] = batchLines.map { $0["route"] as? String }
        let batchPaths: [String?] = batchLines.map { $0["path"] as? String }
        #expect(batchRoutes == ["veh-19", "veh-18"])
        #expect(batchPaths == ["/routes/points", "/routes/points"])
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["sub"] as? String == "van-17" && first["remote"] as? String == "127.0.0.1"
            && first["action"] as? String == "append" && first["route"] as? String == "veh-17"
            && first["method"] as? String == "POST" && first["path"] as? String == "/routes/veh-17/points"
            && first["status"] as? Int == 200 && first["time"] is String, "\(first)")
        let statuses = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["status"] as? Int }
        #expect(statuses.filter { $0 == 429 }.count == limitedCount.withLock { $0 })
        let subjects = Set(try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["sub"] as? String })
        #expect(subjects == ["van-17", "van-18", "write-token"], "\(subjects)")
    }

    /// Behind a trusted proxy (`--trusted-proxy`), per-address limits and the audit log take the client from
    /// `X-Forwarded-For`; from a peer that is not trusted, the header changes nothing.
    @Test func behindATrustedProxyLimitsAndTheAuditLogSeeTheClient() async throws {
        let folder = try TemporaryFolder()
        let auditPath = folder.path("audit.jsonl")
        let fix = Array(#"[[2.3601, 48.8501]]"#.utf8)
        try await TestServer.with(Self.backend, configure: { c in
            Self.privateServer(&c)
            c.rateLimits.authenticationFailuresPerAddress = 2
            c.auditLogPath = auditPath
            c.trustedProxies = try! TrustedProxies(["127.0.0.0/8"])
        }) { server in
            func from(_ client: String, _ credential: String) -> [(String, String)] {
                Self.bearer(credential) + [("X-Forwarded-For", "6.6.6.6, \(client)")]
            }
            for _ in 0..<2 { #expect(try await server.get("/routes", headers: from("198.51.100.7", "bad.to.ken")).status == 401) }
            // That client is held back; another behind the same proxy is not.
            #expect(try await server.get("/routes", headers: from("198.51.100.7", Self.writeToken)).status == 429)
            #expect(try await server.get("/routes", headers: from("198.51.100.8", Self.writeToken)).status == 200)
            let write = try await server.request(.POST, "/routes/veh-17/points", headers: from("198.51.100.8", Self.writeToken), body: fix)
            #expect(write.status == 200)
        }
        let line = try #require(try String(contentsOfFile: auditPath, encoding: .utf8).split(separator: "\n").first)
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(entry["remote"] as? String == "198.51.100.8", "\(entry)")

        // No proxy trusted: the header is the client's own word, and the peer is what counts.
        try await TestServer.with(Self.backend, configure: { c in
            Self.privateServer(&c)
            c.rateLimits.authenticationFailuresPerAddress = 2
        }) { server in
            for client in ["198.51.100.1", "198.51.100.2"] {
                let failed = try await server.get("/routes", headers: Self.bearer("bad.to.ken") + [("X-Forwarded-For", client)])
                #expect(failed.status == 401)
            }
            let held = try await server.get("/routes", headers: Self.bearer(Self.writeToken) + [("X-Forwarded-For", "198.51.100.3")])
            #expect(held.status == 429)
        }
    }
}
