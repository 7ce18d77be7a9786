import Foundation
import RouteTiles
import Synchronization
import Testing
import RouteTilesCoreTestSupport

/// `LiveRouteSync.changes()` and `attach(_:)`: applications reach readers in order with their tiles, a reader that
/// falls behind gets a gap in place of what it missed (never silence, never a held-up writer), and attached caches
/// drop a write's tiles before it is answered, with the count in the answer.
@Suite struct LiveChangesTests {
    /// A cache that holds a set of tiles and records what it was told to drop.
    final class RecordingCache: LiveTileCache {
        private let held: Mutex<Set<TileID>>
        private let told = Mutex<[TileID]>([])

        init(holding tiles: Set<TileID>) { held = Mutex(tiles) }

        var dropped: [TileID] { told.withLock { $0 } }

        func drop(_ tiles: [TileID], subtrees: [TileID]) -> Int {
            told.withLock { $0 += tiles }
            return held.withLock { held in tiles.filter { held.remove($0) != nil }.count }
        }
    }

    static func van(_ rng: inout SeededGenerator) -> Route {
        Route(id: .string("van"), parts: [Sample.track(count: 50, lon: 2.3, lat: 48.85, step: 0.0004, using: &rng)])
    }

    static func fix(_ i: Int) -> [Coordinate] {
        [Coordinate(longitude: 2.32 + Double(i) * 0.002, latitude: 48.86 + Double(i % 3) * 0.001)]
    }

    /// Reads what is buffered, then stops.
    static func drain(_ changes: LiveChanges) async -> [LiveEvent] {
        changes.finish()
        var events: [LiveEvent] = []
        for await event in changes { events.append(event) }
        return events
    }

    @Test func applicationsArriveInOrderWithTheTilesTheWritesAnsweredWith() async throws {
        var rng = SeededGenerator(seed: 3)
        let sync = LiveRouteSync.inMemory(routes: [Self.van(&rng)], options: Sample.options(minZoom: 8, maxZoom: 14))
        let changes = sync.changes()
        var answered: [(sequence: Int64, tiles: [TileID])] = []
        for i in 0..<6 {
            guard case let .applied(change, _, sequences) = try await sync.write(.append(key: "van", points: Self.fix(i))),
                  let sequence = sequences?.upperBound
            else {
                Issue.record("write \(i) not applied")
                return
            }
            answered.append((sequence, change.invalidated))
        }
        let events = await Self.drain(changes)
        let applied = events.compactMap { event -> LiveRouteSync.Applied? in
            if case let .applied(applied) = event { return applied }
            return nil
        }
        #expect(applied.count == events.count)
        #expect(applied.map(\.sequences.upperBound) == answered.map(\.sequence))
        #expect(applied.map(\.change.invalidated) == answered.map(\.tiles))
        #expect(answered.allSatisfy { !$0.tiles.isEmpty })
    }

    @Test(arguments: [1, 2, 5])
    func aReaderThatFallsBehindGetsAGapCoveringEverythingItMissed(eventLimit: Int) async throws {
        var rng = SeededGenerator(seed: 4)
        let sync = LiveRouteSync.inMemory(routes: [Self.van(&rng)], options: Sample.options(minZoom: 8, maxZoom: 14))
        let changes = sync.changes(eventLimit: eventLimit)
        let start = sync.status.applied + 1
        let writes = 12
        for i in 0..<writes { _ = try await sync.write(.append(key: "van", points: Self.fix(i))) }
        let events = await Self.drain(changes)
        #expect(events.count <= eventLimit)
        #expect(changes.gaps >= 1)
        // Every sequence is covered once, in order, by an application or the gap at the end.
        var next = start
        var changeCount = 0
        for (index, event) in events.enumerated() {
            switch event {
            case let .applied(applied):
                #expect(applied.sequences.lowerBound == next)
                next = applied.sequences.upperBound + 1
                changeCount += applied.changeCount
            case let .gap(gap):
                #expect(index == events.count - 1, "a gap absorbs every application after it")
                #expect(gap.sequences.lowerBound == next)
                next = gap.sequences.upperBound + 1
                changeCount += gap.changeCount
                #expect(gap.generation == sync.routes.snapshot.generation)
            default:
                Issue.record("unexpected \(event)")
            }
        }
        #expect(next == start + Int64(writes))
        #expect(changeCount == writes)
    }

