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
        #expect(problem(polygon).contains("LineString with Z or M"))
        let line = WellKnownBinary.encode(Route(parts: [[Coordinate(longitude: 1, latitude: 2), Coordinate(longitude: 3, latitude: 4)]]))
        #expect(problem(Array(line.dropLast(3))).contains("ends early"))
        #expect(problem(line + [0]).contains("1 bytes follow"))
        // A count far beyond the bytes is refused before anything is allocated.
        #expect(problem([1, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F]).contains("ends early"))
    }
}
