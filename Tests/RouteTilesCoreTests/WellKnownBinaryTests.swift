import Foundation
import RouteTiles
import Testing
import RouteTilesCoreTestSupport

/// The WKB the route stores keep lines in: round trips, splicing an append, and what is refused.
@Suite struct WellKnownBinaryTests {
    func randomParts(_ rng: inout SeededGenerator) -> [[Coordinate]] {
        (0..<Int.random(in: 1...4, using: &rng)).map { _ in
            (0..<Int.random(in: 2...40, using: &rng)).map { _ in
                Coordinate(longitude: .random(in: -720...720, using: &rng), latitude: .random(in: -90...90, using: &rng))
            }
        }
    }

    @Test func linesAndPointsRoundTrip() throws {
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<200 {
            let parts = randomParts(&rng)
            #expect(try WellKnownBinary.decode(WellKnownBinary.encode(Route(parts: parts))) == .lines(parts))
            let points = parts[0]
            let route = Route(parts: points.map { [$0] }, kind: .point)
            #expect(try WellKnownBinary.decode(WellKnownBinary.encode(route)) == .points(points))
        }
        let one = Coordinate(longitude: 2.5, latitude: 48.5)
        #expect(WellKnownBinary.encode(Route(parts: [[one]], kind: .point)).count == 21)
    }

    /// An append spliced into the bytes equals decoding, appending to the last part, and encoding again.
    @Test func appendSplicesTheLastPart() throws {
        var rng = SeededGenerator(seed: 12)
        for _ in 0..<200 {
            var parts = randomParts(&rng)
            let added = randomParts(&rng)[0]
            let spliced = try #require(try WellKnownBinary.appending(added, to: WellKnownBinary.encode(Route(parts: parts))))
            parts[parts.count - 1] += added
            #expect(spliced == WellKnownBinary.encode(Route(parts: parts)))
        }
        let point = WellKnownBinary.encode(Route(parts: [[Coordinate(longitude: 1, latitude: 2)]], kind: .point))
        #expect(try WellKnownBinary.appending([Coordinate(longitude: 3, latitude: 4)], to: point) == nil)
    }