    @Test func tilesPastTheTileLimitMakeAGapEvenWithRoomForEvents() async throws {
        var rng = SeededGenerator(seed: 5)
        let sync = LiveRouteSync.inMemory(routes: [Self.van(&rng)], options: Sample.options(minZoom: 0, maxZoom: 14))
        let changes = sync.changes(eventLimit: 100, tileLimit: 40)
        let start = sync.status.applied + 1
        let long = Route(id: .string("long"), parts: [Sample.track(count: 400, lon: 2.0, lat: 48.0, step: 0.01,
                                                                   using: &rng)])
        guard case let .applied(change, _, _) = try await sync.write(.put([long])) else {
            Issue.record("not applied")
            return
        }
        #expect(change.invalidated.count > 40)
        _ = try await sync.write(.append(key: "van", points: Self.fix(1)))
        let events = await Self.drain(changes)
        #expect(events.count == 1)
        guard case let .gap(gap) = events.first else {
            Issue.record("expected a gap, got \(events)")
            return
        }
        #expect(gap.sequences == start...start + 1)
        #expect(gap.changeCount == 2)
    }

    @Test func aReaderWaitingIsWokenByTheNextApplication() async throws {
        var rng = SeededGenerator(seed: 6)
        let sync = LiveRouteSync.inMemory(routes: [Self.van(&rng)], options: Sample.options(minZoom: 8, maxZoom: 14))
        let changes = sync.changes()
        let reader = Task { () -> LiveEvent? in
            var iterator = changes.makeAsyncIterator()
            return await iterator.next()
        }
        _ = try await sync.write(.append(key: "van", points: Self.fix(0)))
        guard case let .applied(applied) = await reader.value else {
            Issue.record("the reader was not woken with the application")
            return
        }
        #expect(applied.sequences.upperBound == sync.status.applied)
        changes.finish()
    }

    @Test func attachedCachesDropAWritesTilesBeforeItIsAnsweredAndTheAnswerCountsThem() async throws {
        var rng = SeededGenerator(seed: 7)
        let sync = LiveRouteSync.inMemory(routes: [Self.van(&rng)], options: Sample.options(minZoom: 8, maxZoom: 14))
        // Find the tiles a first fix invalidates, then hold half of them in two caches (one tile in both).
        guard case let .applied(first, _, _) = try await sync.write(.append(key: "van", points: Self.fix(0))) else {
            Issue.record("not applied")
            return
        }
        #expect(first.cachedTilesDropped == 0)
        let again = Self.fix(0).map { Coordinate(longitude: $0.longitude + 0.0001, latitude: $0.latitude) }
        // The next fix, a step away, changes the same neighbourhood.
        let a = RecordingCache(holding: Set(first.invalidated.prefix(3)))
        let b = RecordingCache(holding: Set(first.invalidated.suffix(2)))
        sync.attach(a)
        sync.attach(b)
        guard case let .applied(second, _, _) = try await sync.write(.append(key: "van", points: again)) else {
            Issue.record("not applied")
            return
        }
        // Both caches were told before the answer, of exactly the tiles the answer names.
        #expect(a.dropped == second.invalidated)
        #expect(b.dropped == second.invalidated)
        let held = Set(first.invalidated.prefix(3)).intersection(second.invalidated).count
            + Set(first.invalidated.suffix(2)).intersection(second.invalidated).count
        #expect(held > 0)
        #expect(second.cachedTilesDropped == held)
    }
}
