import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The HTTP API against its contract, `openapi.json`, fetched from a real server: the dispatch table and the
/// document name the same operations, `Allow` says what the document says, and the answers (the typed ones and
/// the hand-written streaming ones alike) conform to their schemas. Schemathesis checks much more of it in CI
/// (`Tests/contract/schemathesis.sh`); this keeps the two from drifting apart between CI runs.
@Suite struct OpenAPIContractTests {
    static let token = "contract-token-1"
    let auth = [("Authorization", "Bearer \(Self.token)"), ("Content-Type", "application/geo+json")]
    static let methods = ["get", "head", "post", "put", "delete"]

    /// The document's operations, as `METHOD path operationId`.
    static func operations(of document: JSONTree) -> Set<String> {
        guard case let .object(paths)? = document["paths"] else { return [] }
        var found: Set<String> = []
        for (path, item) in paths {
            for method in methods {
                if let operation = item[method] { found.insert("\(method.uppercased()) \(path) \(operation["operationId"]?.string ?? "?")") }
            }
        }
        return found
    }

    /// Every `$ref` of `tree` that names nothing in `document`.
    static func danglingReferences(in tree: JSONTree, of document: JSONTree) -> [String] {
        switch tree {
        case let .object(members):
            var dangling: [String] = []
            if let ref = members["$ref"]?.string {
                let parts = ref.dropFirst(2).split(separator: "/").map(String.init)
                var target: JSONTree? = document
                for part in parts { target = target?[part] }
                if !ref.hasPrefix("#/") || target == nil { dangling.append(ref) }
            }
            for member in members.values { dangling += danglingReferences(in: member, of: document) }
            return dangling
        case let .array(items):
            return items.flatMap { danglingReferences(in: $0, of: document) }
        default:
            return []
        }
    }

    @Test func theDocumentAndTheDispatchTableNameTheSameOperations() async throws {
        let backend = TileBackend.routes(Sample.parisRoutes(count: 1, points: 20), options: TestServer.options())
        try await TestServer.with(backend) { server in
            let reply = try await server.get("/openapi.json")
            #expect(reply.status == 200 && reply.header("Content-Type") == "application/json")
            let document = try #require(JSONTree.parse(reply.body), "not JSON")
            #expect(document["openapi"]?.string?.hasPrefix("3.1") == true)
            // The table of a live server, which has every family of endpoints.
            let table = Set(server.server.state.api.table.operations.map { "\($0.method.rawValue) \($0.path.template) \($0.id)" })
            let documented = Self.operations(of: document)
            #expect(table.subtracting(documented).isEmpty, "in the table, not in the document: \(table.subtracting(documented).sorted())")
            #expect(documented.subtracting(table).isEmpty, "in the document, not in the table: \(documented.subtracting(table).sorted())")
            #expect(Self.danglingReferences(in: document, of: document).isEmpty)
            // The document served is the file in the repository, byte for byte.
            let file = PackageFolder.root.path + "/Sources/RouteTilesServer/OpenAPI/openapi.json"
            #expect(FileManager.default.contents(atPath: file).map(Array.init) == reply.body)

            // A method a path does not take: 405, with `Allow` listing what the document lists for the path.
            guard case let .object(paths)? = document["paths"] else { return }
            for (template, item) in paths where template != "/routes/points" {
                let path = template.replacingOccurrences(of: "{z}/{x}/{y}", with: "0/0/0")
                    .replacingOccurrences(of: "{id}", with: "r1").replacingOccurrences(of: "{path}", with: "a.css")
                let listed = Self.methods.filter { item[$0] != nil }.map { $0.uppercased() }
                let refused = try await server.request(.PATCH, path)
                #expect(refused.status == 405, "PATCH \(path)")
                #expect(refused.header("Allow") == listed.joined(separator: ", "), "PATCH \(path)")
            }
            // Both `/routes/points` (the batch) and `/routes/{id}` (the route named "points") match this path.
            #expect(try await server.request(.PATCH, "/routes/points").header("Allow") == "GET, POST, PUT, DELETE")
            #expect(try await server.request(.PATCH, "/routes/a/b/c").status == 404)
        }
    }

