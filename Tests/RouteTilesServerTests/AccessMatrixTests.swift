import Foundation
import NIOHTTP1
import RouteTiles
import RouteTilesAccess
@testable import RouteTilesServer
import RouteTilesCoreTestSupport
import RouteTilesTestSupport
import Testing

/// Every operation of the API that needs a credential, with every kind of credential a client may come with: the
/// status each gets is the documented one, and no answer to a credential without the right holds a byte of the
/// route it may not see (`veh-18`, group globex): tiles are decoded, lists and errors read.
@Suite struct AccessMatrixTests {
    enum Kind: String, CaseIterable {
        case none, expired, wrongAudience, tampered, unsigned, confused, otherGroup, van, full
    }

    struct Operation {
        var method: HTTPMethod
        var path: String
        var body: String?
        var isRead: Bool
    }

    static let audience = "tiles.example"

    static func operations(tile: TileID) -> [Operation] {
        let fix = "[[2.3611, 48.8511]]"
        let route = #"{"type":"Feature","id":"veh-18","properties":{"group":"globex"},"geometry":{"type":"LineString","coordinates":[[2.3605,48.85],[2.3612,48.851]]}}"#
        return [
            Operation(method: .GET, path: "/tiles/14/\(tile.x)/\(tile.y).mvt", body: nil, isRead: true),
            Operation(method: .GET, path: "/tiles/14/\(tile.x)/\(tile.y)@2x.png", body: nil, isRead: true),
            Operation(method: .GET, path: "/ogc/collections/routes/tiles/WebMercatorQuad/14/\(tile.y)/\(tile.x)", body: nil, isRead: true),
            Operation(method: .GET, path: "/ogc/map/tiles/WebMercatorQuad/14/\(tile.y)/\(tile.x)", body: nil, isRead: true),
            Operation(method: .GET, path: "/ogc/collections", body: nil, isRead: true),
            Operation(method: .GET, path: "/ogc/tiles/WebMercatorQuad", body: nil, isRead: true),
            Operation(method: .GET, path: "/tiles.json", body: nil, isRead: true),
            Operation(method: .GET, path: "/style.json", body: nil, isRead: true),
            Operation(method: .GET, path: "/routes", body: nil, isRead: true),
            Operation(method: .GET, path: "/routes/veh-18", body: nil, isRead: true),
            Operation(method: .GET, path: "/routes/veh-18/gpx", body: nil, isRead: true),
            Operation(method: .GET, path: "/routes/veh-18/position?at=0", body: nil, isRead: true),
            Operation(method: .GET, path: "/metrics", body: nil, isRead: true),
            Operation(method: .POST, path: "/routes/veh-18/points", body: fix, isRead: false),
            Operation(method: .POST, path: "/routes/points", body: #"{"veh-18": \#(fix)}"#, isRead: false),
            Operation(method: .POST, path: "/routes", body: route, isRead: false),
            Operation(method: .PUT, path: "/routes/veh-18", body: route, isRead: false),
            Operation(method: .GET, path: "/osmand?id=veh-18&lat=48.8512&lon=2.3613", body: nil, isRead: false),
            Operation(method: .DELETE, path: "/routes/veh-18", body: nil, isRead: false),
        ]
    }

    /// The documented status of `operation` for a credential of `kind`.
    static func expected(_ kind: Kind, _ operation: Operation) -> Set<Int> {
        switch kind {
        case .none, .expired, .wrongAudience, .tampered, .unsigned, .confused:
            return [401]
        case .otherGroup:
            guard operation.isRead else { return [403] }
            if operation.path == "/metrics" { return [403] }
            if operation.path.hasPrefix("/routes/veh-18") { return [404] }
            return operation.path.hasPrefix("/tiles/") || operation.path.contains("/WebMercatorQuad/") ? [200, 204] : [200]
        case .van:
            if operation.isRead { return [403] }
            return operation.path == "/routes/points" ? [422] : [403]
        case .full:
            // The route has no times: no position at a time, and /osmand's fixes (which have times) do not fit it.
            if operation.path.hasPrefix("/routes/veh-18/position") { return [404] }
            if operation.path.hasPrefix("/osmand") { return [409] }
            return operation.method == .POST && operation.path == "/routes" ? [201] : [200]
        }
    }

    @Test func everyOperationAnswersEveryCredentialAsDocumented() async throws {
        let ec = try await TestTokens.ecKeyAndConfusion(read: ["*"], audience: Self.audience)
        let writeToken = "matrix-write-token"
        var made: [Kind: String] = [
            .expired: try await TestTokens.hs256(read: ["*"], write: ["*"], audience: Self.audience, expiresIn: -3600),
            .wrongAudience: try await TestTokens.hs256(read: ["*"], write: ["*"], audience: "elsewhere"),
            .tampered: TestTokens.tampered(try await TestTokens.hs256(read: ["*"], write: ["*"], audience: Self.audience)),
            .unsigned: TestTokens.unsigned(read: ["*"]),
            .confused: ec.confused,
            .otherGroup: try await TestTokens.hs256(read: ["acme", "default"], audience: Self.audience),
            .van: try await TestTokens.hs256(write: ["veh-17"], subject: "van-17", audience: Self.audience),
        ]
        made[.full] = writeToken
        let tokens = made
        var rng = SeededGenerator(seed: 18)
        let vans = [("veh-17", "acme", 2.35), ("veh-18", "globex", 2.3605)].map { id, group, lon in
            Route(id: .string(id), properties: [Property("group", .string(group))],
                  parts: [Sample.track(count: 20, lon: lon, lat: 48.85, step: 0.0003, using: &rng)])
        }
        var options = TestServer.options()
        options.positionLayer = "positions"
        let tile = WebMercator.tile(containing: vans[1].parts[0][0], zoom: 14)
        let fid18 = ProjectedRouteSet.featureID(for: .string("veh-18"), index: 0)
        try await TestServer.with(.routes(vans, options: options), configure: { c in
            c.read = .token
            c.writeToken = writeToken
            c.credentials = try? CredentialVerifier(
                keys: CredentialKeys(hmacSecret: TestTokens.secret, jwks: ec.jwks, writeToken: writeToken),
                settings: CredentialVerifier.Settings(audience: Self.audience))
            c.rateLimits.authenticationFailuresPerAddress = 0
        }) { server in
            // The ES256 token of the JWKS verifies: the key works, so the confused token fails for its trick alone.
            #expect(try await server.get("/routes", headers: [("Authorization", "Bearer \(ec.signed)")]).status == 200)
            for kind in Kind.allCases {
                for operation in Self.operations(tile: tile) {
                    var headers: [(String, String)] = [("Content-Type", "application/geo+json")]
                    if let token = tokens[kind] { headers.append(("Authorization", "Bearer \(token)")) }
                    let reply = try await server.request(operation.method, operation.path, headers: headers,
                                                         body: operation.body.map { Array($0.utf8) })
                    let wanted = Self.expected(kind, operation)
                    #expect(wanted.contains(reply.status), "\(kind) \(operation.method) \(operation.path): \(reply.status) \(reply.text)")
                    guard kind != .full else { continue }
                    // Nothing of veh-18 in any answer to a credential that may not read it.
                    if operation.path.hasSuffix(".png") || operation.path.contains("/map/tiles/WebMercatorQuad/") {
                        // A PNG is drawn from the vector tile of the reader's groups, which the .mvt row decodes.
                        #expect(reply.status != 200 || reply.header("Content-Type") == "image/png")
                    } else if operation.path.hasPrefix("/tiles/") || operation.path.contains("/WebMercatorQuad/"), reply.status == 200 {
                        let ids = try VectorTileDecoder.decode(reply.body).layers.flatMap { $0.features.compactMap(\.id) }
                        #expect(!ids.contains(fid18), "\(kind): veh-18 in a tile")
                    } else {
                        #expect(!reply.text.contains("globex"), "\(kind) \(operation.path): \(reply.text)")
                        if operation.path == "/routes", operation.method == .GET { #expect(!reply.text.contains("veh-18"), "\(kind): \(reply.text)") }
                    }
                }
                // /events: the stream opens only with a reading credential.
                let url = server.base + "/events" + (tokens[kind].map { "?access_token=\($0)" } ?? "")
                let stream = try await EventStreamReader(url: url)
                let opens: Set<Int> = kind == .otherGroup || kind == .full ? [200] : kind == .van ? [403] : [401]
                #expect(opens.contains(stream.status), "\(kind) /events: \(stream.status)")
                stream.close()
            }
        }
    }
}
