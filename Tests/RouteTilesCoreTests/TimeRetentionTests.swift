import Foundation
import Testing
import RouteTiles
@_spi(Columns) import RouteTilesModel
@_spi(Columns) import RouteTilesGeo
@testable import RouteTilesTiling
@testable import RouteTilesLive
@testable import RouteTilesRouteStore
import RouteTilesCoreTestSupport

/// Retention by time (`serve --keep-for`, the property `keep_for_s`): a trim drops the positions recorded before
/// the cutoff, whatever their number, and keeps the simplification blocks after the cut where they were
/// (`Route.trimmed`), so that it changes exactly the tiles of the dropped segments and of the block the cut falls
/// in; stores keep that phase, so a server started later, or a replica, cuts the same bytes.
@Suite struct TimeRetentionTests {
    static func options() -> TilingOptions {
        var options = Sample.options(minZoom: 0, maxZoom: 14)
        options.routeLength = false
        return options
    }

    /// A track with a time on every position: one every 1–20 s, ending `end` (milliseconds).
    static func timedRoute(seed: Int, count: Int = 1_000, end: Int64 = 1_795_788_300_000, key: String = "van") -> Route {
        var rng = SeededGenerator(seed: UInt64(500 + seed))
        let (lon, lat) = [(2.3, 48.85), (13.4, 52.5), (-73.98, 40.75)][seed % 3]
        let line = Sample.track(count: count, lon: lon, lat: lat, step: [0.0003, 0.002, 0.0008][seed % 3], using: &rng)
        var steps = (1..<count).map { _ in Int64.random(in: 1_000...20_000, using: &rng) }
        steps.insert(0, at: 0)
        var times: [Int64] = []
        var time = end - steps.reduce(0, +)
        for step in steps {
            time += step
            times.append(time)
        }
        return Route(id: .string(key), properties: [Property("name", .string(key))], parts: [line], times: times)
    }

    @Test func aTimeTrimDropsWhatIsOlderAndKeepsTheLastTwo() throws {
        let route = Self.timedRoute(seed: 0, count: 50)
        let times = try #require(route.times)
        let cutoff = times[17] + 1
        let trimmed = try #require(TrackRetention.trimmed(route, before: cutoff))
        #expect(trimmed.pointCount == 32 && trimmed.times == Array(times.dropFirst(18)))
        #expect(trimmed.parts == [Array(route.parts[0].dropFirst(18))])
        #expect(trimmed.trimmed == 18)
        // At the time of a position: that one stays.
        #expect(TrackRetention.trimmed(route, before: times[17])?.pointCount == 33)
        #expect(TrackRetention.trimmed(route, before: times[0]) == nil, "nothing older")
        // All older: the last two stay, the vehicle still shown where it was last seen.
        let all = try #require(TrackRetention.trimmed(route, before: times[49] + 60_000))
        #expect(all.pointCount == 2 && all.times == Array(times.suffix(2)) && all.trimmed == 48)
        #expect(TrackRetention.trimmed(all, before: times[49] + 60_000) == nil)
        // A second trim counts on from the first.
        #expect(TrackRetention.trimmed(trimmed, before: times[30])?.trimmed == 30)
        var untimed = route
        untimed.times = nil
        #expect(TrackRetention.trimmed(untimed, before: .max) == nil, "untimed tracks are not trimmed by time")
    }

    @Test func aTimeTrimAcrossPartsCountsTheCutOfTheFirstPartKept() throws {
        let base = Self.timedRoute(seed: 1, count: 40)
        var route = base
        route.parts = [Array(base.parts[0].prefix(10)), Array(base.parts[0].dropFirst(10))]
        route.trimmed = 7
        let times = try #require(base.times)
        // Into the second part: the first goes whole, and the second's own cut is the phase.
        let second = try #require(TrackRetention.trimmed(route, before: times[14]))
        #expect(second.parts == [Array(base.parts[0][14...])] && second.trimmed == 4)
        // Within the first part: the phase counts on from the route's.
        let first = try #require(TrackRetention.trimmed(route, before: times[3]))
        #expect(first.parts.count == 2 && first.parts[0].count == 7 && first.trimmed == 10)
        // A first part left with one position goes too.
        #expect(TrackRetention.trimmed(route, before: times[9])?.parts.count == 1)
    }

