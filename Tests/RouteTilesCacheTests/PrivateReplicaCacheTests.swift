import Foundation
import NIOHTTP1
import RouteTiles
@testable import RouteTilesPostgres
@testable import RouteTilesServer
import Testing
@testable import RouteTilesLive
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Two groups' vehicles on two private replicas over one PostgreSQL store, replica A behind Varnish (the shipped VCL)
/// with its purger. A seeded run of writes through either replica and through psql (appends, batches, creations,
/// deletions, routes moved between groups through the API and by SQL) and of bans sent to Varnish; after each step
/// a reader of group `acme` reads every tile of the area through Varnish (with its bearer token, and through signed
/// tile URLs that Varnish caches) and from replica B, both at once (each tile read first by a reader of `bolt` and
/// one of everything, so that every cache holds all three cuts) and once the step has reached the replicas:
/// - no tile ever holds a feature of a route that was never acme's, or whose `group` is not acme;
/// - once a step has reached a replica, the bearer reads hold exactly acme's routes of that moment;
/// - its event stream names acme's routes alone, and its route list is acme's routes exactly;
/// - at the end, past the signed tiles' max-age, signed reads through Varnish hold acme's routes exactly.
@Suite(.enabled(if: ExternalTool.required(PostgresCluster.installed && VarnishCache.installed),
                "needs PostgreSQL with PostGIS and varnishd"),
       .serialized, .heavy(limit: .seconds(300)))
struct PrivateReplicaCacheTests {
    static let options: TilingOptions = {
        var o = Sample.options(minZoom: 11, maxZoom: 14)
        o.positionLayer = "positions"
        return o
    }()
    /// The area every position of the run falls in.
    static let west = 2.340, east = 2.370, south = 48.850, north = 48.865
    static let full = [("Authorization", "Bearer \(CacheFront.token)"), ("Content-Type", "application/json")]

    /// What the run has made: each route's group and number of positions.
    struct Model {
        var routes: [String: (group: String, count: Int)] = [:]
        /// Every route that was acme's at some time: the only ones an acme reader may ever have been shown.
        var everAcme: Set<String> = []
        var acme: Set<String> { Set(routes.filter { $0.value.group == "acme" }.keys) }
        mutating func set(_ id: String, group: String, count: Int) {
            routes[id] = (group, count)
            if group == "acme" { everAcme.insert(id) }
        }
    }

    static func positions(_ count: Int, using rng: inout SeededGenerator) -> [(Double, Double)] {
        (0..<count).map { _ in (Double.random(in: west...east, using: &rng), Double.random(in: south...north, using: &rng)) }
    }

    static func coordinates(_ points: [(Double, Double)]) -> String {
        "[" + points.map { "[\(($0.0 * 1e6).rounded() / 1e6),\(($0.1 * 1e6).rounded() / 1e6)]" }.joined(separator: ",") + "]"
    }

    static func feature(_ id: String, group: String, _ points: [(Double, Double)]) -> [UInt8] {
        Array(#"{"type":"Feature","id":"\#(id)","properties":{"group":"\#(group)"},"geometry":{"type":"LineString","coordinates":\#(coordinates(points))}}"#.utf8)
    }

    /// The tiles of the area, z12–z14.
    static let cover: [TileID] = {
        var tiles: [TileID] = []
        for z in 12...14 {
            let nw = WebMercator.tile(containing: Coordinate(longitude: west, latitude: north), zoom: z)
            let se = WebMercator.tile(containing: Coordinate(longitude: east, latitude: south), zoom: z)
            for x in nw.x...se.x { for y in nw.y...se.y { tiles.append(TileID(z: z, x: x, y: y)) } }
        }
        return tiles
    }()

    /// The routes of a tile's answer (by feature id); records what breaks the rules.
    static func routes(in reply: TestServer.Reply, names: [UInt64: String], model: Model, what: String) throws -> Set<String> {
        guard reply.status == 200 else {
            #expect(reply.status == 204, "\(what): \(reply.status) \(reply.text)")
            return []
        }
        let bytes = reply.body.starts(with: [0x1f, 0x8b]) ? try Gzip.decompress(reply.body) : reply.body
        var found = Set<String>()
        for layer in try VectorTileDecoder.decode(bytes).layers {
            for feature in layer.features {
                // A position has its route's feature id, and no properties of the route.
                let name = feature.id.flatMap { names[$0] } ?? "feature \(String(describing: feature.id))"
                #expect(model.everAcme.contains(name), "\(what): \(name), never acme's, in layer \(layer.name)")
                guard layer.name == "routes" else { continue }
                let group = feature.properties.first { $0.key == "group" }?.value
                #expect(group.map { TileTestSupport.sameValue($0, .string("acme")) } == true,
                        "\(what): \(name) of group \(String(describing: group))")
                found.insert(name)
            }
        }
        return found
    }

