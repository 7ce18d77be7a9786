import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import RouteTiles
import RouteTilesServer
import RouteTilesCoreTestSupport

/// One writer of random route writes over HTTP, as an app would send them: on keys of its own, one write at a time,
/// with a model of what its acknowledged writes made (a `MemoryRouteStore` given the same writes).
///
/// A write that got no answer (the server was killed) or a 503 may or may not have been committed, so its key
/// becomes uncertain: the writer leaves it alone from then on, and `problems(in:)` checks every other key exactly.
package final class HTTPRouteWriter: @unchecked Sendable {
    package let prefix: String
    package let token: String
    package let model = MemoryRouteStore()
    private var rng: SeededGenerator
    private var created = 0

    /// Keys whose state is not known: a write to them got no answer, or a 503.
    package private(set) var uncertain: Set<String> = []
    /// Requests that got no answer or a 503 (a batched append makes several keys uncertain at once).
    package private(set) var uncertainRequests = 0
    package private(set) var acknowledged = 0
    /// Writes answered 503, each with `Retry-After`, and how long each took to be answered.
    package private(set) var unavailable = 0
    package private(set) var unavailableAfter: [Duration] = []
    /// Answers other than 2xx, 503 and none (with the write): each one a defect.
    package private(set) var unexpected: [String] = []
    /// Every route sent, for the tiles to compare.
    package private(set) var sent: [Route] = []
    /// When each acknowledged write was answered, and the store sequence it reported.
    package private(set) var acknowledgedAt: [(Date, Int64)] = []
    package private(set) var lastError: String?

    package init(prefix: String, token: String, seed: UInt64) {
        self.prefix = prefix
        self.token = token
        rng = SeededGenerator(seed: seed)
    }

    package enum Answer {
        case acknowledged
        case unavailable
        case noAnswer(String)
        case unexpected(Int)
    }

    /// Writes until `stop` says so, the server stops answering (after `giveUpAfterNoAnswer`), or `limit` writes.
    package func run(base: @escaping @Sendable () -> String, limit: Int, stopOnNoAnswer: Bool = true,
             pause: Duration = .zero, stop: @escaping @Sendable () -> Bool) async {
        for _ in 0..<limit where !stop() {
            let answer = await step(base: base())
            if case .noAnswer = answer, stopOnNoAnswer { return }
            if pause > .zero { try? await Task.sleep(for: pause) }
        }
    }

    private func line(_ count: Int, near start: Coordinate? = nil) -> [Coordinate] {
        let lon = start?.longitude ?? .random(in: 2.28...2.40, using: &rng)
        let lat = start?.latitude ?? .random(in: 48.82...48.89, using: &rng)
        return Sample.track(count: count, lon: lon, lat: lat, step: 0.0006, using: &rng)
    }

    /// One random write: a new route, a replacement, an append (alone, or of two or three routes in one
    /// `POST /routes/points`), or a removal, on this writer's certain keys.
    @discardableResult
    package func step(base: String) async -> Answer {
        let known = model.snapshot().routes.map(\.key).filter { !uncertain.contains($0) }
        let roll = Int.random(in: 0..<100, using: &rng)
        var writes: [RouteWrite] = []
        let method: HTTPMethod
        let path: String
        let body: [UInt8]
        /// The keys the request writes.
        var touched: [String] = []
        if known.count >= 2, roll >= 80, roll < 92 {
            // Appends to several routes in one request.
            var lists: [String] = []
            for key in known.shuffled(using: &rng).prefix(Int.random(in: 2...3, using: &rng)) {
                let current = model.snapshot().routes.first { $0.key == key }?.route
                let points = Array(line(4, near: current?.parts.last?.last).dropFirst())
                writes.append(.append(key: key, points: points))
                touched.append(key)
                lists.append("\"\(key)\": [" + points.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",") + "]")
                if var route = current {
                    route.parts[route.parts.count - 1] += points
                    sent.append(route)
                }
            }
            (method, path, body) = (.POST, "/routes/points", Array(("{" + lists.joined(separator: ",") + "}").utf8))
        } else if known.isEmpty || roll < 40 {
            created += 1
            let key = "\(prefix)-\(created)"
            let route = Route(id: .string(key), properties: [Property("name", .string("\(key) v1"))], parts: [line(24)])
            writes = [.put([route])]
            touched = [key]
            (method, path, body) = (.POST, "/routes", Self.feature(route))
            sent.append(route)
        } else {
            let key = known.randomElement(using: &rng) ?? known[0]
            let current = model.snapshot().routes.first { $0.key == key }?.route
            touched = [key]
            if roll < 60 {
                let route = Route(properties: [Property("name", .string("\(key) at \(roll)"))], parts: [line(18)])
                writes = [.replace(key: key, route: route)]
                (method, path, body) = (.PUT, "/routes/\(key)", Self.feature(route))
                var sentRoute = route
                sentRoute.id = .string(key)
                sent.append(sentRoute)
            } else if roll < 85 {
                let points = Array(line(6, near: current?.parts.last?.last).dropFirst())
                writes = [.append(key: key, points: points)]
                let text = "[" + points.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",") + "]"
                (method, path, body) = (.POST, "/routes/\(key)/points", Array(text.utf8))
                if var route = current {
                    route.parts[route.parts.count - 1] += points
                    sent.append(route)
                }
            } else {
                writes = [.remove(key: key)]
                (method, path, body) = (.DELETE, "/routes/\(key)", [])
            }
        }
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/geo+json")
        if !body.isEmpty { request.body = .bytes(ByteBuffer(bytes: body)) }
        let status: Int
        let reply: [UInt8]
        let retryAfter: String?
        let sentAt = ContinuousClock.now
        do {
            let response = try await TestServer.client.execute(request, timeout: .seconds(30))
            reply = Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "Retry-After")
        } catch {
            uncertain.formUnion(touched)
            uncertainRequests += 1
            lastError = "\(error)"
            return .noAnswer("\(error)")
        }
        switch status {
        case 200..<300:
            for write in writes {
                let outcome = try? await model.commit(write)
                guard case .committed? = outcome else {
                    unexpected.append("\(method) \(path): \(status), but the model says \(String(describing: outcome)): \(String(decoding: reply, as: UTF8.self))")
                    return .unexpected(status)
                }
            }
            if writes.count > 1 {
                let json = (try? JSONSerialization.jsonObject(with: Data(reply))) as? [String: Any]
                let applied = (json?["applied"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
                if Set(applied) != Set(touched) || !((json?["refused"] as? [Any])?.isEmpty ?? false) {
                    unexpected.append("\(method) \(path): \(status), but not every append was applied: \(String(decoding: reply, as: UTF8.self))")
                    return .unexpected(status)
                }
            }
            acknowledged += 1
            let json = (try? JSONSerialization.jsonObject(with: Data(reply))) as? [String: Any]
            acknowledgedAt.append((Date(), (json?["sequence"] as? NSNumber)?.int64Value ?? -1))
            return .acknowledged
        case 503:
            uncertain.formUnion(touched)
            uncertainRequests += 1
            unavailable += 1
            unavailableAfter.append(ContinuousClock.now - sentAt)
            if retryAfter == nil { unexpected.append("\(method) \(path): 503 without Retry-After") }
            return .unavailable
        default:
            unexpected.append("\(method) \(path): \(status) \(String(decoding: reply, as: UTF8.self))")
            return .unexpected(status)
        }
    }

    /// What differs between the routes `stored` holds under this writer's keys and what its acknowledged writes
    /// made; uncertain keys are left out.
    package func problems(in stored: [StoredRoute]) -> [String] {
        let mine = stored.filter { $0.key.hasPrefix(prefix + "-") && !uncertain.contains($0.key) }
        let expected = model.snapshot().routes.filter { !uncertain.contains($0.key) }
        var problems: [String] = []
        let have = Dictionary(mine.map { ($0.key, $0.route) }, uniquingKeysWith: { a, _ in a })
        let want = Dictionary(expected.map { ($0.key, $0.route) }, uniquingKeysWith: { a, _ in a })
        for key in Set(have.keys).union(want.keys).sorted() {
            guard let h = have[key] else { problems.append("\(key): acknowledged but missing"); continue }
            guard let w = want[key] else { problems.append("\(key): stored but its removal was acknowledged"); continue }
            if h.parts != w.parts { problems.append("\(key): \(h.pointCount) points stored, \(w.pointCount) acknowledged") }
            if h.properties != w.properties { problems.append("\(key): properties \(h.properties) != \(w.properties)") }
        }
        return problems
    }

    /// A route as the GeoJSON Feature a client sends.
    package static func feature(_ route: Route) -> [UInt8] {
        (try? JSONBody.bytes(RouteFeature(route))) ?? []
    }

    /// Routes as a GeoJSON FeatureCollection file, in order.
    package static func featureCollection(_ routes: [Route]) -> [UInt8] {
        let features = routes.map { (try? JSONBody.bytes(RouteFeature($0))) ?? [] }
        return Array(#"{"type":"FeatureCollection","features":["#.utf8) + Array(features.joined(separator: [UInt8(ascii: ",")]))
            + Array("]}".utf8)
    }
}

/// A flag that tasks raise and read (to stop writers).
package final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    package init() {}
    package var isRaised: Bool { raised.load(ordering: .relaxed) }
    package func raise() { raised.store(true, ordering: .relaxed) }
}
