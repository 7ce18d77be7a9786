import Foundation
import Testing
import RouteTiles
@testable import RouteTilesRouteStore
import RouteTilesCoreTestSupport

/// The positions a live route set keeps read back as the very numbers given, packed or not.
@Suite struct PackedPositionsTests {
    static func bits(_ parts: [[Coordinate]]) -> [[UInt64]] {
        parts.map { $0.flatMap { [$0.longitude.bitPattern, $0.latitude.bitPattern] } }
    }

    /// Positions of up to seven decimals pack; any other position (more decimals, −0.0) makes the whole route be
    /// kept as it is, including positions appended later; either way they read back bit for bit.
    @Test func positionsReadBackBitForBit() {
        var rng = SeededGenerator(seed: 17)
        for round in 0..<300 {
            let decimals = round % 3 == 0 ? 9 : Int.random(in: 0...7, using: &rng)
            let scale = pow(10, Double(decimals))
            func position() -> Coordinate {
                Coordinate(longitude: (Double.random(in: -180...180, using: &rng) * scale).rounded() / scale,
                           latitude: (Double.random(in: -85...85, using: &rng) * scale).rounded() / scale)
            }
            var parts = (0..<Int.random(in: 1...3, using: &rng)).map { _ in (0..<Int.random(in: 1...40, using: &rng)).map { _ in position() } }
            var packed = PackedPositions(parts)
            #expect(Self.bits(packed.parts) == Self.bits(parts))
            #expect(packed.count == parts.reduce(0) { $0 + $1.count })
            #expect(packed.last.map { [$0.longitude.bitPattern, $0.latitude.bitPattern] }
                    == parts.last?.last.map { [$0.longitude.bitPattern, $0.latitude.bitPattern] })
            var more = (0..<Int.random(in: 1...10, using: &rng)).map { _ in position() }
            if round % 5 == 1 { more.append(Coordinate(longitude: -0.0, latitude: 1e-9)) }
            packed.appendToLastPart(more)
            parts[parts.count - 1].append(contentsOf: more)
            #expect(Self.bits(packed.parts) == Self.bits(parts), "round \(round)")
        }
    }

    /// A number of seven decimals or fewer packs, one of more does not; −0.0 does not (it would read back as 0.0).
    @Test func whichNumbersPack() {
        #expect(PackedPositions.tenMillionths(8.5417) == 85_417_000)
        #expect(PackedPositions.tenMillionths(-179.9999999) == -1_799_999_999)
        #expect(PackedPositions.tenMillionths(180) == 1_800_000_000)
        #expect(PackedPositions.tenMillionths(47.37000001) == nil)
        #expect(PackedPositions.tenMillionths(-0.0) == nil)
        #expect(PackedPositions.tenMillionths(0) == 0)
        #expect(PackedPositions.tenMillionths(1e300) == nil)
    }
}
