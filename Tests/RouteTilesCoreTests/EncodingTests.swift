import Testing
import RouteTiles
@testable import RouteTilesTiling
import RouteTilesCoreTestSupport

private typealias T = TileTestSupport

@Suite struct EncodingTests {
    // MARK: Geometry: the worked examples of MVT 2.1 §4.3.5

    // Every integer in these examples is below 128, so each is one varint byte and the expected command integers
    // are the expected bytes.

    @Test func specPoint() {
        // §4.3.5.1: MoveTo(1) = 1 | 1 << 3 = 9; (25, 17) from (0, 0): zigzag 50, 34.
        #expect(T.encodedGeometry(T.points((25, 17))) == [9, 50, 34])
    }

    @Test func specMultiPoint() {
        // §4.3.5.2: MoveTo(2) = 17; (5, 7) → 10, 14; (3, 2) is (-2, -5) from there → 3, 9.
        #expect(T.encodedGeometry(T.points((5, 7), (3, 2))) == [17, 10, 14, 3, 9])
    }

    @Test func specLineString() {
        // §4.3.5.3: MoveTo(1) (2, 2) → 9, 4, 4; LineTo(2) = 2 | 2 << 3 = 18; (0, +8) → 0, 16; (+8, 0) → 16, 0.
        #expect(T.encodedGeometry(T.lines([(2, 2), (2, 10), (10, 10)])) == [9, 4, 4, 18, 0, 16, 16, 0])
    }

