import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `GET /events`: server-sent events of every applied change, resumed with `Last-Event-ID`, ended at shutdown.
@Suite(.timeLimit(.minutes(2))) struct ServerEventsTests {
    static let token = "events-token-1"
    let auth = [("Authorization", "Bearer \(Self.token)"), ("Content-Type", "application/geo+json")]

    func feature(_ id: String, lon: Double) -> [UInt8] {
        Array(#"{"type":"Feature","id":"\#(id)","properties":{"name":"\#(id)"},"geometry":{"type":"LineString","coordinates":[[\#(lon),48.85],[\#(lon + 0.01),48.86],[\#(lon + 0.02),48.85]]}}"#.utf8)
    }

    @Test func changesStreamInOrderAndAReconnectIsToldWhatItMissed() async throws {
        let backend = TileBackend.routes(Sample.parisRoutes(count: 2, points: 40), options: TestServer.options())
        try await TestServer.with(backend, configure: { $0.writeToken = Self.token }) { server in
            let stream = try await EventStreamReader(url: server.base + "/events")
            #expect(stream.status == 200)
            #expect(stream.contentType?.hasPrefix("text/event-stream") == true)
            let hello = try #require(try await stream.next())
            #expect(hello.name == "hello" && hello.id == 2)

            let created = try await server.request(.POST, "/routes", headers: auth, body: feature("e1", lon: 2.31))
            #expect(created.status == 201)
            let change = try #require(try await stream.next())
            #expect(change.name == "change" && change.id == 3)
            #expect(change.json["ids"] as? [String] == ["e1"])
            let tiles = try #require(change.json["tiles"] as? [String])
            #expect(tiles.count == created.json["invalidated_tiles"] as? Int && !tiles.isEmpty)
            #expect(tiles.allSatisfy { $0.split(separator: "/").count == 3 })

            #expect(try await server.request(.DELETE, "/routes/100", headers: auth).status == 200)
            let removal = try #require(try await stream.next())
            #expect(removal.id == 4 && removal.json["ids"] as? [String] == ["100"])
            stream.close()

            // Two changes while the client is away; it comes back with the last id it saw.
            #expect(try await server.request(.POST, "/routes", headers: auth, body: feature("e2", lon: 2.33)).status == 201)
            #expect(try await server.request(.PUT, "/routes/e1", headers: auth, body: feature("e1", lon: 2.35)).status == 200)
            let back = try await EventStreamReader(url: server.base + "/events", lastEventID: 4)
            let resync = try #require(try await back.next())
            #expect(resync.name == "resync" && resync.id == 6)
            #expect(Set(resync.json["ids"] as? [String] ?? []) == ["e2", "e1"])
            // Up to date: hello, then the next change.
            let current = try await EventStreamReader(url: server.base + "/events", lastEventID: 6)
            #expect(try await current.next()?.name == "hello")
            #expect(try await server.request(.DELETE, "/routes/e2", headers: auth).status == 200)
            #expect(try await current.next()?.id == 7)
            #expect(try await back.next()?.id == 7)
            back.close()
            // `current` stays open: the shutdown that ends this block must end it rather than wait for it.
        }
    }

    /// Graceful shutdown ends open event streams, so that the server stops instead of waiting for clients.
    @Test func shutdownEndsOpenStreams() async throws {
        let backend = TileBackend.routes(Sample.parisRoutes(count: 1, points: 20), options: TestServer.options())
        let stream = try await TestServer.with(backend) { server -> EventStreamReader in
            let stream = try await EventStreamReader(url: server.base + "/events")
            #expect(try await stream.next()?.name == "hello")
            return stream
        }
        #expect(try await stream.ends(within: 60))
    }

    @Test func aTilesetHasNoEvents() async throws {
        let (folder, source) = try TestServer.parisTileset()
        defer { withExtendedLifetime(folder) {} }
        let status = try await TestServer.with(.tileset(source)) { server in try await server.get("/events").status }
        #expect(status == 404)
    }
}
