import Testing
import RouteTiles
@testable import RouteTilesInput
import RouteTilesCoreTestSupport

@Suite struct PolylineTests {
    @Test func decodesTheGoogleDocumentationExample() throws {
        let points = try PolylineCodec.decode(Array("_p~iF~ps|U_ulLnnqC_mqNvxq`@".utf8))
        #expect(points == [Coordinate(longitude: -120.2, latitude: 38.5),
                           Coordinate(longitude: -120.95, latitude: 40.7),
                           Coordinate(longitude: -126.453, latitude: 43.252)])
        #expect(PolylineCodec.encode(points) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
    }

    @Test func roundTripsAtPrecisionFiveAndSix() throws {
        var random = SeededGenerator(seed: 7)
        for precision in [5, 6] {
            let scale = PolylineCodec.power(precision)
            for _ in 0..<200 {
                let line = (0..<Int.random(in: 1...50, using: &random)).map { _ in
                    Coordinate(longitude: (Double.random(in: -180...180, using: &random) * scale).rounded() / scale,
                               latitude: (Double.random(in: -90...90, using: &random) * scale).rounded() / scale)
                }
                let text = PolylineCodec.encode(line, precision: precision)
                let back = try PolylineCodec.decode(Array(text.utf8), precision: precision)
                #expect(back.count == line.count)
                for (a, b) in zip(line, back) {
                    #expect(abs(a.latitude - b.latitude) < 0.5 / scale && abs(a.longitude - b.longitude) < 0.5 / scale)
                }
            }
        }
    }

    @Test func precisionSixReadsTenTimesFiner() throws {
        let text = Array(PolylineCodec.encode([Coordinate(longitude: 8.123456, latitude: 47.654321)], precision: 6).utf8)
        #expect(try PolylineCodec.decode(text, precision: 6) == [Coordinate(longitude: 8.123456, latitude: 47.654321)])
        let coarse = try PolylineCodec.decode(text, precision: 7)
        #expect(abs(coarse[0].latitude - 4.7654321) < 1e-9)
    }

    @Test func truncatedAndBadInputIsAnErrorWithItsOffset() {
        func failure(_ text: String) -> PolylineCodec.DecodingError? {
            do {
                _ = try PolylineCodec.decode(Array(text.utf8))
                return nil
            } catch {
                return error
            }
        }
        // Ends inside the second value (a continuation character last).
        #expect(failure("_p~iF~ps|U_ulL_") == PolylineCodec.DecodingError(offset: 14, message:
            "polyline ends inside a value (truncated?)"))
        #expect(failure("_p~iF~ps|U_ulL")?.message == "polyline ends after a latitude without its longitude")
        #expect(failure("_p~i F")?.offset == 4)
        // Thirteen continuation characters: more than 64 bits.
        #expect(failure(String(repeating: "~", count: 13) + "?")?.message == "value is longer than 64 bits")
        // 64-bit values decode without trapping; a latitude of 2^62 units is out of range, not a crash.
        let huge = PolylineCodec.encode([Coordinate(longitude: 0, latitude: 4e13)])
        #expect(failure(huge)?.message.contains("latitude") == true)
    }

    @Test func readerTakesIdsAndReportsLineAndColumn() throws {
        let text = "a\t_p~iF~ps|U_ulLnnqC_mqNvxq`@\n\n_p~iF~ps|U_ulLnnqC\n"
        let result = try PolylineReader.read(Array(text.utf8), file: "t.polyline", options: ReadOptions())
        #expect(result.routes.map(\.id) == [.string("a"), nil])
        #expect(result.routes[1].parts == [[Coordinate(longitude: -120.2, latitude: 38.5),
                                            Coordinate(longitude: -120.95, latitude: 40.7)]])
        let bad = inputError { _ = try PolylineReader.read(Array("_p~iF~ps|U_ulLnnqC\nid\t_p~iF~p!|U\n".utf8),
                                                            file: "t.polyline", options: ReadOptions()) }
        #expect(bad?.description == "t.polyline:2:11: character '!' is not part of an encoded polyline (allowed: '?' to '~')")
        let skipped = try PolylineReader.read(Array("_p~iF~ps|U_ulLnnqC\n_p~iF~p\n".utf8), file: "t",
                                              options: ReadOptions(skipInvalid: true))
        #expect(skipped.routes.count == 1 && skipped.invalid.count == 1)
    }
}