    @Test func specMultiLineString() {
        // §4.3.5.4: the second MoveTo is relative to (10, 10): (-9, -9) → 17, 17; LineTo(1) = 10; (+2, +4) → 4, 8.
        #expect(T.encodedGeometry(T.lines([(2, 2), (2, 10), (10, 10)], [(1, 1), (3, 5)]))
            == [9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8])
    }

    @Test func geometryFieldInLayerMatchesSpecExample() throws {
        var layer = VectorLayerBuilder(name: "l")
        let added1 = try layer.addFeature(id: nil, geometry: T.lines([(2, 2), (2, 10), (10, 10)], [(1, 1), (3, 5)]),
                                 properties: [])
        #expect(added1)
        // The Feature message: type (0x18, 2), then geometry (0x22, length 14, the stream).
        let feature: [UInt8] = [0x18, 2, 0x22, 14, 9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8]
        #expect(layer.featureBytes.bytes == [0x12, UInt8(feature.count)] + feature)
    }

    // MARK: Geometry cleaning

    @Test func zeroLengthLineToIsRemoved() throws {
        let geometry = T.lines([(2, 2), (2, 2), (2, 10), (2, 10), (2, 10), (10, 10), (10, 10)])
        #expect(T.encodedGeometry(geometry) == [9, 4, 4, 18, 0, 16, 16, 0])
    }

    @Test func partsWithFewerThanTwoDistinctPointsAreDroppedAndTheCursorCarriesOver() throws {
        // The middle parts vanish; the last MoveTo is still relative to (10, 10), the end of the first part.
        let geometry = T.lines([(2, 2), (2, 10), (10, 10)], [(7, 7), (7, 7), (7, 7)], [(30, 30)],
                               [(1, 1), (3, 5)])
        #expect(T.encodedGeometry(geometry) == [9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8])
        // A leading degenerate part leaves the cursor at the origin.
        #expect(T.encodedGeometry(T.lines([(9, 9), (9, 9)], [(2, 2), (2, 10)])) == [9, 4, 4, 10, 0, 16])
    }

    @Test func featureWithoutSurvivingPartIsRefusedAndLeavesNoTrace() throws {
        var layer = VectorLayerBuilder(name: "routes")
        let added = try layer.addFeature(id: 1, geometry: T.lines([(1, 1), (1, 1)], [(5, 5)]),
                                     properties: [Property("name", .string("x"))])
        #expect(!added)
        #expect(layer.isEmpty)
        #expect(layer.featureCount == 0)
        #expect(layer.keyCount == 0 && layer.valueCount == 0)
        let added2 = try layer.addFeature(id: 1, geometry: TileGeometry(kind: .lineString), properties: [])
        #expect(!added2)
        let added3 = try layer.addFeature(id: 1, geometry: TileGeometry(kind: .point), properties: [])
        #expect(!added3)
    }

    @Test func coordinatesBeyondTheSafeRangeAreRefused() throws {
        #expect(T.encodedGeometry(T.lines([(-32767, 0), (32767, 32767)])) != nil)
        #expect(T.encodedGeometry(T.lines([(-32768, 0), (0, 0)])) == nil)
        #expect(T.encodedGeometry(T.lines([(0, 0), (0, 40000)])) == nil)
        #expect(T.encodedGeometry(T.points((0, 0), (Int32.min, 5))) == nil)
        // Also in a part that would be dropped: the feature is refused as a whole.
        #expect(T.encodedGeometry(T.lines([(0, 0), (1, 1)], [(99999, 0), (99999, 0)])) == nil)

        var layer = VectorLayerBuilder(name: "routes")
        let added4 = try layer.addFeature(id: 1, geometry: T.lines([(0, 0), (Int32.max, 0)]),
                                  properties: [Property("a", .int(1))])
        #expect(!added4)
        #expect(layer.isEmpty && layer.keyCount == 0 && layer.valueCount == 0)
        #expect(layer.featureBytes.isEmpty)
    }

    @Test func malformedPartEndsAreRefusedWithoutCrashing() throws {
        let points = [T.point(0, 0), T.point(1, 1), T.point(2, 2)]
        #expect(T.encodedGeometry(TileGeometry(kind: .lineString, points: points, partEnds: [2, 1])) == nil)
        #expect(T.encodedGeometry(TileGeometry(kind: .lineString, points: points, partEnds: [4])) == nil)
        #expect(T.encodedGeometry(TileGeometry(kind: .lineString, points: points, partEnds: [-1, 3])) == nil)
        #expect(T.encodedGeometry(TileGeometry(kind: .point, points: points, partEnds: [5])) == nil)
        // An empty part in between is harmless.
        #expect(T.encodedGeometry(TileGeometry(kind: .lineString, points: points, partEnds: [0, 3])) != nil)
    }

    // MARK: Keys and values

    @Test func keysAndValuesAreSharedAcrossFeatures() throws {
        var layer = VectorLayerBuilder(name: "routes")
        let geometry = T.lines([(0, 0), (10, 0)])
        let added5 = try layer.addFeature(id: 1, geometry: geometry,
                                 properties: [Property("highway", .string("primary")), Property("lanes", .int(2))])
        #expect(added5)
        let added6 = try layer.addFeature(id: 2, geometry: geometry,
                                 properties: [Property("highway", .string("primary")), Property("oneway", .bool(true))])
        #expect(added6)
        #expect(layer.keyCount == 3)
        #expect(layer.valueCount == 3)
        // keys (field 3): "highway", "lanes", "oneway", each once.
        #expect(layer.keyBytes.bytes == [0x1A, 7] + Array("highway".utf8) + [0x1A, 5] + Array("lanes".utf8)
            + [0x1A, 6] + Array("oneway".utf8))

        var tile = VectorTileBuilder()
        try tile.addLayer(layer)
        let decoded = try VectorTileDecoder.decode(tile.encode())
        let routes = try #require(decoded.layer(named: "routes"))
        #expect(routes.keys == ["highway", "lanes", "oneway"])
        #expect(routes.values == [.string("primary"), .int(2), .bool(true)])
        #expect(routes.features.map(\.properties) == [
            [Property("highway", .string("primary")), Property("lanes", .int(2))],
            [Property("highway", .string("primary")), Property("oneway", .bool(true))],
        ])
    }

    @Test func valuesAreComparedByExactTypedValue() throws {
        var layer = VectorLayerBuilder(name: "routes")
        let properties: [Property] = [
            Property("a", .double(1)), Property("b", .int(1)), // double_value 1 and uint_value 1: two entries
            Property("c", .uint(1)), // uint_value 1 again: shared with .int(1)
            Property("d", .double(0)), Property("e", .double(-0.0)), // different bit patterns: two entries
            Property("f", .string("1")), Property("g", .bool(true)), // neither matches the number 1
            Property("h", .string("\u{E9}")), Property("i", .string("e\u{301}")), // "é" twice, different bytes
        ]
        let added7 = try layer.addFeature(id: nil, geometry: T.points((1, 1)), properties: properties)
        #expect(added7)
        #expect(layer.keyCount == 9)
        #expect(layer.valueCount == 8)

        var keys = VectorLayerBuilder(name: "k")
        let added8 = try keys.addFeature(id: nil, geometry: T.points((1, 1)),
                                properties: [Property("\u{E9}", .int(1)), Property("e\u{301}", .int(1))])
        #expect(added8)
        #expect(keys.keyCount == 2)
        #expect(keys.valueCount == 1)
    }

    @Test func valueTypesAreWrittenAsTheSpecificationsFields() throws {
        var layer = VectorLayerBuilder(name: "routes")
        let added9 = try layer.addFeature(id: nil, geometry: T.points((1, 1)), properties: [
            Property("a", .int(7)), Property("b", .int(-5)), Property("c", .uint(UInt64.max)),
            Property("d", .double(1.5)), Property("e", .bool(true)), Property("f", .string("hi")),
            Property("g", .int(Int64.min)),
        ])
        #expect(added9)
        // Each entry: 0x22 (values, length-delimited), length, then the Value message.
        var expected: [UInt8] = []
        expected += [0x22, 2, 0x28, 7] // uint_value (5 << 3 | 0 = 0x28) 7
        expected += [0x22, 2, 0x30, 9] // sint_value (6 << 3 = 0x30), zigzag(-5) = 9
        expected += [0x22, 11, 0x28] + [UInt8](repeating: 0xFF, count: 9) + [0x01] // uint_value 2^64 - 1
        expected += [0x22, 9, 0x19, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F] // double_value (3 << 3 | 1), 1.5 little-endian
        expected += [0x22, 2, 0x38, 1] // bool_value (7 << 3 = 0x38) true
        expected += [0x22, 4, 0x0A, 2, 0x68, 0x69] // string_value (1 << 3 | 2 = 0x0A) "hi"
        expected += [0x22, 11, 0x30] + [UInt8](repeating: 0xFF, count: 9) + [0x01] // zigzag(Int64.min) = 2^64 - 1
        #expect(layer.valueBytes.bytes == expected)
        // The feature (23 bytes): tags (0x12, 14 entries: key i with value i), type POINT, geometry [9, 2, 2].
        #expect(layer.featureBytes.bytes == [0x12, 23, 0x12, 14, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                             0x18, 1, 0x22, 3, 9, 2, 2])
    }

    // MARK: Whole tiles

    @Test func smallTileMatchesHandEncodedBytes() throws {
        var layer = VectorLayerBuilder(name: "routes")
        let added10 = try layer.addFeature(id: 1, geometry: T.lines([(2, 2), (2, 10), (10, 10)]),
                                 properties: [Property("k", .string("v")), Property("n", .int(-2))])
        #expect(added10)
        let added11 = try layer.addFeature(id: nil, geometry: T.points((25, 17)), properties: [Property("k", .string("v"))])
        #expect(added11)
        var tile = VectorTileBuilder()
        try tile.addLayer(layer)

        // Derivation from vector_tile.proto; a field key is (field number << 3) | wire type.
        // Feature 1 (20 bytes):
        //   id        field 1, varint:  0x08, 1
        //   tags      field 2, packed:  0x12, 4, [0, 0, 1, 1]   ("k" → "v", "n" → -2)
        //   type      field 3, varint:  0x18, 2                 (LINESTRING)
        //   geometry  field 4, packed:  0x22, 8, [9, 4, 4, 18, 0, 16, 16, 0]   (§4.3.5.3)
        let feature1: [UInt8] = [0x08, 1, 0x12, 4, 0, 0, 1, 1, 0x18, 2, 0x22, 8, 9, 4, 4, 18, 0, 16, 16, 0]
        // Feature 2 (11 bytes): no id; tags [0, 0] (the shared key and value); type POINT; geometry §4.3.5.1.
        let feature2: [UInt8] = [0x12, 2, 0, 0, 0x18, 1, 0x22, 3, 9, 50, 34]
        // Layer (63 bytes), fields in number order:
        var layerBody: [UInt8] = [0x0A, 6] + Array("routes".utf8) // name       field 1:  8 bytes
        layerBody += [0x12, 20] + feature1 //                        features   field 2: 22 bytes
        layerBody += [0x12, 11] + feature2 //                                             13 bytes
        layerBody += [0x1A, 1, 0x6B, 0x1A, 1, 0x6E] //               keys "k" "n" field 3: 6 bytes
        layerBody += [0x22, 3, 0x0A, 1, 0x76] //                     values: string_value "v"   5 bytes
        layerBody += [0x22, 2, 0x30, 3] //                                   sint_value zigzag(-2) = 3, 4 bytes
        layerBody += [0x28, 0x80, 0x20] //                           extent 4096 = 0x1000 → varint 80 20, 3 bytes
        layerBody += [0x78, 2] //                                    version field 15: key 120, value 2, 2 bytes
        #expect(layerBody.count == 63)
        // Tile: layers field 3, length-delimited.
        let expected: [UInt8] = [0x1A, 63] + layerBody

        #expect(tile.encode() == expected)
    }

    @Test func emptyLayersAreNotWritten() throws {
        var tile = VectorTileBuilder()
        try tile.addLayer(VectorLayerBuilder(name: "nothing"))
        #expect(tile.isEmpty)
        #expect(tile.encode() == [])

        var layer = VectorLayerBuilder(name: "routes", extent: 512)
        try layer.addFeature(id: 3, geometry: T.lines([(0, 0), (1, 1)]), properties: [])
        try tile.addLayer(layer)
        #expect(!tile.isEmpty)
        let decoded = try VectorTileDecoder.decode(tile.encode())
        #expect(decoded.layers.map(\.name) == ["routes"])
        #expect(decoded.layers.first?.extent == 512)
        #expect(decoded.layers.first?.version == 2)
    }

    @Test func layerBuilderReportsItsState() throws {
        var layer = VectorLayerBuilder(name: "routes", extent: 8192)
        #expect(layer.name == "routes")
        #expect(layer.extent == 8192)
        #expect(layer.isEmpty)
        let added12 = try layer.addFeature(id: 0, geometry: T.points((1, 2)), properties: [])
        #expect(added12)
        let added13 = try layer.addFeature(id: nil, geometry: T.lines([(1, 2), (3, 4)]), properties: [])
        #expect(added13)
        #expect(layer.featureCount == 2)
        #expect(!layer.isEmpty)
    }

    // MARK: Key and value tables

    @Test func indexTableNumbersElementsInFirstSeenOrderThroughGrowth() {
        var strings = IndexTable<ExactString>()
        var numbers = IndexTable<TileValue>()
        for round in 0..<2 {
            for index in 0..<5000 {
                let string = strings.index(of: ExactString("key \(index)"))
                #expect(string.index == UInt32(index) && string.inserted == (round == 0))
                let number = numbers.index(of: .uint(UInt64(index) << 32))
                #expect(number.index == UInt32(index) && number.inserted == (round == 0))
            }
        }
        #expect(strings.count == 5000)
        #expect(numbers.elements.last == .uint(4999 << 32))
        // Same payload, different kinds: different entries.
        #expect(numbers.index(of: .sint(0)).inserted)
        #expect(numbers.index(of: .double(bitPattern: 0)).inserted)
        #expect(numbers.index(of: .bool(false)).inserted)
        #expect(!numbers.index(of: .uint(0)).inserted)
    }

    @Test func exactStringsCompareBytes() {
        #expect("\u{E9}" == "e\u{301}") // Swift's String equality: canonical equivalence
        #expect(ExactString("\u{E9}") != ExactString("e\u{301}"))
        #expect(ExactString("caf\u{E9}") == ExactString("caf\u{E9}"))
        #expect(ExactString("") == ExactString(""))
        #expect(ExactString("a") != ExactString("b"))
        let long = String(repeating: "long string ", count: 10)
        #expect(ExactString(long) == ExactString(String(long.reversed().reversed())))
        #expect(ExactString(long + "x") != ExactString(long + "y"))
    }

    @Test func recentKeyAndValueShortcutsFollowChangingOrders() throws {
        // Keys in changing orders and values that repeat, change and come back exercise every path of the shortcuts.
        let propertySets: [[Property]] = [
            [Property("a", .int(1)), Property("b", .string("x"))],
            [Property("a", .int(1)), Property("b", .string("y"))],
            [Property("b", .string("x")), Property("a", .int(2))],
            [Property("c", .bool(true)), Property("b", .string("y")), Property("a", .int(1))],
            [Property("a", .int(2))],
            [Property("b", .string("x")), Property("c", .bool(true))],
        ]
        var layer = VectorLayerBuilder(name: "routes")
        for properties in propertySets {
            let added = try layer.addFeature(id: nil, geometry: T.points((1, 1)), properties: properties)
            #expect(added)
        }
        var tile = VectorTileBuilder()
        try tile.addLayer(layer)
        let decoded = try #require(try VectorTileDecoder.decode(tile.encode()).layers.first)
        #expect(decoded.keys == ["a", "b", "c"])
        #expect(decoded.values == [.int(1), .string("x"), .string("y"), .int(2), .bool(true)])
        #expect(decoded.features.map(\.properties) == propertySets)
    }

    // MARK: Protobuf primitives

    @Test func varintsAndZigZag() {
        var writer = ProtobufWriter()
        writer.writeVarint(UInt64(0))
        writer.writeVarint(UInt64(127))
        writer.writeVarint(UInt64(128))
        writer.writeVarint(UInt64(300))
        #expect(writer.bytes == [0, 127, 0x80, 1, 0xAC, 2])
        #expect(ProtobufWriter.zigZag(Int64(0)) == 0)
        #expect(ProtobufWriter.zigZag(Int64(-1)) == 1)
        #expect(ProtobufWriter.zigZag(Int64(1)) == 2)
        #expect(ProtobufWriter.zigZag(Int64.max) == UInt64.max - 1)
        #expect(ProtobufWriter.zigZag(Int64.min) == UInt64.max)
        #expect(ProtobufWriter.zigZag(Int32(-32767)) == 65533)
        for value: UInt64 in [0, 1, 127, 128, 16383, 16384, 1 << 35, UInt64.max] {
            var sized = ProtobufWriter()
            sized.writeVarint(value)
            #expect(ProtobufWriter.varintSize(value) == sized.count)
        }
    }
}