    /// PostGIS may send big-endian WKB (XDR); it reads the same.
    @Test func bigEndianIsRead() throws {
        var bytes: [UInt8] = [0, 0, 0, 0, 2, 0, 0, 0, 2]
        for value in [1.5, 2.5, 3.5, 4.5] { withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes += $0 } }
        #expect(try WellKnownBinary.decode(bytes) == .lines([[Coordinate(longitude: 1.5, latitude: 2.5),
                                                             Coordinate(longitude: 3.5, latitude: 4.5)]]))
    }

    @Test func otherGeometriesAndBrokenBytesAreNamed() {
        func problem(_ bytes: [UInt8]) -> String {
            do {
                _ = try WellKnownBinary.decode(bytes)
                return "no error"
            } catch {
                return error.message
            }
        }
        var polygon: [UInt8] = [1, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
        #expect(problem(polygon).contains("Polygon"))
        polygon[1] = 0xEA; polygon[2] = 0x03  // 1002: LineString Z
        #expect(problem(polygon).contains("LineString with Z"))
        polygon[1] = 0xBA; polygon[2] = 0x0B  // 3002: LineString ZM
        #expect(problem(polygon).contains("LineString with Z and M"))
        let line = WellKnownBinary.encode(Route(parts: [[Coordinate(longitude: 1, latitude: 2), Coordinate(longitude: 3, latitude: 4)]]))
        #expect(problem(Array(line.dropLast(3))).contains("ends early"))
        #expect(problem(line + [0]).contains("1 bytes follow"))
        // A count far beyond the bytes is refused before anything is allocated.
        #expect(problem([1, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F]).contains("ends early"))
    }

    func randomTimes(for parts: [[Coordinate]], _ rng: inout SeededGenerator) -> [Int64] {
        var time = Int64.random(in: 0...2_000_000_000_000, using: &rng)
        return parts.flatMap { $0 }.map { _ in
            time += Int64.random(in: 0...90_000, using: &rng)
            return time
        }
    }

    /// A route with times is written with M (ISO types 2001–2005, Unix seconds) and read back to the millisecond; a
    /// route without is written in 2D as before.
    @Test func timesRoundTripAsM() throws {
        var rng = SeededGenerator(seed: 35)
        for _ in 0..<200 {
            let parts = randomParts(&rng)
            let times = randomTimes(for: parts, &rng)
            let wkb = WellKnownBinary.encode(Route(parts: parts, times: times))
            let (geometry, read) = try WellKnownBinary.decodeTimed(wkb)
            #expect(geometry == .lines(parts) && read == times)
            #expect(WellKnownBinary.hasTimes(wkb) && !WellKnownBinary.hasTimes(WellKnownBinary.encode(Route(parts: parts))))
            #expect(wkb[1] == (parts.count == 1 ? 0xD2 : 0xD5) && wkb[2] == 0x07)  // 2002, 2005
            let points = parts[0]
            let pointTimes = Array(times.prefix(points.count))
            let pointWKB = WellKnownBinary.encode(Route(parts: points.map { [$0] }, kind: .point, times: pointTimes))
            #expect(try WellKnownBinary.decodeTimed(pointWKB) == (.points(points), pointTimes))
            #expect(try WellKnownBinary.decodeTimed(WellKnownBinary.multiPoint(points, times: pointTimes)).times == pointTimes)
        }
        #expect(try WellKnownBinary.decodeTimed(WellKnownBinary.encode(Route(parts: [[Coordinate(longitude: 1, latitude: 2)]],
                                                                          kind: .point, times: [5000]))).times == [5000])
    }

    /// Appends to a line with M carry their times, spliced as untimed ones are; a mismatch is refused.
    @Test func timedAppendsSpliceAndMismatchesAreRefused() throws {
        var rng = SeededGenerator(seed: 36)
        for _ in 0..<100 {
            var parts = randomParts(&rng)
            var times = randomTimes(for: parts, &rng)
            let added = randomParts(&rng)[0]
            let addedTimes = added.indices.map { (times.last ?? 0) + Int64($0 + 1) * 1000 }
            let wkb = WellKnownBinary.encode(Route(parts: parts, times: times))
            let spliced = try #require(try WellKnownBinary.appending(added, times: addedTimes, to: wkb))
            parts[parts.count - 1] += added
            times += addedTimes
            #expect(spliced == WellKnownBinary.encode(Route(parts: parts, times: times)))
            #expect(throws: WellKnownBinary.Problem.self) { try WellKnownBinary.appending(added, to: wkb) }
            #expect(throws: WellKnownBinary.Problem.self) {
                try WellKnownBinary.appending(added, times: addedTimes, to: WellKnownBinary.encode(Route(parts: parts)))
            }
        }
    }

    /// PostGIS's EWKB (M flag, SRID) reads as ISO WKB does; an M that is no time names its position.
    @Test func ewkbWithMAndBadMAreRead() throws {
        var bytes: [UInt8] = [1]
        withUnsafeBytes(of: UInt32(0x6000_0002).littleEndian) { bytes += $0 }  // LineString, M flag, SRID flag
        withUnsafeBytes(of: UInt32(4326).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt32(2).littleEndian) { bytes += $0 }
        for value in [2.3, 48.8, 1_795_788_300.25, 2.4, 48.9, 1_795_788_360.0] {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
        }
        let (geometry, times) = try WellKnownBinary.decodeTimed(bytes)
        #expect(geometry == .lines([[Coordinate(longitude: 2.3, latitude: 48.8), Coordinate(longitude: 2.4, latitude: 48.9)]]))
        #expect(times == [1_795_788_300_250, 1_795_788_360_000])
        let badM = Array(bytes.dropLast(8)) + withUnsafeBytes(of: (-5.0).bitPattern.littleEndian) { Array($0) }
        #expect(throws: WellKnownBinary.Problem.self) { try WellKnownBinary.decodeTimed(badM) }
        do {
            _ = try WellKnownBinary.decodeTimed(badM)
        } catch {
            #expect(error.message.contains("position 1: M -5.0 is not a time"), "\(error.message)")
        }
    }
}