    @Test func aReaderOfOneGroupNeverSeesTheOtherThroughReplicasAndTheCache() async throws {
        let cluster = try await PostgresCluster.sharedCluster()
        let url = try await cluster.newDatabase()
        let database = PostgresCluster.database(of: url)
        let storeA = try await PostgresRouteStore.open(url: url, create: true, timeout: .seconds(60))
        let storeB = try await PostgresRouteStore.open(url: url, create: true, timeout: .seconds(60))
        var rng = SeededGenerator(seed: 36)
        var model = Model()
        var initial: [Route] = []
        for (id, group) in [("a1", "acme"), ("a2", "acme"), ("b1", "bolt"), ("b2", "bolt"), ("b3", "bolt")] {
            let points = Self.positions(6, using: &rng)
            initial.append(Route(id: .string(id), properties: [Property("group", .string(group))],
                                 parts: [points.map { Coordinate(longitude: $0.0, latitude: $0.1) }]))
            model.set(id, group: group, count: points.count)
        }
        _ = try await RouteStoreImport.load(initial, into: storeA)
        let (syncA, _) = try await LiveRouteSync.open(store: storeA, options: Self.options)
        let (syncB, _) = try await LiveRouteSync.open(store: storeB, options: Self.options)
        let acmeToken = try await TestTokens.hs256(read: ["acme"], subject: "dispatcher-acme")
        let acme = [("Authorization", "Bearer \(acmeToken)")]
        let configure: @Sendable (inout ServerConfiguration) -> Void = { c in
            c.read = .token
            c.writeToken = CacheFront.token
            c.credentials = try? TestTokens.verifier(writeToken: CacheFront.token)
            // Signed tiles live two seconds in Varnish, so that the end of the run waits little for them.
            c.cacheControl = "public, max-age=2"
        }
        let (made, generator) = (model, rng)
        try await CacheFront.with(sync: syncA, configure: configure) { front in
            try await TestServer.with(.live(syncB), configure: configure) { replicaB in
                var (model, rng) = (made, generator)
                let events = try await EventStreamReader(url: front.origin.base + "/events?access_token=\(acmeToken)")
                defer { events.close() }
                #expect(try await events.next()?.name == "hello")
                let tileJSON = try await front.origin.get("/tiles.json", headers: acme).json
                let template = try #require((tileJSON["tiles"] as? [String])?.first)
                let signedQuery = String(try #require(template.split(separator: "?").last))
                let bolt = [("Authorization", "Bearer \(try await TestTokens.hs256(read: ["bolt"]))")]
                let boltTemplate = try #require((try await front.origin.get("/tiles.json", headers: bolt).json["tiles"] as? [String])?.first)
                let boltQuery = String(try #require(boltTemplate.split(separator: "?").last))
                #expect(boltQuery != signedQuery)
                var names: [UInt64: String] = [:]
                func name(_ id: String) { names[ProjectedRouteSet.featureID(for: .string(id), index: 0)] = id }
                model.routes.keys.forEach(name)
                var signedHits = 0, created = 0
                var kinds = Set<String>()

                /// Reads every tile of the area as the acme reader: through Varnish with the token and signed, and
                /// from replica B; the routes each way found. With `others`, bolt's reader and a reader of
                /// everything read each tile first, so that the caches hold their cuts of it beside acme's.
                func readAll(_ step: String, others: Bool = false) async throws -> [String: Set<String>] {
                    var seen: [String: Set<String>] = ["bearer": [], "signed": [], "replica B": []]
                    for tile in Self.cover {
                        let path = CacheFront.path(tile)
                        if others {
                            _ = try await front.cache.request(.GET, path, headers: bolt)
                            _ = try await front.cache.request(.GET, path + "?" + boltQuery)
                            _ = try await front.cache.request(.GET, path, headers: Self.full)
                            _ = try await replicaB.request(.GET, path, headers: bolt)
                        }
                        let bearer = try await front.cache.request(.GET, path, headers: acme)
                        seen["bearer"]?.formUnion(try Self.routes(in: bearer, names: names, model: model, what: "\(step), \(tile) bearer"))
                        let signed = try await front.cache.request(.GET, path + "?" + signedQuery)
                        if CacheFront.isHit(signed) { signedHits += 1 }
                        seen["signed"]?.formUnion(try Self.routes(in: signed, names: names, model: model, what: "\(step), \(tile) signed"))
                        let fromB = try await replicaB.request(.GET, path, headers: acme)
                        seen["replica B"]?.formUnion(try Self.routes(in: fromB, names: names, model: model, what: "\(step), \(tile) replica B"))
                    }
                    return seen
                }

                /// Waits until both replicas hold `id` as the model has it.
                func settled(_ id: String) async throws -> Bool {
                    let expected = model.routes[id]
                    for server in [front.origin, replicaB] {
                        let deadline = Date().addingTimeInterval(30)
                        while true {
                            let reply = try await server.request(.GET, "/routes/\(id)", headers: Self.full)
                            let geometry = reply.json["geometry"] as? [String: Any]
                            let group = (reply.json["properties"] as? [String: Any])?["group"] as? String
                            let count = (geometry?["coordinates"] as? [Any])?.count
                            if let expected, reply.status == 200, group == expected.group, count == expected.count { break }
                            if expected == nil, reply.status == 404 { break }
                            guard Date() < deadline else { return false }
                            try await Task.sleep(for: .milliseconds(20))
                        }
                    }
                    return true
                }

                for step in 0..<16 {
                    let through = Bool.random(using: &rng) ? front.origin : replicaB
                    let ids = model.routes.keys.sorted()
                    var touched: [String] = []
                    var label = ""
                    // Step 8 bans every tile in Varnish whatever the draw, so that the run has one.
                    let draw = Int.random(in: 0..<7, using: &rng)
                    switch step == 8 ? 6 : draw {
                    case 0:
                        let id = ids.randomElement(using: &rng) ?? "a1", points = Self.positions(Int.random(in: 1...4, using: &rng), using: &rng)
                        label = "append to \(id)"
                        #expect(try await through.request(.POST, "/routes/\(id)/points", headers: Self.full,
                                                          body: Array(Self.coordinates(points).utf8)).status == 200)
                        model.routes[id]?.count += points.count
                        touched = [id]
                    case 1:
                        let pair = Array(Set([ids.randomElement(using: &rng) ?? "a1", ids.randomElement(using: &rng) ?? "b1"]))
                        let batch = pair.map { ($0, Self.positions(2, using: &rng)) }
                        label = "batch to \(pair)"
                        let body = "{" + batch.map { "\"\($0.0)\": \(Self.coordinates($0.1))" }.joined(separator: ",") + "}"
                        #expect(try await through.request(.POST, "/routes/points", headers: Self.full, body: Array(body.utf8)).status == 200)
                        for (id, points) in batch { model.routes[id]?.count += points.count }
                        touched = pair
                    case 2:
                        created += 1
                        let id = "n\(created)", group = Bool.random(using: &rng) ? "acme" : "bolt"
                        let points = Self.positions(3, using: &rng)
                        label = "create \(id) in \(group)"
                        model.set(id, group: group, count: points.count)
                        name(id)
                        #expect(try await through.request(.POST, "/routes", headers: Self.full,
                                                          body: Self.feature(id, group: group, points)).status == 201)
                        touched = [id]
                    case 3 where ids.count > 3:
                        let id = ids.randomElement(using: &rng) ?? "a1"
                        label = "delete \(id)"
                        #expect(try await through.request(.DELETE, "/routes/\(id)", headers: Self.full).status == 200)
                        model.routes[id] = nil
                        touched = [id]
                    case 4:
                        let id = ids.randomElement(using: &rng) ?? "a1"
                        let group = model.routes[id]?.group == "acme" ? "bolt" : "acme"
                        let points = Self.positions(4, using: &rng)
                        label = "replace \(id) into \(group)"
                        model.set(id, group: group, count: points.count)
                        #expect(try await through.request(.PUT, "/routes/\(id)", headers: Self.full,
                                                          body: Self.feature(id, group: group, points)).status == 200)
                        touched = [id]
                    case 5:
                        let id = ids.randomElement(using: &rng) ?? "a1"
                        let group = model.routes[id]?.group == "acme" ? "bolt" : "acme"
                        label = "psql moves \(id) into \(group)"
                        model.set(id, group: group, count: model.routes[id]?.count ?? 0)
                        _ = try await cluster.psql(database, """
                            UPDATE routes SET properties = jsonb_set(properties, '{group}', '"\(group)"') WHERE id = '\(id)'
                            """)
                        touched = [id]
                    default:
                        label = "ban every tile in Varnish"
                        #expect(try await front.cache.request(HTTPMethod(rawValue: "BAN"), "/tiles/").status == 200)
                    }
                    kinds.insert(String(label.prefix { $0 != " " }))
                    _ = try await readAll("step \(step) (\(label)), at once", others: true)
                    for id in touched { #expect(try await settled(id), "step \(step): \(label) did not reach both replicas") }
                    let seen = try await readAll("step \(step) (\(label)), settled")
                    #expect(seen["bearer"] == model.acme, "step \(step) (\(label)): \(seen["bearer"] ?? []) against \(model.acme)")
                    #expect(seen["replica B"] == model.acme, "step \(step) (\(label)) on replica B: \(seen["replica B"] ?? [])")
                    if step % 4 == 3 {
                        let listed = try await front.origin.request(.GET, "/routes", headers: acme).json["routes"] as? [[String: Any]]
                        #expect(Set((listed ?? []).compactMap { $0["id"] as? String }) == model.acme, "step \(step): the route list")
                    }
                }
                #expect(signedHits > 0, "Varnish never answered a signed tile from its cache")
                #expect(kinds == ["append", "batch", "create", "delete", "replace", "psql", "ban"], "the run did only \(kinds)")

                // Past the signed tiles' max-age, Varnish revalidates them: they hold acme's routes exactly.
                let deadline = Date().addingTimeInterval(30)
                var signed: Set<String> = []
                repeat {
                    try await Task.sleep(for: .seconds(1))
                    signed = try await readAll("the end")["signed"] ?? []
                } while signed != model.acme && Date() < deadline
                #expect(signed == model.acme, "signed reads at the end: \(signed) against \(model.acme)")

                // Every event the acme reader received named acme's routes alone.
                var named = Set<String>()
                while let event = try await events.next(within: 0.5) { named.formUnion(event.json["ids"] as? [String] ?? []) }
                #expect(!named.isEmpty && named.isSubset(of: model.everAcme), "events named \(named.subtracting(model.everAcme))")
            }
        }
        await storeA.close()
        await storeB.close()
    }
}
