import Foundation
import Logging
import Synchronization
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport

/// `LiveChangeConsumer`: what it hands on, in order, and what it does when it fell behind its bounds (a gap): the
/// expire log says the whole world changed, observers get one change of the whole world (a purger sends one ban),
/// the gap is counted, and writes were never held up meanwhile.
@Suite struct LiveChangeConsumerTests {
    static func van() -> Route {
        var rng = SeededGenerator(seed: 11)
        return Route(id: .string("van"), parts: [Sample.track(count: 40, lon: 2.3, lat: 48.85, step: 0.0004, using: &rng)])
    }

    static func fix(_ i: Int) -> RouteWrite {
        .append(key: "van", points: [Coordinate(longitude: 2.32 + Double(i) * 0.003, latitude: 48.86)])
    }

    struct Harness {
        let sync: LiveRouteSync
        let consumer: LiveChangeConsumer
        let metrics: ServerMetrics
        let expireLog: URL
        let folder: TemporaryFolder
        let seen = Seen()

        init(eventLimit: Int) throws {
            folder = try TemporaryFolder()
            expireLog = URL(fileURLWithPath: folder.path("expire.log"))
            sync = LiveRouteSync.inMemory(routes: [LiveChangeConsumerTests.van()], options: Sample.options(minZoom: 8, maxZoom: 13))
            metrics = ServerMetrics()
            consumer = LiveChangeConsumer(sync: sync, events: ChangeEvents(), expireLog: try ExpireLog(path: expireLog.path),
                                          metrics: metrics, logger: Logger(label: "test"), eventLimit: eventLimit)
            let seen = self.seen
            consumer.observeInvalidatedTiles { change in seen.add(change) }
        }

        /// Appends `count` fixes, one write each; returns the tiles each write's answer named.
        func writeFixes(_ count: Int) async throws -> [[TileID]] {
            var written: [[TileID]] = []
            for i in 0..<count {
                guard case let .applied(change, _, _) = try await sync.write(LiveChangeConsumerTests.fix(i)) else {
                    Issue.record("write \(i) not applied")
                    return written
                }
                written.append(change.invalidated)
            }
            return written
        }

        /// Hands on what is buffered, then stops (as at a graceful shutdown).
        func drain() async throws {
            consumer.changes.finish()
            try await consumer.run()
        }

        var lines: [String] {
            ((try? String(contentsOf: expireLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func metric(_ name: String) -> Double? {
            let text = String(decoding: metrics.exposition(), as: UTF8.self)
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
        }
    }

    final class Seen: Sendable {
        private let changes = Mutex<[LiveRouteSet.Change]>([])
        func add(_ change: LiveRouteSet.Change) { changes.withLock { $0.append(change) } }
        var all: [LiveRouteSet.Change] { changes.withLock { $0 } }
    }

    @Test func everyApplicationIsHandedOnInOrderWithItsTiles() async throws {
        let harness = try Harness(eventLimit: 1024)
        let written = try await harness.writeFixes(5)
        try await harness.drain()
        #expect(harness.seen.all.map(\.invalidated) == written)
        #expect(harness.lines == written.flatMap { $0 }.map { "\($0.z)/\($0.x)/\($0.y)" })
        #expect(harness.metric("routetiles_store_changes_applied_total") == 5)
        #expect(harness.metric("routetiles_change_feed_gaps_total") ?? 0 == 0)
    }

    @Test func aConsumerBehindItsBoundCountsTheWholeWorldAsChanged() async throws {
        let harness = try Harness(eventLimit: 3)
        // Nobody reads while these are written: the writes are answered all the same.
        let written = try await harness.writeFixes(8)
        #expect(written.count == 8)
        try await harness.drain()
        let seen = harness.seen.all
        // The first two applications as they were; the gap, which took the third's place, as the whole world.
        #expect(seen.count == 3)
        #expect(seen.prefix(2).map(\.invalidated) == Array(written.prefix(2)))
        let world = TileID(z: 0, x: 0, y: 0)
        #expect(seen.last?.invalidated == [world] && seen.last?.subtrees == [world])
        let listed = written.prefix(2).flatMap { $0 }.map { "\($0.z)/\($0.x)/\($0.y)" }
        #expect(harness.lines == listed + ["0/0/0", "# subtree 0/0/0"])
        #expect(harness.metric("routetiles_change_feed_gaps_total") == 1)
        #expect(harness.metric("routetiles_store_changes_applied_total") == 8)
    }
}
