import Foundation
import RouteTiles
import Synchronization
import Testing
import RouteTilesCoreTestSupport

/// `LiveRouteSync`'s group commit: writers that arrive while a commit is in flight share the next one, each is
/// answered only once the transaction that carried it has committed, and writes to one route keep their order.
@Suite struct GroupCommitTests {
    /// A memory store that tests wrap: everything goes to `inner`; subclasses change `commit(batch:)`.
    class WrappedMemoryStore: RouteStore, @unchecked Sendable {
        let inner: MemoryRouteStore

        init(routes: [Route]) { inner = MemoryRouteStore(routes: routes) }

        var displayName: String { "wrapped memory" }
        var isDurable: Bool { false }
        func loadAll() async throws -> RouteStoreSnapshot { try await inner.loadAll() }
        func rows(_ keys: [String]) async throws -> [String: StoredRow] { try await inner.rows(keys) }
        func changes(after sequence: Int64, limit: Int) async throws -> [RouteChange] {
            try await inner.changes(after: sequence, limit: limit)
        }
        func newestSequence() async throws -> Int64 { try await inner.newestSequence() }
        func commit(_ write: RouteWrite) async throws -> RouteWriteResult { try await commit(batch: [write])[0].get() }
        func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
            try await inner.commit(batch: writes)
        }
        func importRecords() async throws -> [String: RouteImportRecord] { [:] }
        func importRoutes(_ entries: [RouteImportEntry]) async throws -> RouteImportResult { RouteImportResult() }
        func wakeUps() -> AsyncStream<Void> { AsyncStream { _ in } }
        func close() async {}
    }

    /// A memory store whose commits take a while and say when they are done: a write's sequence counts as committed
    /// only once `commit(batch:)` has returned it. The first commit waits at `gate`.
    final class SlowStore: WrappedMemoryStore, @unchecked Sendable {
        let gate = AsyncGate()
        private let log = Mutex<(committed: Set<Int64>, batches: [Int])>(([], []))

        var committed: Set<Int64> { log.withLock { $0.committed } }
        var batches: [Int] { log.withLock { $0.batches } }

        override func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
            await gate.wait()
            let results = try await inner.commit(batch: writes)
            // The transaction is still "committing": a write answered now would be answered too early.
            try await Task.sleep(for: .milliseconds(15))
            log.withLock { log in
                for case let .success(.committed(changes, _)) in results {
                    for change in changes { log.committed.insert(change.sequence) }
                }
                log.batches.append(writes.count)
            }
            return results
        }
    }

    @Test func concurrentWritersShareCommitsAndAreAnsweredOnlyAfterTheirs() async throws {
        var rng = SeededGenerator(seed: 90)
        let options = Sample.options(minZoom: 10, maxZoom: 12)
        let routes = (0..<40).map { i in
            Route(id: .string("v\(i)"), parts: [Sample.track(count: 20, lon: 2.3, lat: 48.85, step: 0.0005, using: &rng)])
        }
        let store = SlowStore(routes: routes)
        let (sync, _) = try await LiveRouteSync.open(store: store, options: options)
        let early = SharedCounter()
        let answered = SharedCounter()
        // Each of 40 writers sends 5 appends to its own route, one after the other; 40 more send batches.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                group.addTask {
                    for step in 0..<5 {
                        let fix = Coordinate(longitude: 2.3 + Double(step) * 0.001, latitude: 48.86 + Double(i) * 0.0001)
                        let outcome = try await sync.write(.append(key: "v\(i)", points: [fix]))
                        guard case let .applied(_, _, sequences?) = outcome else {
                            Issue.record("v\(i) step \(step): \(outcome)")
                            continue
                        }
                        if !store.committed.contains(sequences.upperBound) { early.increment() }
                        answered.increment()
                    }
                }
            }
            for i in 0..<10 {
                group.addTask {
                    let keys = (0..<4).map { "v\((i * 4 + $0) % 40)" }
                    let outcomes = try await sync.write(batch: keys.map {
                        .append(key: $0, points: [Coordinate(longitude: 2.25, latitude: 48.8)])
                    })
                    for outcome in outcomes {
                        guard case let .applied(_, _, sequences?) = try outcome.get() else { continue }
                        if !store.committed.contains(sequences.upperBound) { early.increment() }
                        answered.increment()
                    }
                }
            }
            // Every writer has queued its first write behind the held first commit.
            let deadline = ContinuousClock.now + .seconds(60)
            while sync.writesQueued < 50, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(sync.writesQueued == 50)
            store.gate.open()
            try await group.waitForAll()
        }
        #expect(early.count == 0, "\(early.count) writes answered before their commit")
        let writes = 40 * 5 + 40
        #expect(answered.count == writes)
        let batches = store.batches
        let carried = batches.reduce(0, +)
        #expect(carried == writes)
        // 240 writes: shared commits, far fewer than one each.
        #expect(batches.count < 120, "\(batches.count) commits: \(batches.prefix(20))")
        let largest = batches.max() ?? 0
        #expect(largest > 10)
        #expect(sync.status.commits == batches.count)
        #expect(sync.status.writesCommitted == writes)

        // Order per route: every route holds its 5 fixes in the order sent (the batch fixes at 2.25 anywhere).
        let snapshot = try await store.loadAll()
        for stored in snapshot.routes {
            let own = stored.route.parts[0].dropFirst(20).filter { $0.longitude != 2.25 }.map(\.longitude)
            #expect(own == (0..<5).map { 2.3 + Double($0) * 0.001 }, "\(stored.key): \(own)")
        }
        // The live routes' tiles are those of the store's routes.
        let truth = RouteTiler(routes: snapshot.routes.map(\.route), options: options)
        for tile in RouteTiler(routes: snapshot.routes.map(\.route), options: options).cover() {
            #expect(try sync.routes.snapshot.tile(z: tile.z, x: tile.x, y: tile.y) == truth.tile(z: tile.z, x: tile.x, y: tile.y))
        }
    }

    /// A write refused alone (here: an append to a route of points, and to no route) does not fail the others of
    /// its transaction.
    @Test func aWriteRefusedAloneLeavesTheOthersOfItsCommit() async throws {
        let options = Sample.options(minZoom: 10, maxZoom: 12)
        let line = Route(id: .string("line"), parts: [[Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.31, latitude: 48.81)]])
        let points = Route(id: .string("stops"), parts: [[Coordinate(longitude: 2.3, latitude: 48.8)]], kind: .point)
        let sync = LiveRouteSync.inMemory(routes: [line, points], options: options)
        let outcomes = try await sync.write(batch: [
            .append(key: "stops", points: [Coordinate(longitude: 2.32, latitude: 48.82)]),
            .append(key: "nowhere", points: [Coordinate(longitude: 2.32, latitude: 48.82)]),
            .append(key: "line", points: [Coordinate(longitude: 2.32, latitude: 48.82)]),
        ])
        guard outcomes.count == 3 else { Issue.record("\(outcomes)"); return }
        if case .notALine("stops") = try outcomes[0].get() {} else { Issue.record("stops: \(outcomes[0])") }
        if case .notFound("nowhere") = try outcomes[1].get() {} else { Issue.record("nowhere: \(outcomes[1])") }
        if case .applied(_, ["line"], _) = try outcomes[2].get() {} else { Issue.record("line: \(outcomes[2])") }
        #expect(sync.routes.pointCount(of: "line") == 3)
    }

    /// A memory store that, once a commit is done, has a catch-up apply it before the write's own round can (as a
    /// store's notice of that very commit wakes the follower of a PostgreSQL replica).
    final class EagerFollowerStore: WrappedMemoryStore, @unchecked Sendable {
        let sync = Mutex<LiveRouteSync?>(nil)

        override func commit(batch writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
            let results = try await inner.commit(batch: writes)
            if let sync = sync.withLock({ $0 }) { _ = try await sync.catchUp() }
            return results
        }
    }

    /// A write that a catch-up applied before the write's own round answers with the tiles that catch-up
    /// invalidated for it, not with none: the same tiles as when its round applies it.
    @Test func aWriteAppliedByACatchUpFirstAnswersWithItsTiles() async throws {
        let options = TilingOptions()
        var rng = SeededGenerator(seed: 8)
        let track = Sample.track(count: 300, lon: 2.3, lat: 48.85, step: 0.0003, using: &rng)
        let fix = [Coordinate(longitude: 2.31, latitude: 48.86)]
        func invalidated(eager: Bool) async throws -> [TileID] {
            let store = EagerFollowerStore(routes: [Route(id: .string("van"), parts: [track])])
            let (sync, _) = try await LiveRouteSync.open(store: store, options: options)
            if eager { store.sync.withLock { $0 = sync } }
            guard case let .applied(change, _, _) = try await sync.write(.append(key: "van", points: fix)) else {
                Issue.record("not applied")
                return []
            }
            return change.invalidated
        }
        let own = try await invalidated(eager: false)
        #expect(!own.isEmpty)
        #expect(try await invalidated(eager: true) == own)
    }
}
