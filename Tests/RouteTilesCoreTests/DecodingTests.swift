import Testing
import RouteTiles
@testable import RouteTilesTiling
import RouteTilesCoreTestSupport

private typealias T = TileTestSupport

/// The error `VectorTileDecoder` throws for `bytes`, or nil when it decodes them.
private func decodingError(_ bytes: [UInt8]) -> VectorTileDecodingError? {
    do {
        _ = try VectorTileDecoder.decode(bytes)
        return nil
    } catch let error as VectorTileDecodingError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// Hand-built messages for decoder tests, using the field numbers of vector_tile.proto.
private enum Message {
    static func feature(id: UInt64? = nil, tags: [UInt32] = [], type: UInt32? = 2, geometry: [UInt32]) -> [UInt8] {
        var writer = ProtobufWriter()
        if let id { writer.writeVarintField(1, id) }
        if !tags.isEmpty { writer.writeLengthDelimitedField(2, packed(tags)) }
        if let type { writer.writeVarintField(3, UInt64(type)) }
        writer.writeLengthDelimitedField(4, packed(geometry))
        return writer.bytes
    }

    static func packed(_ values: [UInt32]) -> [UInt8] {
        var writer = ProtobufWriter()
        for value in values { writer.writeVarint(value) }
        return writer.bytes
    }

    static func layer(name: String? = "l", features: [[UInt8]], keys: [String] = [], values: [[UInt8]] = [])
        -> [UInt8] {
        var writer = ProtobufWriter()
        if let name { writer.writeStringField(1, name) }
        for feature in features { writer.writeLengthDelimitedField(2, feature) }
        for key in keys { writer.writeStringField(3, key) }
        for value in values { writer.writeLengthDelimitedField(4, value) }
        writer.writeVarintField(15, 2)
        return writer.bytes
    }

    static func tile(_ layers: [UInt8]...) -> [UInt8] {
        var writer = ProtobufWriter()
        for layer in layers { writer.writeLengthDelimitedField(3, layer) }
        return writer.bytes
    }

    /// A tile with one layer holding one feature with `geometry`.
    static func tile(type: UInt32?, geometry: [UInt32]) -> [UInt8] {
        tile(layer(features: [feature(type: type, geometry: geometry)]))
    }

    static let stringValue: [UInt8] = [0x0A, 1, 0x76] // string_value "v"
}

@Suite struct DecodingTests {
    // MARK: Round trips

    @Test func roundTripOfEveryValueType() throws {
        let properties: [Property] = [
            Property("s", .string("primary")), Property("i", .int(42)), Property("n", .int(-7)),
            Property("min", .int(Int64.min)), Property("max", .int(Int64.max)), Property("u", .uint(UInt64.max)),
            Property("d", .double(-2.25)), Property("t", .bool(true)), Property("f", .bool(false)),
        ]
        var layer = VectorLayerBuilder(name: "routes")
        let added = try layer.addFeature(id: UInt64.max, geometry: T.lines([(0, 0), (-5, 9)], [(100, 100), (101, 99)]),
                                     properties: properties)
        #expect(added)
        var tile = VectorTileBuilder()
        try tile.addLayer(layer)
        let decoded = try VectorTileDecoder.decode(tile.encode())
        let feature = try #require(decoded.layers.first?.features.first)
        #expect(feature.id == UInt64.max)
        #expect(feature.kind == .lineString)
        #expect(feature.rawType == 2)
        #expect(feature.properties == properties)
        #expect(feature.geometry.kind == .lineString)
        #expect(feature.geometry.parts == [[T.point(0, 0), T.point(-5, 9)], [T.point(100, 100), T.point(101, 99)]])
    }

    @Test func smallUnsignedValuesComeBackAsInt() throws {
        var layer = VectorLayerBuilder(name: "routes")
        try layer.addFeature(id: nil, geometry: T.points((1, 1)), properties: [Property("u", .uint(5))])
        var tile = VectorTileBuilder()
        try tile.addLayer(layer)
        let feature = try #require(try VectorTileDecoder.decode(tile.encode()).layers.first?.features.first)
        #expect(feature.id == nil)
        #expect(feature.properties == [Property("u", .int(5))])
        #expect(feature.kind == .point)
        #expect(feature.geometry.parts == [[T.point(1, 1)]])
    }

    @Test(arguments: [1, 2, 3, 4])
    func randomFeaturesRoundTrip(seed: UInt64) throws {
        var random = RandomTiles(seed: seed)
        var checkedFeatures = 0
        for _ in 0..<100 {
            var expectations: [[RandomTiles.Feature]] = []
            var tile = VectorTileBuilder()
            for layerIndex in 0..<random.int(in: 1...2) {
                var layer = VectorLayerBuilder(name: "layer\(layerIndex)", extent: layerIndex == 0 ? 4096 : 512)
                var written: [RandomTiles.Feature] = []
                for _ in 0..<random.int(in: 1...6) {
                    let feature = random.feature()
                    let (keysBefore, valuesBefore) = (layer.keyCount, layer.valueCount)
                    let added = try layer.addFeature(id: feature.id, geometry: feature.geometry,
                                                 properties: feature.properties)
                    #expect(added == (feature.expectedParts != nil))
                    if added {
                        written.append(feature)
                    } else {
                        #expect(layer.keyCount == keysBefore && layer.valueCount == valuesBefore)
                    }
                }
                #expect(layer.featureCount == written.count)
                try tile.addLayer(layer)
                if !written.isEmpty { expectations.append(written) }
            }

            let decoded = try VectorTileDecoder.decode(tile.encode())
            try #require(decoded.layers.count == expectations.count)
            for (layer, written) in zip(decoded.layers, expectations) {
                #expect(layer.version == 2)
                #expect(layer.extent == (layer.name == "layer0" ? 4096 : 512))
                // Each key and each typed value is stored once.
                #expect(Set(layer.keys.map { Array($0.utf8) }).count == layer.keys.count)
                try #require(layer.features.count == written.count)
                for (feature, expected) in zip(layer.features, written) {
                    #expect(feature.id == expected.id)
                    #expect(feature.kind == expected.geometry.kind)
                    #expect(feature.rawType == UInt32(expected.geometry.kind.rawValue))
                    #expect(feature.geometry.kind == expected.geometry.kind)
                    #expect(feature.geometry.parts == expected.expectedParts)
                    let expectedProperties = expected.properties.map { Property($0.key, T.normalized($0.value)) }
                    #expect(T.sameProperties(feature.properties, expectedProperties),
                            "\(feature.properties) != \(expectedProperties)")
                    checkedFeatures += 1
                }
            }
        }
        #expect(checkedFeatures > 100)
    }

    // MARK: Field order and unknown fields

    @Test func fieldsInAnyOrderAndUnknownFieldsAreSkipped() throws {
        var value1 = ProtobufWriter() // an unknown field 8, then float_value 2.5
        value1.writeVarintField(8, 99)
        value1.writeTag(field: 2, wireType: .fixed32)
        for byte in withUnsafeBytes(of: Float(2.5).bitPattern.littleEndian, Array.init) { value1.writeBytes([byte]) }
        var value0 = ProtobufWriter() // int_value -3: a ten-byte two's complement varint
        value0.writeVarintField(4, UInt64(bitPattern: -3))

        var feature = ProtobufWriter()
        feature.writeLengthDelimitedField(4, Message.packed([9, 4, 4, 10, 0, 16])) // geometry first
        feature.writeTag(field: 9, wireType: .fixed64) // unknown, 8 bytes
        feature.writeFixed64(0x0102_0304_0506_0708)
        feature.writeVarintField(3, 2) // type
        feature.writeVarintField(2, 1) // tags, not packed: key 1 …
        feature.writeVarintField(2, 0) // … value 0
        feature.writeLengthDelimitedField(2, Message.packed([0, 1])) // then packed: key 0, value 1
        feature.writeVarintField(1, 77) // id last

        var layer = ProtobufWriter()
        layer.writeVarintField(15, 2) // version first
        layer.writeLengthDelimitedField(4, value0) // values before keys
        layer.writeLengthDelimitedField(2, feature) // features before keys
        layer.writeTag(field: 21, wireType: .fixed32) // unknown, 4 bytes
        layer.writeBytes([1, 2, 3, 4])
        layer.writeLengthDelimitedField(4, value1)
        layer.writeStringField(3, "first")
        layer.writeLengthDelimitedField(22, [0xFF, 0xFF]) // unknown, length-delimited
        layer.writeStringField(3, "second")
        layer.writeVarintField(5, 512) // extent
        layer.writeStringField(1, "late name") // name last

        var tile = ProtobufWriter()
        tile.writeVarintField(9, 1) // unknown tile field
        tile.writeLengthDelimitedField(3, layer)
        tile.writeTag(field: 10, wireType: .fixed32)
        tile.writeBytes([0, 0, 0, 0])

        let decoded = try VectorTileDecoder.decode(tile.bytes)
        let decodedLayer = try #require(decoded.layers.first)
        #expect(decoded.layers.count == 1)
        #expect(decodedLayer.name == "late name")
        #expect(decodedLayer.version == 2)
        #expect(decodedLayer.extent == 512)
        #expect(decodedLayer.keys == ["first", "second"])
        #expect(decodedLayer.values == [.int(-3), .double(2.5)])
        let decodedFeature = try #require(decodedLayer.features.first)
        #expect(decodedFeature.id == 77)
        #expect(decodedFeature.properties == [Property("second", .int(-3)), Property("first", .double(2.5))])
        #expect(decodedFeature.geometry.parts == [[T.point(2, 2), T.point(2, 10)]])
    }

    @Test func missingVersionAndExtentTakeTheSchemaDefaults() throws {
        var layer = ProtobufWriter()
        layer.writeStringField(1, "old")
        layer.writeLengthDelimitedField(2, Message.feature(type: 1, geometry: [9, 50, 34]))
        let decoded = try VectorTileDecoder.decode(Message.tile(layer.bytes))
        #expect(decoded.layers.first?.version == 1)
        #expect(decoded.layers.first?.extent == 4096)
        #expect(try VectorTileDecoder.decode([]).layers.isEmpty)
    }

    // MARK: Geometry decoding

    @Test func specGeometriesDecode() throws {
        func parts(type: UInt32, _ geometry: [UInt32]) throws -> [[TilePoint]]? {
            try VectorTileDecoder.decode(Message.tile(type: type, geometry: geometry)).layers.first?.features.first?
                .geometry.parts
        }
        let p = T.point
        #expect(try parts(type: 1, [9, 50, 34]) == [[p(25, 17)]])
        #expect(try parts(type: 1, [17, 10, 14, 3, 9]) == [[p(5, 7)], [p(3, 2)]])
        #expect(try parts(type: 2, [9, 4, 4, 18, 0, 16, 16, 0]) == [[p(2, 2), p(2, 10), p(10, 10)]])
        #expect(try parts(type: 2, [9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8])
            == [[p(2, 2), p(2, 10), p(10, 10)], [p(1, 1), p(3, 5)]])
        // §4.3.5.6 polygon and §4.3.5.7 multipolygon: rings become parts; ClosePath adds no point.
        #expect(try parts(type: 3, [9, 6, 12, 18, 10, 12, 24, 44, 15]) == [[p(3, 6), p(8, 12), p(20, 34)]])
        #expect(try parts(type: 3, [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 22, 2, 26, 18, 0, 0, 18, 17, 0, 15,
                                    9, 4, 13, 26, 0, 8, 8, 0, 0, 7, 15])
            == [[p(0, 0), p(10, 0), p(10, 10), p(0, 10)], [p(11, 11), p(20, 11), p(20, 20), p(11, 20)],
                [p(13, 13), p(13, 17), p(17, 17), p(17, 13)]])
        // ClosePath in a line is accepted and ignored.
        #expect(try parts(type: 2, [9, 4, 4, 18, 0, 16, 16, 0, 15]) == [[p(2, 2), p(2, 10), p(10, 10)]])
    }

    @Test func polygonsAndUnknownTypesKeepTheirRawType() throws {
        let polygon = try VectorTileDecoder.decode(Message.tile(type: 3, geometry: [9, 6, 12, 18, 10, 12, 24, 44, 15]))
        let feature = try #require(polygon.layers.first?.features.first)
        #expect(feature.kind == nil)
        #expect(feature.rawType == 3)
        #expect(feature.geometry.kind == .lineString)

        let untyped = try VectorTileDecoder.decode(Message.tile(type: nil, geometry: [17, 2, 2, 4, 4]))
        let unknown = try #require(untyped.layers.first?.features.first)
        #expect(unknown.kind == nil)
        #expect(unknown.rawType == 0)
        #expect(unknown.geometry.parts == [[T.point(1, 1)], [T.point(3, 3)]])

        let odd = try VectorTileDecoder.decode(Message.tile(type: 300, geometry: []))
        #expect(odd.layers.first?.features.first?.rawType == 300)
        #expect(odd.layers.first?.features.first?.kind == nil)
        #expect(odd.layers.first?.features.first?.geometry.isEmpty == true)
    }

    // MARK: Malformed input

    @Test(arguments: [
        // (bytes, part of the message)
        ([0x1A] as [UInt8], "truncated varint"),
        ([UInt8](repeating: 0xFF, count: 11), "varint does not fit in 64 bits"),
        ([0x1A, 0x02, 0x08, 0x01], "field 1 (name) has wire type 0, expected 2"),
        ([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], "varint does not fit in 64 bits"),
        ([0x1A, 0x05, 0x0A], "length 5 runs past the end"),
        ([0x1B, 0x00], "groups are not supported"),
        ([0x1E, 0x00], "unsupported wire type 6"),
        ([0x07, 0x00], "invalid field number 0"),
        ([0x18, 0x01], "field 3 (layers) has wire type 0, expected 2"),
        ([0x1A, 0x02, 0x30, 0x01], "layer has no name"),
        ([0x1A, 0x02, 0x30, 0x80], "truncated varint"),
        ([0x1A, 0x03, 0x0A, 0x01, 0xC3], "layer name is not valid UTF-8"),
        ([0x1A, 0x02, 0x28, 0x81], "truncated varint"),
        ([0x09, 0x01, 0x02], "truncated 64-bit"),
        ([0x0D, 0x01], "truncated 32-bit"),
    ] as [([UInt8], String)])
    func malformedProtobufThrows(bytes: [UInt8], message: String) {
        let error = decodingError(bytes)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test func malformedFeaturesThrowDescriptiveErrors() {
        func error(tags: [UInt32] = [], type: UInt32 = 2, geometry: [UInt32], keys: [String] = ["k"],
                   values: [[UInt8]] = [Message.stringValue]) -> String {
            let feature = Message.feature(tags: tags, type: type, geometry: geometry)
            let tile = Message.tile(Message.layer(features: [Message.feature(type: 1, geometry: [9, 0, 0]), feature],
                                                  keys: keys, values: values))
            return decodingError(tile)?.description ?? "decoded without error"
        }
        let line: [UInt32] = [9, 4, 4, 10, 0, 16]
        #expect(error(tags: [0, 3], geometry: line).contains("layer 0: \"l\": feature 1: tag value index 3 out of "
            + "range (1 values)"))
        #expect(error(tags: [2, 0], geometry: line).contains("tag key index 2 out of range (1 keys)"))
        #expect(error(tags: [0, 0, 0], geometry: line).contains("odd number of tags (3)"))
        #expect(error(geometry: [17, 2, 2, 4, 4]).contains("MoveTo with count 2"))
        #expect(error(geometry: [9, 50]).contains("MoveTo with count 1 at integer 0 needs 2 parameters, only 1 left"))
        #expect(error(geometry: [9, 4, 4, 18, 0, 16]).contains("LineTo with count 2 at integer 3 needs 4 parameters"))
        #expect(error(geometry: [9, 4, 4, 2]).contains("LineTo with count 0"))
        #expect(error(geometry: [1]).contains("MoveTo with count 0"))
        #expect(error(geometry: [3]).contains("unknown geometry command 3"))
        #expect(error(geometry: [10, 2, 2]).contains("LineTo before any MoveTo"))
        #expect(error(geometry: [9, 4, 4, 10, 0, 16, 23]).contains("ClosePath with count 2"))
        #expect(error(geometry: [15]).contains("ClosePath before any MoveTo"))
        #expect(error(type: 1, geometry: [9, 4, 4, 10, 0, 16]).contains("LineTo in a point geometry"))
        #expect(error(type: 1, geometry: [9, 4, 4, 15]).contains("ClosePath in a point geometry"))
        #expect(error(geometry: [9, 0xFFFF_FFFE, 0, 9, 0xFFFF_FFFE, 0]).contains("out of 32-bit range"))
        #expect(error(tags: [0, 0], geometry: line, values: [[]]).contains("value 0: value message holds no value"))
        #expect(error(tags: [0, 0], geometry: line, values: [[0x38, 1, 0x28, 1]])
            .contains("value message holds 2 values"))
        #expect(error(tags: [0, 0], geometry: line, values: [[0x0A, 1]]).contains("length 1 runs past the end"))
        #expect(error(tags: [0, 0], geometry: line, values: [[0x08, 1]])
            .contains("field 1 (string_value) has wire type 0, expected 2"))
        #expect(error(tags: [0, 0], geometry: line, keys: ["k", "\u{E9}"], values: [[0x0A, 2, 0xC3, 0x28]])
            .contains("string value is not valid UTF-8"))
    }

    @Test func oversizedPackedIntegersThrow() {
        var feature = ProtobufWriter()
        feature.writeVarintField(3, 2)
        var geometry = ProtobufWriter()
        geometry.writeVarint(UInt64(1) << 40)
        feature.writeLengthDelimitedField(4, geometry)
        let tile = Message.tile(Message.layer(features: [feature.bytes]))
        #expect(decodingError(tile)?.message.contains("does not fit in 32 bits") == true)
    }

    // MARK: Robustness

    @Test func everyTruncatedPrefixOfATileThrows() throws {
        var random = RandomTiles(seed: 42)
        var tile: [UInt8] = []
        while tile.count < 400 { tile = try random.tile(layerCount: 1, maximumFeatures: 12) }
        #expect(try VectorTileDecoder.decode(tile).layers.count == 1)
        // The single layer's length reaches the end of the tile: every shorter prefix cuts it.
        for length in 1..<tile.count {
            #expect(decodingError(Array(tile.prefix(length))) != nil, "prefix of \(length) bytes decoded")
        }

        // With several layers a prefix may end between layers; either way, nothing crashes.
        let layered = try random.tile(layerCount: 3, maximumFeatures: 8)
        for length in 0...layered.count {
            if let decoded = try? VectorTileDecoder.decode(Array(layered.prefix(length))) {
                #expect(decoded.layers.count <= 3)
            }
        }
    }

    @Test func randomMutationsThrowOrDecode() throws {
        var random = RandomTiles(seed: 7)
        let tile = try random.tile(layerCount: 2, maximumFeatures: 10)
        var threw = 0
        var decoded = 0
        for _ in 0..<4000 {
            var mutated = tile
            for _ in 0..<random.int(in: 1...4) {
                let index = random.int(in: 0...(mutated.count - 1))
                switch random.int(in: 0...3) {
                case 0: mutated[index] = UInt8.random(in: 0...255, using: &random.generator)
                case 1: mutated[index] ^= 1 << UInt8(random.int(in: 0...7))
                case 2: mutated.insert(UInt8.random(in: 0...255, using: &random.generator), at: index)
                default: if mutated.count > 1 { mutated.remove(at: index) }
                }
            }
            if (try? VectorTileDecoder.decode(mutated)) != nil { decoded += 1 } else { threw += 1 }
        }
        #expect(threw > 0)
        #expect(threw + decoded == 4000)
    }

    @Test func randomBytesThrowOrDecode() {
        var random = RandomTiles(seed: 99)
        var outcomes = 0
        for _ in 0..<4000 {
            var bytes = (0..<random.int(in: 0...80)).map { _ in UInt8.random(in: 0...255, using: &random.generator) }
            // Start like a tile half of the time so that the layer and feature decoders are reached.
            if random.chance(1, in: 2), bytes.count > 4 {
                bytes[0] = 0x1A
                bytes[1] = UInt8(bytes.count - 2)
                bytes[2] = 0x0A
                bytes[3] = 0
            }
            _ = try? VectorTileDecoder.decode(bytes)
            outcomes += 1
        }
        #expect(outcomes == 4000)
    }
}