    @Test func theRoutesPropertyWinsOverTheServersBound() {
        let retention = TrackRetention(keepFor: 7_200)
        #expect(retention.keepFor(for: []) == 7_200)
        #expect(retention.keepFor(for: [Property("keep_for_s", .int(600))]) == 600)
        #expect(retention.keepFor(for: [Property("keep_for_s", .double(90.5))]) == 90)
        #expect(retention.keepFor(for: [Property("keep_for_s", .string("10m"))]) == 7_200, "not a number")
        #expect(retention.keepFor(for: [Property("keep_for_s", .int(0))]) == 7_200, "not positive")
        #expect(TrackRetention().keepFor(for: [Property("keep_for_s", .uint(30))]) == 30)
        #expect(TrackRetention().keepFor(for: []) == nil)
    }

    /// The property: for random cuts (by time, so any number of positions) of tracks already trimmed by a random
    /// amount, every tile whose bytes change is listed, the list is exactly the tiles of the dropped segments and of
    /// the block the cut falls in, the cover loses exactly what is left, and every vertex after that block keeps
    /// its importance.
    @Test(arguments: 0..<6)
    func aTimeTrimChangesOnlyTheTilesOfTheDroppedSegmentsAndTheirBlock(seed: Int) throws {
        let options = Self.options()
        var rng = SeededGenerator(seed: UInt64(900 + seed))
        var route = Self.timedRoute(seed: seed)
        route.trimmed = Int.random(in: 0..<2_000, using: &rng)
        let times = try #require(route.times)
        let old = RouteTiler(routes: [route], options: options)
        let cutoff = times[Int.random(in: 1..<700, using: &rng)] + Int64.random(in: 0...1, using: &rng)
        let trimmedRoute = try #require(TrackRetention.trimmed(route, before: cutoff))
        let cut = route.pointCount - trimmedRoute.pointCount
        #expect(trimmedRoute.times?.first.map { $0 >= cutoff } == true && times[cut - 1] < cutoff)
        let new = RouteTiler(routes: [trimmedRoute], options: options)
        let trim = try #require(new.tilesChanged(byTrimming: old), "seed \(seed): a trim by time not recognised")
        var changed = Set<TileID>()
        for tile in old.cover() where old.tile(tile) != new.tile(tile) { changed.insert(tile) }
        #expect(!changed.isEmpty)
        #expect(changed.isSubset(of: Set(trim.changed)), "seed \(seed): \(changed.subtracting(trim.changed).prefix(3)) not invalidated")
        // The bound: the old block the cut falls in ends at the first boundary of the old grid at or after the cut.
        let phase = route.trimmed % 256
        let blockEnd = min((phase + cut + 255) / 256 * 256 - phase, route.pointCount - 1)
        let prefix = Route(parts: [Array(route.parts[0].prefix(blockEnd + 1))])
        #expect(Set(trim.changed) == RouteTiler(routes: [prefix], options: options).cover(), "seed \(seed)")
        #expect(new.cover() == old.cover().subtracting(trim.left), "seed \(seed)")
        #expect(Array(new.importance.dropFirst(blockEnd - cut + 1)) == Array(old.importance.dropFirst(blockEnd + 1)))
        // Without the phase, the same cut would move every block: it is no trim then.
        var unphased = trimmedRoute
        unphased.trimmed = route.trimmed
        if cut % 256 != 0 {
            #expect(RouteTiler(routes: [unphased], options: options).tilesChanged(byTrimming: old) == nil)
        }
    }

