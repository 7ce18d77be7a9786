import Foundation
import Testing
import RouteTiles
@_spi(Columns) import RouteTilesModel
@_spi(Columns) import RouteTilesGeo
@testable import RouteTilesTiling
@testable import RouteTilesLive
@testable import RouteTilesBuild
import RouteTilesCoreTestSupport

/// Routes with times are cut in time pieces (`TimePieces`): each feature of such a route carries `start_t` and
/// `end_t`, whole multiples of its zoom's piece length, and its geometry is the track between those times. Read back
/// from every tile of random tracks with stops, gaps and irregular sampling.
@Suite struct TimePiecesTests {
    /// A vehicle's track: fixes every 0.5–20 s (milliseconds apart, not whole seconds) at 8–30 m/s, a gap of 10–90
    /// minutes now and then (after which it is kilometres away), and a stop (the same position for a minute) now and
    /// then.
    static func timedTrack(count: Int, lon: Double, lat: Double, start: Int64,
                           using rng: inout SeededGenerator) -> Route {
        var points: [Coordinate] = []
        var times: [Int64] = []
        var x = lon, y = lat, t = start, heading = Double.random(in: 0..<(2 * .pi), using: &rng)
        for _ in 0..<count {
            points.append(Coordinate(longitude: x, latitude: y))
            times.append(t)
            heading += Double.random(in: -0.5...0.5, using: &rng)
            let roll = Double.random(in: 0..<1, using: &rng)
            let seconds: Double, metres: Double
            if roll < 0.02 {
                seconds = Double.random(in: 600...5_400, using: &rng)
                metres = Double.random(in: 1_000...5_000, using: &rng)
            } else if roll < 0.04 {
                seconds = 60
                metres = 0
            } else {
                seconds = Double.random(in: 0.5...20, using: &rng)
                metres = seconds * Double.random(in: 8...30, using: &rng)
            }
            t += Int64((seconds * 1000).rounded())
            y += cos(heading) * metres / 111_320
            x += sin(heading) * metres / (111_320 * cos(y * .pi / 180))
        }
        return Route(id: .string("van"), properties: [Property("name", .string("van"))], parts: [points], times: times)
    }

    /// The track between times `from` and `to` (seconds), in map points, its ends interpolated.
    static func stretch(of route: Route, from: Double, to: Double) -> [MapPoint] {
        let points = route.parts[0].map(WebMercator.project), times = (route.times ?? []).map { Double($0) / 1000 }
        var out: [MapPoint] = []
        func at(_ i: Int, _ time: Double) -> MapPoint {
            let f = times[i + 1] > times[i] ? (time - times[i]) / (times[i + 1] - times[i]) : 0
            return MapPoint(x: points[i].x + (points[i + 1].x - points[i].x) * f,
                            y: points[i].y + (points[i + 1].y - points[i].y) * f)
        }
        for i in 0..<(points.count - 1) where times[i + 1] >= from && times[i] <= to {
            out.append(times[i] >= from ? points[i] : at(i, from))
            out.append(times[i + 1] <= to ? points[i + 1] : at(i, to))
        }
        return out
    }

    static func distance(_ p: MapPoint, toPolyline line: [MapPoint]) -> Double {
        guard line.count >= 2 else { return line.first.map { hypot(p.x - $0.x, p.y - $0.y) } ?? .infinity }
        var best = Double.infinity
        for i in 0..<(line.count - 1) {
            let a = line[i], b = line[i + 1]
            let dx = b.x - a.x, dy = b.y - a.y, length = dx * dx + dy * dy
            let t = length > 0 ? min(max(((p.x - a.x) * dx + (p.y - a.y) * dy) / length, 0), 1) : 0
            best = min(best, hypot(p.x - (a.x + dx * t), p.y - (a.y + dy * t)))
        }
        return best
    }

