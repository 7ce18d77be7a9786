import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// Time over HTTP: a route written with `coordTimes` gives every time back; fix objects append in time order, once
/// each; times and positions that do not fit a route are refused with what is wrong.
@Suite struct ServerTimesTests {
    static let token = "times-token-1"
    let auth = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/geo+json")]

    func configure(_ c: inout ServerConfiguration) {
        c.writeToken = Self.token
    }

    static let base: Int64 = 1_795_788_300_000  // 2026-11-27T14:05:00Z

    /// A van's track of two parts with a time on every position, as GPX and KML converters write it.
    func timedFeature(id: String, flatTimes: Bool) -> (body: [UInt8], times: [Int64]) {
        let parts = [[(2.30, 48.85), (2.31, 48.86), (2.32, 48.87)], [(2.33, 48.86), (2.34, 48.85)]]
        let times = [0, 15_250, 30_000, 90_000, 120_000].map { Self.base + Int64($0) }
        let iso = times.map { "\"\(TimeValue.iso($0))\"" }
        let coordTimes = flatTimes ? "[" + iso.joined(separator: ",") + "]"
            : "[[" + iso.prefix(3).joined(separator: ",") + "],[" + iso.suffix(2).joined(separator: ",") + "]]"
        let coordinates = "[" + parts.map { "[" + $0.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]" }.joined(separator: ",") + "]"
        let text = #"{"type":"Feature","id":"\#(id)","properties":{"name":"\#(id)","coordTimes":\#(coordTimes)},"geometry":{"type":"MultiLineString","coordinates":\#(coordinates)}}"#
        return (Array(text.utf8), times)
    }

    func times(of server: TestServer.Handle, _ key: String) async throws -> [Int64]? {
        let feature = try await server.get("/routes/\(key)").json
        let texts = (feature["properties"] as? [String: Any])?["coordTimes"] as? [String]
        return try texts?.map { try TimeValue.parse($0) }
    }

    func fixes(_ list: [(Double, Double, String)]) -> [UInt8] {
        Array(("[" + list.map { #"{"lon":\#($0.0),"lat":\#($0.1),"t":\#($0.2)}"# }.joined(separator: ",") + "]").utf8)
    }

    @Test func aRouteWithTimesGivesThemBackAsCoordTimes() async throws {
        try await TestServer.with(.routes([], options: TestServer.options()), configure: configure) { server in
            for flat in [true, false] {
                let key = flat ? "flat" : "nested"
                let (body, times) = timedFeature(id: key, flatTimes: flat)
                let created = try await server.request(.POST, "/routes", headers: auth, body: body)
                #expect(created.status == 201, "\(created.text)")
                #expect(try await self.times(of: server, key) == times)
                let feature = try await server.get("/routes/\(key)").json
                let properties = feature["properties"] as? [String: Any]
                #expect((properties?["coordTimes"] as? [String])?[1] == "2026-11-27T14:05:15.250Z")
                #expect(properties?["name"] as? String == key)
                // What GET gives, PUT takes back unchanged.
                let again = try await server.get("/routes/\(key)")
                #expect(try await server.request(.PUT, "/routes/\(key)", headers: auth, body: again.body).status == 200)
                #expect(try await self.times(of: server, key) == times)
            }
            let untimed = try await server.get("/routes/none")
            #expect(untimed.status == 404)
        }
    }

    @Test func fixObjectsAppendInTimeOrderOnceEach() async throws {
        try await TestServer.with(.routes([], options: TestServer.options()), configure: configure) { server in
            let (body, stored) = timedFeature(id: "van", flatTimes: true)
            #expect(try await server.request(.POST, "/routes", headers: auth, body: body).status == 201)
            // Out of order within the request, and the last stored fix resent: stored once, in order.
            let t1 = "\"2026-11-27T14:07:10Z\"", t2 = "1795788440", t3 = "\"2026-11-27T15:07:20+01:00\""
            let appended = try await server.request(.POST, "/routes/van/points", headers: auth,
                                                    body: fixes([(2.36, 48.86, t3), (2.35, 48.85, t1), (2.355, 48.855, t2),
                                                                 (2.34, 48.85, "\"2026-11-27T14:07:00Z\"")]))
            #expect(appended.status == 200, "\(appended.text)")
            #expect(try await self.times(of: server, "van") == stored + [Self.base + 130_000, Self.base + 140_000])
            // (t3 is 14:07:20Z, the instant of t2: the first sent is kept; 14:07:00Z is the stored last fix.)
            // A retry of the same request changes nothing.
            let retry = try await server.request(.POST, "/routes/van/points", headers: auth,
                                                 body: fixes([(2.35, 48.85, t1), (2.355, 48.855, t2)]))
            #expect(retry.status == 200)
            #expect(try await self.times(of: server, "van")?.count == stored.count + 2)
            // A late fix, between two stored ones, is put in its place.
            let late = try await server.request(.POST, "/routes/van/points", headers: auth,
                                                body: fixes([(2.305, 48.855, "\"2026-11-27T14:05:05Z\"")]))
            #expect(late.status == 200, "\(late.text)")
            let all = try #require(try await self.times(of: server, "van"))
            #expect(all == all.sorted() && all.contains(Self.base + 5_000) && all.count == stored.count + 3)
            let feature = try await server.get("/routes/van").json
            let coordinates = (feature["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]]
            #expect(coordinates?[0][1] == [2.305, 48.855])
        }
    }

    @Test func timesThatDoNotFitAreRefusedWithWhatIsWrong() async throws {
        try await TestServer.with(.routes([], options: TestServer.options()), configure: configure) { server in
            let (body, _) = timedFeature(id: "van", flatTimes: true)
            #expect(try await server.request(.POST, "/routes", headers: auth, body: body).status == 201)
            let plain = #"{"type":"Feature","id":"plain","properties":{},"geometry":{"type":"LineString","coordinates":[[2.3,48.8],[2.4,48.9]]}}"#
            #expect(try await server.request(.POST, "/routes", headers: auth, body: Array(plain.utf8)).status == 201)
            func post(_ key: String, _ text: String) async throws -> TestServer.Reply {
                try await server.request(.POST, "/routes/\(key)/points", headers: auth, body: Array(text.utf8))
            }
            let mixed = try await post("van", #"[{"lon":2.4,"lat":48.9,"t":"2026-11-27T14:08:00Z"},{"lon":2.41,"lat":48.91}]"#)
            #expect(mixed.status == 400 && mixed.text.contains("position 1 has no \\\"t\\\", but position 0 has one"), "\(mixed.text)")
            let bad = try await post("van", #"[{"lon":2.4,"lat":48.9,"t":"yesterday"}]"#)
            #expect(bad.status == 400 && bad.text.contains("'yesterday' is not an ISO 8601"), "\(bad.text)")
            let zoneless = try await post("van", #"[{"lon":2.4,"lat":48.9,"t":"2026-11-27T14:08:00"}]"#)
            #expect(zoneless.status == 400 && zoneless.text.contains("has no zone"), "\(zoneless.text)")
            let future = try await post("van", #"[{"lon":2.4,"lat":48.9,"t":"2099-01-01T00:00:00Z"}]"#)
            #expect(future.status == 400 && future.text.contains("--max-fix-skew"), "\(future.text)")
            let speed = try await post("van", #"[{"lon":2.4,"lat":48.9,"t":1795788500,"speed":-1}]"#)
            #expect(speed.status == 400 && speed.text.contains("not a speed"), "\(speed.text)")
            let untimed = try await post("van", "[[2.4,48.9]]")
            #expect(untimed.status == 409 && untimed.text.contains("keeps a time on every position"), "\(untimed.text)")
            let timed = try await post("plain", #"[{"lon":2.4,"lat":48.9,"t":1795788500}]"#)
            #expect(timed.status == 409 && timed.text.contains("has no times"), "\(timed.text)")
            // In a batch, each id is judged alone.
            let batch = try await server.request(.POST, "/routes/points", headers: auth, body: Array(#"""
                {"van": [{"lon": 2.35, "lat": 48.85, "t": "2026-11-27T14:09:00Z"}], "plain": [[2.41, 48.91]],
                 "nowhere": [{"lon": 2.35, "lat": 48.85, "t": 1795788600}], "van-untimed": [[2.4, 48.9]]}
                """#.utf8))
            #expect(batch.status == 200, "\(batch.text)")
            let applied = (batch.json["applied"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            let refused = (batch.json["refused"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(Set(applied ?? []) == ["van", "plain"] && Set(refused ?? []) == ["nowhere", "van-untimed"], "\(batch.text)")
            #expect(try await self.times(of: server, "van")?.last == Self.base + 240_000)
        }
    }

    @Test func positionAtATimeAndGPXOfARoute() async throws {
        try await TestServer.with(.routes([], options: TestServer.options()), configure: configure) { server in
            let (body, _) = timedFeature(id: "van", flatTimes: true)
            #expect(try await server.request(.POST, "/routes", headers: auth, body: body).status == 201)
            // 14:05:10Z is 10 s into the 15.25 s of the first segment.
            let at = try await server.get("/routes/van/position?at=2026-11-27T14:05:10Z")
            #expect(at.status == 200 && at.header("Content-Type")?.hasPrefix("application/geo+json") == true, "\(at.text)")
            let coordinates = (at.json["geometry"] as? [String: Any])?["coordinates"] as? [Double] ?? []
            #expect(coordinates.count == 2 && abs(coordinates[0] - (2.30 + 0.01 * 10 / 15.25)) < 1e-9, "\(coordinates)")
            let properties = at.json["properties"] as? [String: Any]
            #expect(properties?["time"] as? String == "2026-11-27T14:05:10Z")
            #expect((properties?["speed"] as? Double).map { $0 > 80 && $0 < 100 } == true, "\(at.text)")
            #expect(try await server.get("/routes/van/position?at=1795788310").json["properties"] != nil)
            let before = try await server.get("/routes/van/position?at=2026-11-27T14:00:00Z")
            #expect(before.status == 404 && before.text.contains("its track spans 2026-11-27T14:05:00Z to 2026-11-27T14:07:00Z"), "\(before.text)")
            let gap = try await server.get("/routes/van/position?at=2026-11-27T14:06:00Z")
            #expect(gap.status == 404 && gap.text.contains("gap between parts"), "\(gap.text)")
            #expect(try await server.get("/routes/van/position?at=soon").status == 400)
            #expect(try await server.get("/routes/van/position").status == 400)
            #expect(try await server.get("/routes/nobody/position?at=1795788310").status == 404)
            // GPX with times, read back by RouteTiles' own reader.
            let gpx = try await server.get("/routes/van/gpx")
            #expect(gpx.status == 200 && gpx.header("Content-Type") == "application/gpx+xml", "\(gpx.text)")
            #expect(gpx.header("Content-Disposition") == "attachment; filename=\"van.gpx\"")
            let read = try RouteReader.read(bytes: gpx.body, name: "van.gpx", format: .gpx)
            #expect(read.routes.first?.times == timedFeature(id: "van", flatTimes: true).times)
        }
    }

    /// A directions response POSTed with `depart_at` has planned times from that departure, as `--depart-at` gives
    /// them to files; without it, none; a `depart_at` that is no time is refused, naming it.
    @Test func directionsWithDepartAtHavePlannedTimes() async throws {
        let osrm = try #require(FileManager.default.contents(atPath: PackageFolder.root.path + "/Tiles/samples/zurich-osrm-route.json"))
        let json = [("Authorization", "Bearer \(Self.token)"), ("Content-Type", "application/json")]
        try await TestServer.with(.routes([], options: TestServer.options()), configure: configure) { server in
            let bad = try await server.request(.POST, "/routes?depart_at=soon", headers: json, body: Array(osrm))
            #expect(bad.status == 400 && bad.text.contains("depart_at"), "\(bad.text)")
            let planned = try await server.request(.POST, "/routes?depart_at=2026-11-27T08:00:00Z", headers: json, body: Array(osrm))
            #expect(planned.status == 201, "\(planned.text)")
            let list = try await server.get("/routes").json["routes"] as? [[String: Any]] ?? []
            let timed = list.filter { $0["first_time"] != nil }
            #expect(!timed.isEmpty && timed.allSatisfy { $0["first_time"] as? String == "2026-11-27T08:00:00Z" }, "\(list)")
            // The main route's planned arrival is its departure and its duration, to the second.
            let main = try #require(timed.max { ($0["points"] as? Int ?? 0) < ($1["points"] as? Int ?? 0) })
            let duration = try #require(main["duration_s"] as? Double)
            let last = try TimeValue.parse(try #require(main["last_time"] as? String))
            let departure = try TimeValue.parse("2026-11-27T08:00:00Z")
            #expect(abs(Double(last - departure) / 1000 - duration) <= 1, "arrives \(last), duration \(duration) s")
            // Without it, the same response gives routes without times (numbered anew: directions have no ids).
            #expect(try await server.request(.POST, "/routes", headers: json, body: Array(osrm)).status == 201)
            let before = Set(list.compactMap { $0["id"] as? String })
            let added = (try await server.get("/routes").json["routes"] as? [[String: Any]] ?? [])
                .filter { !before.contains($0["id"] as? String ?? "") }
            #expect(added.count == list.count && added.allSatisfy { $0["first_time"] == nil }, "\(added)")
        }
    }

    @Test func fixFiltersDropImplausibleFixesAndSaySo() async throws {
        let configure: (inout ServerConfiguration) -> Void = {
            $0.writeToken = Self.token
            $0.fixFilter = FixFilter(maxSpeed: 50, minPeriod: 5_000, dropRepeated: true)
        }
        try await TestServer.with(.routes([], options: TestServer.options()), configure: configure) { server in
            let (body, stored) = timedFeature(id: "van", flatTimes: true)
            #expect(try await server.request(.POST, "/routes", headers: auth, body: body).status == 201)
            // The van's last fix: (2.34, 48.85) at 14:07:00Z. A jump of 10 km in 10 s, a fix 1 s after, a fix at the
            // last fix's place, and a plausible one.
            let reply = try await server.request(.POST, "/routes/van/points", headers: auth, body: fixes([
                (2.34, 48.95, "\"2026-11-27T14:07:10Z\""), (2.3401, 48.8501, "\"2026-11-27T14:07:01Z\""),
                (2.34, 48.85, "\"2026-11-27T14:07:20Z\""), (2.3405, 48.8505, "\"2026-11-27T14:07:30Z\""),
            ]))
            #expect(reply.status == 200, "\(reply.text)")
            let dropped = reply.json["dropped_positions"] as? [String: Int]
            #expect(dropped == ["invalid": 0, "zero": 0, "speed": 1, "period": 1, "repeated": 1], "\(reply.text)")
            #expect(try await self.times(of: server, "van") == stored + [Self.base + 150_000])
            let metrics = try await server.get("/metrics").text
            #expect(metrics.contains(#"routetiles_fixes_dropped_total{reason="speed"} 1"#), "\(metrics)")
        }
    }
}
