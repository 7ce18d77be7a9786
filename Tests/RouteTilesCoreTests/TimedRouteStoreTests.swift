import Foundation
import RouteTiles
import Testing
@testable import RouteTilesRouteStore
import RouteTilesCoreTestSupport

/// Times kept by the memory store and a SQLite file (PostgreSQL: `PostgresStoreTests`): a route written with a time
/// on every position reads back with every time, to the millisecond, after a restart too; positions without times
/// cannot extend it; a trim keeps each kept position's time.
@Suite struct TimedRouteStoreTests {
    /// The stores of the import tests, opened as they open them.
    typealias Kind = RouteStoreImportTests.Kind

    static func open(_ kind: Kind, in folder: TemporaryFolder) throws -> any RouteStore {
        try RouteStoreImportTests.open(kind, in: folder)
    }

    /// A van's track in two parts, with a time on every position (milliseconds, repeated and uneven steps).
    static func timedTrack(_ rng: inout SeededGenerator, key: String = "van") -> Route {
        var time: Int64 = 1_795_788_300_000 + Int64.random(in: 0...999, using: &rng)
        var parts: [[Coordinate]] = []
        var times: [Int64] = []
        for _ in 0..<2 {
            let part = Sample.track(count: Int.random(in: 2...300, using: &rng), lon: 2.35, lat: 48.85, step: 0.0005,
                                    using: &rng)
            for _ in part {
                times.append(time)
                time += Int64.random(in: 0...15_000, using: &rng)
            }
            parts.append(part)
        }
        return Route(id: .string(key), properties: [Property("name", .string(key))], parts: parts, times: times)
    }

    @Test(arguments: Kind.allCases)
    func aRouteWithTimesReadsBackToTheMillisecond(kind: Kind) async throws {
        let folder = try TemporaryFolder()
        var rng = SeededGenerator(seed: 3501)
        let timed = Self.timedTrack(&rng)
        let untimed = Route(id: .string("plain"), parts: Sample.parisRoutes(count: 1, points: 30)[0].parts)
        var store = try Self.open(kind, in: folder)
        _ = try await store.commit(.put([timed, untimed]))
        for round in 0..<2 {
            let rows = try await store.rows(["van", "plain"])
            guard case let .route(van)? = rows["van"], case let .route(plain)? = rows["plain"] else {
                Issue.record("rows: \(rows)")
                return
            }
            #expect(van.route.times == timed.times && van.route.parts == timed.parts, "round \(round)")
            #expect(plain.route.times == nil)
            #expect(try await store.loadAll().routes.first { $0.key == "van" }?.route.times == timed.times)
            guard kind == .sqlite else { break }
            await store.close()
            store = try Self.open(kind, in: folder)
        }
        await store.close()
    }

    @Test(arguments: Kind.allCases)
    func positionsWithoutTimesDoNotExtendATimedRoute(kind: Kind) async throws {
        let folder = try TemporaryFolder()
        var rng = SeededGenerator(seed: 3502)
        let store = try Self.open(kind, in: folder)
        _ = try await store.commit(.put([Self.timedTrack(&rng),
                                         Route(id: .string("plain"), parts: Sample.parisRoutes(count: 1, points: 30)[0].parts)]))
        let newest = try await store.newestSequence()
        let added = [Coordinate(longitude: 2.36, latitude: 48.86)]
        guard case .timesDiffer(key: "van", routeHasTimes: true) = try await store.commit(.append(key: "van", points: added)) else {
            Issue.record("an untimed append to a timed route was not refused")
            return
        }
        #expect(try await store.newestSequence() == newest)
        guard case .committed = try await store.commit(.append(key: "plain", points: added)) else {
            Issue.record("an untimed append to an untimed route was refused")
            return
        }
        await store.close()
    }

    /// Whatever a trim drops, each position kept keeps its own time (a run at the end, parts flattened).
    @Test func aTrimKeepsEachPositionsTime() {
        var rng = SeededGenerator(seed: 3503)
        for _ in 0..<300 {
            let route = Self.timedTrack(&rng)
            let keep = Int.random(in: 2...700, using: &rng)
            guard let trimmed = TrackRetention.trimmed(route, keeping: keep) else { continue }
            let times = route.times ?? []
            let kept = trimmed.pointCount
            #expect(trimmed.timeProblem() == nil)
            // The positions kept are a run at the end, parts flattened, and so are their times.
            #expect(trimmed.parts.flatMap { $0 } == Array(route.parts.flatMap { $0 }.suffix(kept)))
            #expect(trimmed.times == Array(times.suffix(kept)))
        }
    }

