import Foundation
import RouteTiles
import Testing
@testable import RouteTilesRouteStore
import RouteTilesCoreTestSupport

/// Times kept by the memory store and a SQLite file (PostgreSQL: `PostgresStoreTests`): a route written with a time
/// on every position reads back with every time, to the millisecond, after a restart too; positions without times
/// cannot extend it; a trim keeps each kept position's time.
@Suite struct TimedRouteStoreTests {
    enum Kind: String, CaseIterable { case memory, sqlite }

    static func open(_ kind: Kind, in folder: TemporaryFolder) throws -> any RouteStore {
        switch kind {
        case .memory: return MemoryRouteStore()
        case .sqlite: return try SQLiteRouteStore(path: folder.path("routes.db"))
        }
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
}
