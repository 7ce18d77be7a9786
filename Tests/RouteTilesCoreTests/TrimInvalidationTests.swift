import Foundation
import Testing
import RouteTiles
@_spi(Columns) import RouteTilesModel
@_spi(Columns) import RouteTilesGeo
@testable import RouteTilesTiling
@testable import RouteTilesLive
import RouteTilesCoreTestSupport

/// Trims of bounded tracks by whole simplification blocks (`TrackRetention`, `RouteTiler.tilesChanged(byTrimming:)`):
/// every tile whose bytes changed is one the dropped segments were drawn in, those are all that is invalidated, and
/// the route's cover loses exactly the tiles it no longer draws in.
@Suite struct TrimInvalidationTests {
    static func options() -> TilingOptions {
        var options = Sample.options(minZoom: 0, maxZoom: 12)
        options.routeLength = false
        return options
    }

    /// Around Paris, around Berlin with long steps, and across the antimeridian (written wrapped into ±180°).
    static func line(seed: Int) -> [Coordinate] {
        var rng = SeededGenerator(seed: UInt64(100 + seed))
        let (lon, lat) = [(2.3, 48.85), (13.4, 52.5), (179.99, -16.5)][seed % 3]
        let step = [0.0003, 0.002, 0.004][seed % 3]
        let track = Sample.track(count: 1_100 + seed * 37, lon: lon, lat: lat, step: step, using: &rng)
        return seed % 3 == 2 ? LiveTilingTests.wrapped(track) : track
    }

    @Test func largeBoundsAreKeptInWholeBlocks() throws {
        let line = Self.line(seed: 0)
        let route = Route(id: .string("t"), parts: [line])
        #expect(TrackRetention.blockStep == VertexImportance.blockLength)
        // 1,100 positions bounded at 600: 500 past, so one step of 256 goes; at 800, nothing (300 past is one step,
        // which would leave 844, but 1,100 − 256 = 844 ≥ 800).
        let trimmed = try #require(TrackRetention.trimmed(route, keeping: 600))
        #expect(trimmed.parts == [Array(line.dropFirst(256))])
        #expect(TrackRetention.trimmed(route, keeping: 800)?.parts == [Array(line.dropFirst(256))])
        #expect(TrackRetention.trimmed(route, keeping: 900) == nil, "200 past the bound: less than a step")
        #expect(TrackRetention.trimmed(route, keeping: 520)?.parts == [Array(line.dropFirst(512))])
        #expect(!TrackRetention.isDue(count: 855, limit: 600) && TrackRetention.isDue(count: 856, limit: 600))
        // Bounds under two steps keep their exact cut and slack of an eighth.
        #expect(TrackRetention.trimmed(route, keeping: 500)?.pointCount == 500)
        #expect(!TrackRetention.isDue(count: 562, limit: 500) && TrackRetention.isDue(count: 563, limit: 500))
    }

    @Test(arguments: 0..<6)
    func aBlockTrimChangesOnlyTheTilesOfTheDroppedSegments(seed: Int) throws {
        let options = Self.options()
        let line = Self.line(seed: seed)
        let route = Route(id: .string("t"), properties: [Property("name", .string("van"))], parts: [line])
        let old = RouteTiler(routes: [route], options: options)
        let trimmedRoute = try #require(TrackRetention.trimmed(route, keeping: 600 - seed * 20))
        let new = RouteTiler(routes: [trimmedRoute], options: options)
        guard let trim = new.tilesChanged(byTrimming: old) else {
            // Only where the kept positions are drawn in another world copy than before (the track crossed the
            // antimeridian before the cut): a put then, whose tiles are checked elsewhere.
            let cut = old.projected.pointCount - new.projected.pointCount
            #expect(seed % 3 == 2 && new.projected.xs[0] != old.projected.xs[cut], "seed \(seed): a block trim not recognised")
            return
        }
        let oldCover = old.cover(), newCover = new.cover()
        var changed = Set<TileID>()
        for tile in oldCover where old.tile(tile) != new.tile(tile) { changed.insert(tile) }
        #expect(!changed.isEmpty)
        #expect(changed.isSubset(of: Set(trim.changed)), "seed \(seed): \(changed.subtracting(trim.changed).prefix(3)) not invalidated")
        // The bound: exactly the tiles the dropped segments (through the new first vertex) have a feature in.
        let cut = line.count - trimmedRoute.pointCount
        let dropped = RouteTiler(routes: [Route(parts: [Array(line.prefix(cut + 1))])], options: options).cover()
        #expect(Set(trim.changed) == dropped, "seed \(seed)")
        #expect(newCover == oldCover.subtracting(trim.left), "seed \(seed)")
        #expect(Array(new.importance) == Array(old.importance.dropFirst(cut)))
    }