    /// A feature's `start_t` and `end_t`.
    static func piece(_ feature: DecodedFeature) -> (start: Int64, end: Int64)? {
        func value(_ key: String) -> Int64? {
            switch feature.properties.first(where: { $0.key == key })?.value {
            case let .int(n)?: return n
            case let .uint(n)?: return Int64(n)
            default: return nil
            }
        }
        guard let start = value("start_t"), let end = value("end_t") else { return nil }
        return (start, end)
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func piecesLieOnTheTrackBetweenTheirTimesAndCoverIt(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let options = Sample.options(maxZoom: 14)
        let route = Self.timedTrack(count: 400, lon: Double.random(in: -100...100, using: &rng), lat: 45,
                                    start: 1_795_788_000_000 + Int64.random(in: 0..<86_400_000, using: &rng),
                                    using: &rng)
        #expect(route.timeProblem() == nil)
        let tiler = RouteTiler(routes: [route], options: options)
        let times = (route.times ?? []).map { Double($0) / 1000 }
        let cover = RouteCover.tiles(of: route, options: options)
        for zoom in [10, 12, 14] {
            let length = Int64(TimePieces.seconds(zoom: zoom))
            let size = WebMercator.tileSize(zoom: zoom), unit = size / Double(options.extent)
            var covered: [(start: Int64, end: Int64)] = []
            for tile in cover where tile.z == zoom {
                let bytes = try #require(try tiler.tile(z: tile.z, x: tile.x, y: tile.y))
                let features = try #require(try VectorTileDecoder.decode(bytes).layer(named: "routes")).features
                for feature in features {
                    let piece = try #require(Self.piece(feature), "a feature of a route with times has no start_t/end_t")
                    #expect(piece.start % length == 0 && piece.end % length == 0 && piece.end > piece.start,
                            "z\(zoom): piece \(piece) is not whole pieces of \(length) s")
                    if piece.end - piece.start > length {
                        // Longer than a piece: only within one segment, a gap between two fixes.
                        #expect(zip(times, times.dropFirst()).contains { Double(piece.start) > $0.0 && Double(piece.end) < $0.1 },
                                "z\(zoom): piece \(piece) spans several pieces but no gap holds it")
                    }
                    covered.append(piece)
                    let track = Self.stretch(of: route, from: Double(piece.start), to: Double(piece.end))
                    for p in feature.geometry.points {
                        let point = MapPoint(x: (Double(tile.x) + Double(p.x) / Double(options.extent)) * size,
                                             y: (Double(tile.y) + Double(p.y) / Double(options.extent)) * size)
                        let off = Self.distance(point, toPolyline: track) / unit
                        #expect(off <= 1.5, "z\(zoom) \(tile): a vertex of piece \(piece) lies \(off) units off the track in that time")
                    }
                }
            }
            // Every piece of time in which the track travels 8 tile units or more is in some feature.
            let first = Int64(times[0]) / length * length
            var start = first
            while Double(start) < times[times.count - 1] {
                let travelled = Self.stretch(of: route, from: Double(start), to: Double(start + length))
                var metres = 0.0
                for i in stride(from: 0, to: travelled.count - 1, by: 2) {
                    metres += hypot(travelled[i + 1].x - travelled[i].x, travelled[i + 1].y - travelled[i].y)
                }
                if metres / unit >= 8 {
                    #expect(covered.contains { $0.start <= start && start + length <= $0.end },
                            "z\(zoom): the piece from \(start) s, with \(Int(metres / unit)) units of track, is in no feature")
                }
                start += length
            }
        }
    }

    /// Without time pieces, or without times, a route is cut as it always was: the same bytes.
    @Test func withoutPiecesOrTimesTheTilesAreThoseOfAnUntimedRoute() throws {
        var rng = SeededGenerator(seed: 11)
        let timed = Self.timedTrack(count: 300, lon: 2.3, lat: 48.85, start: 1_795_788_000_000, using: &rng)
        var untimed = timed
        untimed.times = nil
        var off = Sample.options(maxZoom: 14)
        off.timePieces = false
        let on = Sample.options(maxZoom: 14)
        let plain = RouteTiler(routes: [untimed], options: on)
        let timedOff = RouteTiler(routes: [timed], options: off)
        let timedOn = RouteTiler(routes: [timed], options: on)
        var differ = 0
        for tile in RouteCover.tiles(of: untimed, options: on) {
            let reference = try plain.tile(z: tile.z, x: tile.x, y: tile.y)
            #expect(try timedOff.tile(z: tile.z, x: tile.x, y: tile.y) == reference, "\(tile)")
            if try timedOn.tile(z: tile.z, x: tile.x, y: tile.y) != reference { differ += 1 }
        }
        #expect(differ > 0)
        // In a set with both, the untimed route's features carry no time.
        let both = RouteTiler(routes: [timed, Route(id: .string("bus"), parts: untimed.parts)], options: on)
        let here = WebMercator.tile(containing: WebMercator.project(untimed.parts[0][0]), zoom: 12)
        let bytes = try #require(try both.tile(z: 12, x: here.x, y: here.y))
        let layer = try #require(try VectorTileDecoder.decode(bytes).layer(named: "routes"))
        let bus = FNV1a.hash("bus")
        #expect(layer.features.contains { $0.id == bus })
        #expect(layer.features.allSatisfy { ($0.id == bus) == (Self.piece($0) == nil) })
    }

    /// A tiler extended by fixes with times gives the bytes of a tiler built over the longer track, and in a live set
    /// an append changes no tile it does not invalidate.
    @Test(arguments: [5, 6] as [UInt64])
    func appendsWithTimesGiveTheTilesOfARebuildAndInvalidateWhatTheyChange(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var options = Sample.options(maxZoom: 14)
        options.routeLength = false
        var route = Self.timedTrack(count: 200, lon: 2.3, lat: 48.85, start: 1_795_788_000_000, using: &rng)
        var tiler = RouteTiler(routes: [route], options: options)
        let live = LiveRouteSet(routes: [route], options: options)
        for step in 0..<6 {
            let last = try #require(route.parts[0].last), lastTime = try #require(route.times?.last)
            var more = Self.timedTrack(count: step % 2 == 0 ? 2 : 5, lon: last.longitude, lat: last.latitude,
                                       start: lastTime, using: &rng)
            more.parts[0].removeFirst()
            more.times?.removeFirst()
            let moreTimes = (more.times ?? []).map { Double($0) / 1000 }
            tiler = try #require(tiler.appending(more.parts[0], times: moreTimes, after: last))
            let old = RouteTiler(routes: [route], options: options)
            route.parts[0] += more.parts[0]
            route.times? += more.times ?? []
            let fresh = RouteTiler(routes: [route], options: options)
            #expect(tiler.projected.times == fresh.projected.times)

            var before: [TileID: [UInt8]] = [:]
            let candidates = old.cover().union(fresh.cover())
            for t in candidates { before[t] = try live.snapshot.tile(z: t.z, x: t.x, y: t.y) ?? [] }
            let change = live.apply([.append(key: "van", points: more.parts[0], time: moreTimes.last, times: moreTimes)])
            let invalidated = Set(change.invalidated)
            var changed = 0
            for t in candidates {
                let now = try live.snapshot.tile(z: t.z, x: t.x, y: t.y) ?? []
                #expect(try tiler.tile(z: t.z, x: t.x, y: t.y) ?? [] == (try fresh.tile(z: t.z, x: t.x, y: t.y) ?? []),
                        "step \(step): \(t) differs from a rebuild")
                if now != before[t] {
                    changed += 1
                    #expect(invalidated.contains(t), "step \(step): tile \(t) changed but was not invalidated")
                }
            }
            #expect(changed > 0)
        }
    }

    /// A geodesic route's added positions get times in proportion to the distance along it, and its pieces are cut
    /// on the great circle.
    @Test func aGeodesicRoutesAddedPositionsHaveTimesByDistance() throws {
        let parts = [[Coordinate(longitude: 139.78, latitude: 35.55), Coordinate(longitude: -122.38, latitude: 37.62)]]
        let route = Route(id: .string("NH8"), parts: parts, geodesic: true,
                          times: [1_795_788_000_000, 1_795_788_000_000 + 9 * 3_600_000])
        let drawn = DrawnRoute(route, geodesicTolerance: Sample.options(maxZoom: 8).geodesicTolerance)
        let times = try #require(drawn.times?.first)
        #expect(drawn.lines[0].count > 10 && times.count == drawn.lines[0].count)
        #expect(times.first == 1_795_788_000 && times.last == 1_795_788_000 + 9 * 3_600)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0.0 <= $0.1 })
        // Half-way in distance is half-way in time.
        var travelled = [0.0]
        for (a, b) in zip(drawn.lines[0], drawn.lines[0].dropFirst()) {
            travelled.append(travelled[travelled.count - 1] + GeodesicDistance.metres(a, b))
        }
        for (k, time) in times.enumerated() {
            let expected = 1_795_788_000 + 9 * 3_600 * travelled[k] / travelled[travelled.count - 1]
            #expect(abs(time - expected) < 1e-3)
        }
        // At zoom 6 (pieces of an hour) the flight is cut into about nine features across the tiles.
        let tiler = RouteTiler(routes: [route], options: Sample.options(maxZoom: 8))
        var pieces = Set<Int64>()
        for tile in RouteCover.tiles(of: route, options: tiler.options) where tile.z == 6 {
            guard let bytes = try tiler.tile(z: tile.z, x: tile.x, y: tile.y) else { continue }
            for feature in try VectorTileDecoder.decode(bytes).layers[0].features {
                if let piece = Self.piece(feature) { pieces.insert(piece.start) }
            }
        }
        #expect((9...10).contains(pieces.count), "\(pieces.sorted())")
    }

    /// With speed classes, lines are cut where their segments' class changes, and each feature has its class.
    @Test func speedClassesCutWhereTheSegmentsClassChanges() throws {
        // Five segments of about 100 m along a parallel, at 15, 17, 33, 36 and 55 km/h: classes 10, 10, 30, 30, 50.
        let speeds = [15.0, 17, 33, 36, 55]
        let step = 100 / (111_320 * cos(48.85 * .pi / 180))
        let points = (0...5).map { Coordinate(longitude: 2.33 + Double($0) * step, latitude: 48.85) }
        var times: [Int64] = [1_795_788_000_000]
        for (k, speed) in speeds.enumerated() {
            let metres = GeodesicDistance.metres(points[k], points[k + 1])
            times.append(times[k] + Int64((metres / (speed / 3.6) * 1000).rounded()))
        }
        let route = Route(id: .string("bike"), properties: [Property("speed", .string("theirs"))], parts: [points],
                          times: times)
        var options = Sample.options(maxZoom: 14)
        options.speedClasses = 10
        let tiler = RouteTiler(routes: [route], options: options)
        let tile = WebMercator.tile(containing: WebMercator.project(points[2]), zoom: 14)
        let bytes = try #require(try tiler.tile(z: 14, x: tile.x, y: tile.y))
        let layer = try #require(try VectorTileDecoder.decode(bytes).layer(named: "routes"))
        let size = WebMercator.tileSize(zoom: 14)
        var seen = Set<Int64>()
        for feature in layer.features {
            let speed = try #require(feature.properties.first { $0.key == "speed" }?.value)
            guard case let .int(kmh) = speed else { Issue.record("speed is \(speed)"); continue }
            seen.insert(kmh)
            // Every vertex inside a segment (not at a joint) lies in a segment of the feature's class.
            for p in feature.geometry.points {
                let x = (Double(tile.x) + Double(p.x) / 4096) * size
                let k = points.indices.dropLast().first { x > WebMercator.project(points[$0]).x + 2 * size / 4096
                    && x < WebMercator.project(points[$0 + 1]).x - 2 * size / 4096 }
                if let k { #expect(Int64(speeds[k] / 10) * 10 == kmh, "a vertex of segment \(k) in a feature of \(kmh) km/h") }
            }
        }
        #expect(seen == [10, 30, 50])
        // RouteTiles' speed replaces the route's own property of that name; its metadata lists it.
        #expect(!layer.features.contains { $0.properties.contains(Property("speed", .string("theirs"))) })
        #expect(TilesetMetadata(name: "s", tiler: tiler).layers.first?.fields["speed"] == "Number")
        // Without the option, the route keeps its own.
        let plain = try VectorTileDecoder.decode(#require(try RouteTiler(routes: [route], options: Sample.options(maxZoom: 14))
            .tile(z: 14, x: tile.x, y: tile.y)))
        #expect(plain.layers.first?.features.allSatisfy { $0.properties.contains(Property("speed", .string("theirs"))) } == true)
    }

    /// TileJSON and the metadata of a build list `start_t` and `end_t` and give the piece length of each zoom, and
    /// read back the same.
    @Test func theMetadataGivesThePieceLengths() throws {
        var rng = SeededGenerator(seed: 3)
        let route = Self.timedTrack(count: 50, lon: 2.3, lat: 48.85, start: 1_795_788_000_000, using: &rng)
        let metadata = TilesetMetadata(name: "vans", tiler: RouteTiler(routes: [route], options: Sample.options(maxZoom: 14)))
        #expect(metadata.layers.first?.fields["start_t"] == "Number" && metadata.layers.first?.fields["end_t"] == "Number")
        #expect(metadata.timePieces?["0"] == 86_400 && metadata.timePieces?["9"] == 900 && metadata.timePieces?["14"] == 60)
        #expect(metadata.timePieces?.count == 15)
        let pairs = Dictionary(metadata.pairs.map { ($0.0, JSONDocument.string($0.1)) }, uniquingKeysWith: { $1 })
        let read = try TilesetMetadata(pairs: pairs, source: "metadata")
        #expect(read == metadata)
        let tileJSON = try #require(try JSONSerialization.jsonObject(with: Data(metadata.tileJSON(baseURL: "http://h/tiles")))
            as? [String: Any])
        #expect((tileJSON["time_pieces"] as? [String: Int])?["12"] == 60)
        // Without times, none.
        var untimed = route
        untimed.times = nil
        let plain = TilesetMetadata(name: "vans", tiler: RouteTiler(routes: [untimed], options: Sample.options(maxZoom: 14)))
        #expect(plain.timePieces == nil && plain.layers.first?.fields["start_t"] == nil)
    }
}
