import Testing
import RouteTiles
@testable import RouteTilesInput
import RouteTilesCoreTestSupport

/// Random damage to valid input (changed, inserted, deleted, duplicated bytes; truncation) must never crash or hang a
/// reader: it either reads the input or throws an `InputError`.
@Suite struct RobustnessTests {
    static let geojsonSample = #"""
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "id": 1, "properties": {"name": "A \"1\" é\u00e9 \ud83d\ude00", "n": -1.5e3,
            "tags": [true, null, {"x": [1, 2]}], "geodesic": true},
           "geometry": {"type": "LineString", "coordinates": [[13.4, 52.5, 30], [13.5, 52.6], [-179.9, -89.9]]}},
          {"type": "Feature", "id": "b", "properties": null,
           "geometry": {"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2], [3e0, 3.25]]]}},
          {"type": "Feature", "properties": {}, "geometry": {"type": "GeometryCollection", "geometries": [
            {"type": "Point", "coordinates": [0, 0]}, {"type": "LineString", "coordinates": [[5, 5], [6, 6]]}]}},
          {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}},
          {"type": "Feature", "properties": {}, "geometry": null}
        ]}
        """#

    static let csvSample = "\u{FEFF}route,\"lat\",lon,name\r\n7,52.5,13.4,\"a, \"\"b\"\"\"\r\n7,52.6,13.5,x\r\n"
        + "bus,-33.9,151.2,\"multi\nline\"\r\n\r\nbus,-34,151,y\r\n7,1e1,+2.5,z"

    /// Bytes that matter to the grammars, plus some that do not.
    static let interesting: [UInt8] = Array("{}[],:\"\\-+.eE0123456789 \n\rtfnu\u{7F}".utf8) + [0x00, 0x80, 0xC3, 0xED, 0xFF]

    static func mutate(_ original: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = original
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !bytes.isEmpty else { break }
            let index = Int.random(in: 0..<bytes.count, using: &random)
            let byte = Bool.random(using: &random) ? interesting.randomElement(using: &random) ?? 0
                                                   : UInt8.random(in: 0...255, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes[index] = byte
            case 1: bytes.insert(byte, at: index)
            case 2: bytes.remove(at: index)
            case 3: bytes.removeSubrange(index...)
            case 4:
                let end = min(bytes.count, index + Int.random(in: 1...40, using: &random))
                bytes.insert(contentsOf: bytes[index..<end], at: Int.random(in: 0...bytes.count, using: &random))
            default:
                let end = min(bytes.count, index + Int.random(in: 1...20, using: &random))
                bytes.removeSubrange(index..<end)
            }
        }
        return bytes
    }

    /// Reads `bytes` both ways (failing fast and skipping), checking that only `InputError`s come out.
    static func check(_ bytes: [UInt8], read: ([UInt8], ReadOptions) throws -> ReadResult) -> Int {
        var parsed = 0
        for skipInvalid in [false, true] {
            do {
                let result = try read(bytes, ReadOptions(skipInvalid: skipInvalid))
                for route in result.routes {
                    #expect(route.parts.allSatisfy { $0.count >= 2 })
                }
                parsed += 1
            } catch is InputError {
            } catch {
                Issue.record("unexpected error \(error) for \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        return parsed
    }

    @Test func samplesAreValid() throws {
        let geojson = try GeoJSONReader.read(Array(Self.geojsonSample.utf8), file: "s", options: ReadOptions())
        #expect(geojson.routes.count == 3)
        #expect(geojson.skippedGeometries == ["Polygon": 1, "null": 1])
        let csv = try CSVReader.read(Array(Self.csvSample.utf8), file: "s", options: ReadOptions())
        #expect(csv.routes.count == 2)
    }

    /// `check`s 3,000 damaged copies of `sample` (seeded) and returns how many reads of them parsed.
    static func checkDamagedCopies(of sample: String, seed: UInt64,
                                   read: ([UInt8], ReadOptions) throws -> ReadResult) -> Int {
        var random = SeededGenerator(seed: seed)
        let original = Array(sample.utf8)
        var parsed = 0
        for _ in 0..<3_000 { parsed += check(mutate(original, using: &random), read: read) }
        return parsed
    }

    @Test func damagedGeoJSONNeverCrashes() {
        let parsed = Self.checkDamagedCopies(of: Self.geojsonSample, seed: 0xDA3A_6E01) {
            try GeoJSONReader.read($0, file: "m.geojson", options: $1)
        }
        // Some damage is harmless (inside a string, a changed digit); make sure both outcomes were exercised.
        #expect(parsed > 50)
        #expect(parsed < 5_800)
    }

    @Test func damagedCSVNeverCrashes() {
        let parsed = Self.checkDamagedCopies(of: Self.csvSample, seed: 0xDA3A_6E02) {
            try CSVReader.read($0, file: "m.csv", options: $1)
        }
        #expect(parsed > 50)
        #expect(parsed < 5_800)
    }

    @Test func everyTruncationIsHandled() {
        let geojson = Array(Self.geojsonSample.utf8)
        for length in 0..<geojson.count {
            _ = Self.check(Array(geojson[..<length])) { try GeoJSONReader.read($0, file: "t", options: $1) }
        }
        let csv = Array(Self.csvSample.utf8)
        for length in 0..<csv.count {
            _ = Self.check(Array(csv[..<length])) { try CSVReader.read($0, file: "t", options: $1) }
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        let hostile = [
            #"{"type": "LineString", "coordinates": "# + String(repeating: "[", count: 100_000),
            String(repeating: #"{"type": "GeometryCollection", "geometries": ["#, count: 10_000),
            #"{"type": "Feature", "properties": {"a": "# + String(repeating: #"{"a": ["#, count: 10_000),
        ]
        for text in hostile {
            let error = try #require(inputError { _ = try readGeoJSON(text) })
            #expect(error.message == "nesting deeper than 512 arrays and objects")
        }
        // Just within the limit, GeometryCollections nested 254 deep (508 levels, plus 3 for the line) still yields its line.
        let depth = 254
        let nested = String(repeating: #"{"type": "GeometryCollection", "geometries": ["#, count: depth)
            + #"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"# + String(repeating: "]}", count: depth)
        #expect(try readGeoJSON(nested).routes.count == 1)
    }
}