    /// A gap at the cut: the positions dropped lie 0.3° away, so the segment that ends at the new first position
    /// crosses tiles that no other segment draws in, and those change too.
    @Test func theSegmentIntoTheNewFirstPositionIsDroppedWithItsTiles() throws {
        let options = Self.options()
        var line = Self.line(seed: 0)
        for i in 0..<256 { line[i].longitude += 0.3 }
        let route = Route(id: .string("t"), parts: [line])
        let old = RouteTiler(routes: [route], options: options)
        let trimmedRoute = try #require(TrackRetention.trimmed(route, keeping: 800))
        #expect(trimmedRoute.pointCount == line.count - 256)
        let new = RouteTiler(routes: [trimmedRoute], options: options)
        let trim = try #require(new.tilesChanged(byTrimming: old))
        let gap = RouteTiler(routes: [Route(parts: [[line[255], line[256]]])], options: options).cover()
        let elsewhere = RouteTiler(routes: [Route(parts: [Array(line.prefix(256))])], options: options).cover()
            .union(new.cover())
        #expect(!gap.subtracting(elsewhere).isEmpty, "the gap's segment has tiles of its own")
        for tile in old.cover() where old.tile(tile) != new.tile(tile) {
            #expect(trim.changed.contains(tile), "\(tile) changed but was not invalidated")
        }
        #expect(Set(trim.changed) == RouteTiler(routes: [Route(parts: [Array(line.prefix(257))])], options: options).cover())
        #expect(new.cover() == old.cover().subtracting(trim.left))
    }

    @Test func otherCutsAndWholeRouteValuesAreNotBlockTrims() throws {
        let line = Self.line(seed: 0)
        var options = Self.options()
        let old = RouteTiler(routes: [Route(id: .string("t"), parts: [line])], options: options)
        let offBlock = RouteTiler(routes: [Route(id: .string("t"), parts: [Array(line.dropFirst(200))])], options: options)
        #expect(offBlock.tilesChanged(byTrimming: old) == nil)
        let otherID = RouteTiler(routes: [Route(id: .string("u"), parts: [Array(line.dropFirst(256))])], options: options)
        #expect(otherID.tilesChanged(byTrimming: old) == nil)
        var moved = Array(line.dropFirst(256))
        moved[100].latitude += 1e-4
        #expect(RouteTiler(routes: [Route(id: .string("t"), parts: [moved])], options: options).tilesChanged(byTrimming: old) == nil)
        options.routeLength = true
        let withLength = RouteTiler(routes: [Route(id: .string("t"), parts: [line])], options: options)
        let trimmedWithLength = RouteTiler(routes: [Route(id: .string("t"), parts: [Array(line.dropFirst(256))])], options: options)
        #expect(trimmedWithLength.tilesChanged(byTrimming: withLength) == nil, "length_m changes every tile")
    }

    /// The live set takes a block trim at the cost of the dropped segments, and its tiles and cover are then those
    /// of the trimmed route, as a set built from it has them.
    @Test func theLiveSetInvalidatesTheDroppedSegmentsTilesAndKeepsAnExactCover() throws {
        var options = Self.options()
        options.positionLayer = "positions"
        let line = Self.line(seed: 1)
        let route = Route(id: .string("t"), parts: [line])
        let other = Route(id: .string("o"), parts: [Array(Self.line(seed: 3).prefix(300))])
        let live = LiveRouteSet(routes: [route, other], options: options)
        _ = live.fillCovers()
        let trimmed = try #require(TrackRetention.trimmed(route, keeping: 700))
        let old = RouteTiler(routes: [route], options: options)
        let expected = try #require(RouteTiler(routes: [trimmed], options: options).tilesChanged(byTrimming: old))
        let change = live.apply([.put(trimmed)])
        #expect(Set(change.invalidated) == Set(expected.changed))
        #expect(live.pointCount(of: "t") == trimmed.pointCount)
        let fresh = LiveRouteSet(routes: [trimmed, other], options: options)
        for tile in old.cover() {
            #expect(try live.snapshot.tile(z: tile.z, x: tile.x, y: tile.y) == fresh.snapshot.tile(z: tile.z, x: tile.x, y: tile.y), "\(tile)")
        }
        // The cover kept is the trimmed route's: removing it invalidates exactly that.
        let removal = live.apply([.remove(key: "t")])
        #expect(Set(removal.invalidated) == RouteTiler(routes: [trimmed], options: options).cover())
    }
}