    /// A track trimmed by time and then appended to: the tiles the live set serves are those of a set built from the
    /// stored route (the phase of its blocks included), in a fresh server too.
    @Test(arguments: RouteStoreImportTests.Kind.allCases)
    func trimsGoThroughTheStoreAndAFreshServerCutsTheSameTiles(kind: RouteStoreImportTests.Kind) async throws {
        let folder = try TemporaryFolder()
        let store = try RouteStoreImportTests.open(kind, in: folder)
        var options = Self.options()
        options.positionLayer = "positions"
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var van = Self.timedRoute(seed: 2, count: 700, end: now - 60_000)
        van.properties.append(Property("keep_for_s", .int(3_600)))
        let vanTimes = try #require(van.times)
        let bus = Self.timedRoute(seed: 0, count: 300, end: now - 60_000, key: "bus")
        let bike = Self.timedRoute(seed: 1, count: 300, end: now - 3 * 86_400_000, key: "bike")
        _ = try await store.commit(.put([van, bus, bike]))
        let (sync, _) = try await LiveRouteSync.open(store: store, options: options,
                                                     retention: TrackRetention(keepFor: 2 * 86_400))
        _ = sync.routes.fillCovers()
        let before = sync.routes.snapshot
        let changes = sync.changes()
        let asked = await sync.trimOldPositions(now: now)
        #expect(asked == 2, "the van (its own hour) and the bike (older than two days); the bus is within both")
        let rows = try await store.rows(["van", "bus", "bike"])
        func held(_ key: String) throws -> StoredRoute {
            try #require(rows[key].flatMap { if case let .route(r) = $0 { r } else { nil } }, "no route \(key)")
        }
        let storedVan = try held("van")
        let cutoff = now - 3_600_000
        let kept = vanTimes.filter { $0 >= cutoff }.count
        #expect(storedVan.route.pointCount == kept && storedVan.route.trimmed == 700 - kept)
        #expect(storedVan.route.times?.first.map { $0 >= cutoff } == true)
        #expect(try held("bike").route.pointCount == 2)
        #expect(try held("bus").route.pointCount == 300)
        // Exactly the tiles that changed were announced.
        // The trims were committed and applied before `trimOldPositions` returned: what they announced is buffered.
        changes.finish()
        var announced = Set<TileID>()
        for await event in changes {
            guard case let .applied(applied) = event else { continue }
            #expect(applied.change.subtrees.isEmpty)
            announced.formUnion(applied.change.invalidated)
        }
        let after = sync.routes.snapshot
        let truthBefore = RouteTiler(routes: [van, bus, bike], options: options)
        for tile in truthBefore.cover() where tile.z >= 10 {
            let a = try before.tile(z: tile.z, x: tile.x, y: tile.y), b = try after.tile(z: tile.z, x: tile.x, y: tile.y)
            if a != b { #expect(announced.contains(tile), "\(tile) changed and was not announced") }
        }
        // An append after the trim, then a server started afresh from the store: the same bytes everywhere.
        let last = try #require(van.parts[0].last)
        let fix = Coordinate(longitude: last.longitude + 1e-4, latitude: last.latitude)
        _ = try await sync.write(.appendTimed(key: "van", points: [fix], times: [now]))
        let (fresh, _) = try await LiveRouteSync.open(store: store, options: options)
        let stored = try await store.rows(["van"])
        let vanNow = try #require(stored["van"].flatMap { if case let .route(r) = $0 { r } else { nil } })
        #expect(vanNow.route.trimmed == 700 - kept)
        let truth = RouteTiler(routes: [vanNow.route], options: options)
        for tile in truth.cover() where tile.z >= 12 {
            let live = try sync.routes.snapshot.tile(z: tile.z, x: tile.x, y: tile.y)
            let restarted = try fresh.routes.snapshot.tile(z: tile.z, x: tile.x, y: tile.y)
            #expect(live == restarted, "\(tile): the live server and a fresh one differ")
        }
    }
}