    @Test func aStoredRowWhoseTimesGoBackIsABadRow() {
        let line = [Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.4, latitude: 48.9)]
        let wkb = WellKnownBinary.encode(Route(parts: [line], times: [10_000, 5_000]))
        guard case let .bad(problem) = StoredRouteCodec.route(key: "k", version: 1, created: 1, properties: nil, wkb: wkb,
                                                             layer: nil, kind: "line", geodesic: false) else {
            Issue.record("a row whose times go back made a route")
            return
        }
        #expect(problem.message.contains("times (M): part 0, position 1"), "\(problem.message)")
        let good = WellKnownBinary.encode(Route(parts: [line], times: [5_000, 10_000]))
        guard case .bad = StoredRouteCodec.route(key: "k", version: 1, created: 1, properties: nil, wkb: good, layer: nil,
                                                 kind: "line", geodesic: false, tail: [line[0]]) else {
            Issue.record("a timed line with an untimed tail made a route")
            return
        }
    }

    @Test func theContentHashSeesTimes() {
        var rng = SeededGenerator(seed: 3504)
        let route = Self.timedTrack(&rng)
        var shifted = route
        shifted.times = route.times?.map { $0 + 1 }
        var untimed = route
        untimed.times = nil
        let hashes = Set([route, shifted, untimed].map { RouteContentHash.of($0, key: "van") })
        #expect(hashes.count == 3)
    }

    /// Property: fixes sent in any order, repeated, one or more at a time, end as the sorted timeline without
    /// duplicates, in every store, with every time in place; a store opened again reads the same.
    @Test(arguments: Kind.allCases)
    func fixesInAnyOrderEndInTimeOrderOnce(kind: Kind) async throws {
        let folder = try TemporaryFolder()
        var rng = SeededGenerator(seed: kind == .memory ? 3505 : 3506)
        var store = try Self.open(kind, in: folder)
        for round in 0..<8 {
            let key = "van\(round)"
            // The truth: a track of fixes a second or so apart.
            var time: Int64 = 1_795_788_300_000
            let track = Sample.track(count: 120, lon: 2.35, lat: 48.85, step: 0.0004, using: &rng).map { point -> (Coordinate, Int64) in
                time += Int64.random(in: 500...3000, using: &rng)
                return (point, time)
            }
            // Stored first: the first 20, in two parts when the round is odd.
            let first = Array(track.prefix(20))
            let parts = round % 2 == 1 ? [first.prefix(10).map(\.0), first.suffix(10).map(\.0)] : [first.map(\.0)]
            _ = try await store.commit(.put([Route(id: .string(key), parts: parts, times: first.map(\.1))]))
            // The rest, shuffled a little (late fixes), in batches, some sent twice (retries), some repeating stored ones.
            var rest = Array(track.dropFirst(20))
            for i in rest.indices where Int.random(in: 0..<4, using: &rng) == 0 {
                let j = min(rest.count - 1, i + Int.random(in: 1...6, using: &rng))
                rest.swapAt(i, j)
            }
            var sent = 0
            while sent < rest.count {
                let count = min(rest.count - sent, Int.random(in: 1...9, using: &rng))
                var batch = Array(rest[sent..<(sent + count)])
                if Bool.random(using: &rng) { batch += batch.prefix(2) }
                if Bool.random(using: &rng), let again = track.prefix(20 + sent).randomElement(using: &rng) { batch.append(again) }
                let result = try await store.commit(.appendTimed(key: key, points: batch.map(\.0), times: batch.map(\.1)))
                guard case .committed = result else {
                    Issue.record("round \(round): \(result)")
                    return
                }
                sent += count
            }
            if kind == .sqlite, round % 3 == 2 {
                await store.close()
                store = try Self.open(kind, in: folder)
            }
            guard case let .route(stored)? = try await store.rows([key])[key] else {
                Issue.record("round \(round): no route")
                return
            }
            #expect(stored.route.times == track.map(\.1), "round \(round)")
            #expect(stored.route.parts.flatMap { $0 } == track.map(\.0), "round \(round)")
            #expect(stored.route.timeProblem() == nil)
        }
        // A store's feed carries the times of its appends, for the replicas.
        let changes = try await store.changes(after: 0, limit: 10_000)
        #expect(changes.contains { $0.operation == .append && $0.times?.count == $0.points.count })
        #expect(changes.filter { $0.operation == .append }.allSatisfy { $0.times != nil })
        await store.close()
    }

    @Test(arguments: Kind.allCases)
    func fixesWithTimesDoNotExtendARouteWithout(kind: Kind) async throws {
        let folder = try TemporaryFolder()
        let store = try Self.open(kind, in: folder)
        _ = try await store.commit(.put([Route(id: .string("plain"), parts: Sample.parisRoutes(count: 1, points: 30)[0].parts)]))
        let result = try await store.commit(.appendTimed(key: "plain", points: [Coordinate(longitude: 2.3, latitude: 48.8)],
                                                         times: [1_795_788_300_000]))
        guard case .timesDiffer(key: "plain", routeHasTimes: false) = result else {
            Issue.record("\(result)")
            return
        }
        await store.close()
    }

    @Test func timedFixesPlanAndMerge() {
        let p = (0..<6).map { Coordinate(longitude: Double($0), latitude: 0) }
        // Sorted, a repeated time kept once (the first sent).
        let fixes = TimedFixes(points: [p[2], p[0], p[1], p[3]], times: [30, 10, 20, 10])
        #expect(fixes.times == [10, 20, 30] && fixes.points == [p[0], p[1], p[2]])
        #expect(fixes.plan(after: nil) == .append(fixes, duplicates: 0))
        #expect(fixes.plan(after: 5) == .append(fixes, duplicates: 0))
        #expect(fixes.plan(after: 10) == .append(TimedFixes(points: [p[1], p[2]], times: [20, 30]), duplicates: 1))
        #expect(fixes.plan(after: 15) == .merge)
        // A route of two parts, 100–130 and 200–210: a fix before it, in a part, in the gap, at a held time, after it.
        let route = Route(parts: [[p[0], p[1], p[2]], [p[3], p[4]]], times: [100, 120, 130, 200, 210])
        let late = TimedFixes(points: [p[5], p[5], p[5], p[5], p[5]], times: [50, 110, 150, 120, 300])
        let (merged, duplicates) = late.merged(into: route)
        #expect(duplicates == 1)
        #expect(merged?.times == [50, 100, 110, 120, 130, 150, 200, 210, 300])
        #expect(merged?.parts.map(\.count) == [6, 3])
        #expect(merged?.parts[0][0] == p[5] && merged?.parts[0][2] == p[5] && merged?.parts[0][5] == p[5])
        #expect(TimedFixes(points: [p[0]], times: [120]).merged(into: route).route == nil)
    }
}
