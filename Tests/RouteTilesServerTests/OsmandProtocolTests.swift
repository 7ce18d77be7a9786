import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `/osmand`: fixes as OsmAnd's online tracking and Traccar Client send them (query or form fields, the token as a
/// field or a header), written into a route with times like fix objects.
@Suite struct OsmandProtocolTests {
    static let token = "osmand-token-1"

    func configure(_ c: inout ServerConfiguration) {
        c.writeToken = Self.token
    }

    /// A server whose route `van` has times, from 14:05:00Z to 14:05:30Z.
    func withVan(create: Bool = false, _ body: @Sendable @escaping (TestServer.Handle) async throws -> Void) async throws {
        let van = Route(id: .string("van"), properties: [Property("name", .string("van"))],
                        parts: [[Coordinate(longitude: 2.30, latitude: 48.85), Coordinate(longitude: 2.31, latitude: 48.86)]],
                        times: [1_795_788_300_000, 1_795_788_330_000])
        let plain = Route(id: .string("plain"), parts: Sample.parisRoutes(count: 1, points: 10)[0].parts)
        try await TestServer.with(.routes([van, plain], options: TestServer.options()),
                                  configure: { configure(&$0); $0.createRoutesFromFixes = create }, body)
    }

    func times(_ server: TestServer.Handle, _ key: String) async throws -> [String] {
        let feature = try await server.get("/routes/\(key)").json
        return (feature["properties"] as? [String: Any])?["coordTimes"] as? [String] ?? []
    }

    @Test func osmAndsQueryAndTraccarsFormAreFixes() async throws {
        try await withVan { server in
            // OsmAnd's default URL: every field in the query, the token too.
            let osmand = try await server.request(.GET, "/osmand?id=van&lat=48.87&lon=2.32&timestamp=1795788360&hdop=3&altitude=35&speed=10.5&bearing=90&token=\(Self.token)")
            #expect(osmand.status == 200, "\(osmand.text)")
            // Traccar Client: a form body, milliseconds, the token as a bearer header.
            let form = try await server.request(.POST, "/osmand", headers: [
                ("Authorization", "Bearer \(Self.token)"), ("Content-Type", "application/x-www-form-urlencoded"),
            ], body: Array("id=van&lat=48.88&lon=2.33&timestamp=1795788390000&speed=0&bearing=0&accuracy=12&batt=80".utf8))
            #expect(form.status == 200, "\(form.text)")
            // ISO with an offset whose + a form turned into a space; location=lat,lon.
            let iso = try await server.request(.POST, "/osmand?token=\(Self.token)",
                                               headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                               body: Array("deviceid=van&location=48.89%2C2.34&timestamp=2026-11-27T15:07:00+01:00".utf8))
            #expect(iso.status == 200, "\(iso.text)")
            #expect(try await times(server, "van") == ["2026-11-27T14:05:00Z", "2026-11-27T14:05:30Z", "2026-11-27T14:06:00Z",
                                                       "2026-11-27T14:06:30Z", "2026-11-27T14:07:00Z"])
            // The same fix again (a retry) is stored once; valid=false is dropped and said so.
            #expect(try await server.request(.GET, "/osmand?id=van&lat=48.87&lon=2.32&timestamp=1795788360&token=\(Self.token)").status == 200)
            let invalid = try await server.request(.GET, "/osmand?id=van&lat=48.9&lon=2.35&timestamp=1795788500&valid=false&token=\(Self.token)")
            #expect(invalid.status == 200 && (invalid.json["dropped_positions"] as? [String: Any])?["invalid"] as? Int == 1,
                    "\(invalid.text)")
            #expect(try await times(server, "van").count == 5)
        }
    }

    @Test func refusalsSayWhatIsWrong() async throws {
        try await withVan { server in
            let fix = "id=van&lat=48.87&lon=2.32&timestamp=1795788360"
            #expect(try await server.request(.GET, "/osmand?\(fix)").status == 401)
            #expect(try await server.request(.GET, "/osmand?\(fix)&token=wrong").status == 401)
            let unknown = try await server.request(.GET, "/osmand?id=bus&lat=48.87&lon=2.32&token=\(Self.token)")
            #expect(unknown.status == 404, "\(unknown.text)")
            let plain = try await server.request(.GET, "/osmand?id=plain&lat=48.87&lon=2.32&token=\(Self.token)")
            #expect(plain.status == 409, "\(plain.text)")
            let lat = try await server.request(.GET, "/osmand?id=van&lat=abc&lon=2.32&token=\(Self.token)")
            #expect(lat.status == 400 && lat.text.contains("lat: 'abc' is not a number"), "\(lat.text)")
            let far = try await server.request(.GET, "/osmand?id=van&lat=95&lon=2.32&token=\(Self.token)")
            #expect(far.status == 400, "\(far.text)")
            let when = try await server.request(.GET, "/osmand?id=van&lat=48.9&lon=2.32&timestamp=soon&token=\(Self.token)")
            #expect(when.status == 400 && when.text.contains("timestamp"), "\(when.text)")
            let missing = try await server.request(.GET, "/osmand?lat=48.9&lon=2.32&token=\(Self.token)")
            #expect(missing.status == 400 && missing.text.contains("id"), "\(missing.text)")
        }
    }

    @Test func anUnknownIdMakesARouteWhenAllowed() async throws {
        try await withVan(create: true) { server in
            let first = try await server.request(.GET, "/osmand?id=bike-7&lat=48.80&lon=2.30&timestamp=1795788300&token=\(Self.token)")
            #expect(first.status == 201, "\(first.text)")
            let second = try await server.request(.GET, "/osmand?id=bike-7&lat=48.81&lon=2.31&timestamp=1795788310&token=\(Self.token)")
            #expect(second.status == 200, "\(second.text)")
            #expect(try await times(server, "bike-7") == ["2026-11-27T14:05:00Z", "2026-11-27T14:05:00Z", "2026-11-27T14:05:10Z"])
        }
    }
}