    /// Each answer is checked against the schema the document gives its operation and status.
    @Test func answersConformToTheirSchemas() async throws {
        let routes = [Route(id: .string("van-1"), parts: [[Coordinate(longitude: 2.35, latitude: 48.85),
                                                           Coordinate(longitude: 2.36, latitude: 48.86)]])]
        let backend = TileBackend.routes(routes, options: TestServer.options())
        try await TestServer.with(backend, configure: { $0.writeToken = Self.token }) { server in
            let document = try #require(JSONTree.parse(try await server.get("/openapi.json").body))
            let check = OpenAPISchemaCheck(document: document)
            func expectConforms(_ reply: TestServer.Reply, _ schema: String, status: Int,
                                sourceLocation: SourceLocation = #_sourceLocation) {
                let problems = JSONTree.parse(reply.body).map { check.problems($0, check.schema(schema)) } ?? ["not JSON"]
                #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
                #expect(problems.isEmpty, "\(schema): \(problems) in \(reply.text)", sourceLocation: sourceLocation)
            }
            let events = try await EventStreamReader(url: server.base + "/events")
            let hello = try #require(try await events.next())
            #expect(check.problems(try #require(JSONTree.parse(Array(hello.data.utf8))), check.schema("HelloEvent")).isEmpty)

            let feature = #"{"type":"Feature","id":"bus-7","properties":{"name":"Bus 7","line":7},"geometry":{"type":"LineString","coordinates":[[2.34,48.85],[2.35,48.86]]}}"#
            expectConforms(try await server.request(.POST, "/routes", headers: auth, body: Array(feature.utf8)), "WriteAnswer", status: 201)
            let change = try #require(try await events.next())
            #expect(check.problems(try #require(JSONTree.parse(Array(change.data.utf8))), check.schema("ChangeEvent")).isEmpty)
            events.close()
            expectConforms(try await server.request(.POST, "/routes/bus-7/points", headers: auth,
                                                    body: Array("[[2.36, 48.87]]".utf8)), "WriteAnswer", status: 200)
            let batch = #"{"bus-7": [[2.37, 48.88]], "ghost": [[2.1, 48.1]], "van-1": [[2.4, 95]]}"#
            expectConforms(try await server.request(.POST, "/routes/points", headers: auth, body: Array(batch.utf8)),
                           "BatchAppendAnswer", status: 200)
            expectConforms(try await server.request(.POST, "/routes/points", headers: auth,
                                                    body: Array(#"{"ghost": [[2, 48]]}"#.utf8)), "BatchAppendAnswer", status: 422)
            expectConforms(try await server.get("/routes"), "RouteList", status: 200)
            let sample = Array(FileManager.default.contents(atPath: PackageFolder.root.path + "/Tiles/samples/zurich-osrm-route.json") ?? Data())
            // A directions response, recognised by its content (no Content-Type names it).
            let bearer = [("Authorization", "Bearer \(Self.token)")]
            #expect(try await server.request(.POST, "/routes", headers: bearer, body: sample).status == 201)
            let list = try await server.get("/routes")
            expectConforms(list, "RouteList", status: 200)
            #expect(list.text.contains("\"steps\""), "a directions route lists its steps")
            let route = try await server.get("/routes/bus-7")
            expectConforms(route, "RouteFeature", status: 200)
            #expect(route.header("Content-Type") == "application/geo+json" && route.header("ETag")?.hasPrefix("\"") == true)
            expectConforms(try await server.get("/health"), "Health", status: 200)
            expectConforms(try await server.get("/health/live"), "Probe", status: 200)
            expectConforms(try await server.get("/health/ready"), "Probe", status: 200)
            expectConforms(try await server.get("/tiles.json"), "TileJSON", status: 200)
            expectConforms(try await server.get("/style.json"), "Style", status: 200)
            expectConforms(try await server.get("/routes/nobody"), "Error", status: 404)
            expectConforms(try await server.get("/tiles/1/5/0.mvt"), "Error", status: 404)
            expectConforms(try await server.get("/tiles/29/0/0.mvt"), "Error", status: 400)
            expectConforms(try await server.request(.PUT, "/routes/x", body: Array(feature.utf8)), "Error", status: 401)
            expectConforms(try await server.request(.POST, "/routes", headers: auth, body: Array("{".utf8)), "Error", status: 400)
            expectConforms(try await server.request(.DELETE, "/routes/bus-7", headers: auth), "WriteAnswer", status: 200)
        }
    }
}
