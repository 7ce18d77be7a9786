import RouteTilesModel

/// Decodes Mapbox Vector Tiles (MVT 2.x, uncompressed) for tests and the `inspect` command.
///
/// Fields may come in any order and unknown fields (wire types 0, 1, 2, 5) are skipped. Malformed input — bad varints,
/// lengths past the end, wrong wire types, tag indexes out of range, odd tag counts, broken geometry commands, invalid
/// UTF-8 — throws a `VectorTileDecodingError`; work is bounded by the input size.
public enum VectorTileDecoder {
    /// Decodes the uncompressed bytes of a vector tile.
    /// - Parameter bytes: An MVT protobuf message (gunzip stored tiles first, with ``Gzip/decompress(_:limit:)``).
    /// - Returns: The tile's layers, features, properties and geometry.
    /// - Throws: ``VectorTileDecodingError`` when the bytes are not a well-formed tile.
    public static func decode(_ bytes: [UInt8]) throws -> DecodedTile {
        var reader = ProtobufReader(bytes)
        var tile = DecodedTile()
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag()
            guard field == VectorTileSchema.Tile.layers else {
                try reader.skip(wireType)
                continue
            }
            try reader.expect(.lengthDelimited, for: field, named: "layers", got: wireType)
            let layerIndex = tile.layers.count
            do {
                tile.layers.append(try decodeLayer(ProtobufReader(bytes, range: try reader.readLengthDelimited())))
            } catch let error as VectorTileDecodingError {
                throw error.within("layer \(layerIndex)")
            }
        }
        return tile
    }

    private static func decodeLayer(_ layerReader: ProtobufReader) throws -> DecodedLayer {
        typealias Field = VectorTileSchema.Layer
        var reader = layerReader
        let layerStart = reader.position
        var name: String?
        var version = Field.defaultVersion
        var extent = Field.defaultExtent
        var keys: [String] = []
        var values: [PropertyValue] = []
        // Features are decoded last: their tags refer to keys and values that may come after them.
        var featureRanges: [Range<Int>] = []

        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag()
            switch field {
            case Field.name:
                try reader.expect(.lengthDelimited, for: field, named: "name", got: wireType)
                name = try reader.string(in: try reader.readLengthDelimited(), "layer name")
            case Field.features:
                try reader.expect(.lengthDelimited, for: field, named: "features", got: wireType)
                featureRanges.append(try reader.readLengthDelimited())
            case Field.keys:
                try reader.expect(.lengthDelimited, for: field, named: "keys", got: wireType)
                keys.append(try reader.string(in: try reader.readLengthDelimited(), "key \(keys.count)"))
            case Field.values:
                try reader.expect(.lengthDelimited, for: field, named: "values", got: wireType)
                let valueReader = ProtobufReader(reader.bytes, range: try reader.readLengthDelimited())
                do {
                    values.append(try decodeValue(valueReader))
                } catch let error as VectorTileDecodingError {
                    throw error.within("value \(values.count)")
                }
            case Field.extent:
                try reader.expect(.varint, for: field, named: "extent", got: wireType)
                extent = try reader.readVarint32("extent")
            case Field.version:
                try reader.expect(.varint, for: field, named: "version", got: wireType)
                version = try reader.readVarint32("version")
            default:
                try reader.skip(wireType)
            }
        }
        guard let name else { throw reader.error("layer has no name", at: layerStart) }

        var layer = DecodedLayer(name: name, version: version, extent: extent, keys: keys, values: values)
        layer.features.reserveCapacity(featureRanges.count)
        for range in featureRanges {
            let featureIndex = layer.features.count
            do {
                layer.features.append(try decodeFeature(ProtobufReader(reader.bytes, range: range), keys: keys,
                                                        values: values))
            } catch let error as VectorTileDecodingError {
                throw error.within("\"\(name)\": feature \(featureIndex)")
            }
        }
        return layer
    }

    private static func decodeFeature(_ featureReader: ProtobufReader, keys: [String], values: [PropertyValue]) throws
        -> DecodedFeature {
        typealias Field = VectorTileSchema.Feature
        var reader = featureReader
        let featureStart = reader.position
        var id: UInt64?
        var rawType: UInt32 = 0
        var tags: [UInt32] = []
        var geometry: [UInt32] = []

        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag()
            switch field {
            case Field.id:
                try reader.expect(.varint, for: field, named: "id", got: wireType)
                id = try reader.readVarint()
            case Field.tags:
                try reader.readRepeatedUInt32(wireType, into: &tags, "tag")
            case Field.type:
                try reader.expect(.varint, for: field, named: "type", got: wireType)
                rawType = try reader.readVarint32("geometry type")
            case Field.geometry:
                try reader.readRepeatedUInt32(wireType, into: &geometry, "geometry integer")
            default:
                try reader.skip(wireType)
            }
        }

        guard tags.count.isMultiple(of: 2) else {
            throw reader.error("odd number of tags (\(tags.count))", at: featureStart)
        }
        var properties: [Property] = []
        properties.reserveCapacity(tags.count / 2)
        var tagIndex = 0
        while tagIndex < tags.count {
            let keyIndex = Int(tags[tagIndex])
            let valueIndex = Int(tags[tagIndex + 1])
            guard keyIndex < keys.count else {
                throw reader.error("tag key index \(keyIndex) out of range (\(keys.count) keys)", at: featureStart)
            }
            guard valueIndex < values.count else {
                throw reader.error("tag value index \(valueIndex) out of range (\(values.count) values)",
                                   at: featureStart)
            }
            properties.append(Property(keys[keyIndex], values[valueIndex]))
            tagIndex += 2
        }

        let decodedGeometry: TileGeometry
        do {
            decodedGeometry = try GeometryDecoder.decode(geometry, rawType: rawType)
        } catch {
            throw reader.error("geometry: \(error.message)", at: featureStart)
        }
        let kind = rawType <= UInt32(UInt8.max) ? GeometryKind(rawValue: UInt8(rawType)) : nil
        return DecodedFeature(id: id, kind: kind, rawType: rawType, properties: properties, geometry: decodedGeometry)
    }

    /// A `Value` message: exactly one of its seven fields must be present.
    private static func decodeValue(_ valueReader: ProtobufReader) throws -> PropertyValue {
        typealias Field = VectorTileSchema.Value
        var reader = valueReader
        let valueStart = reader.position
        var value: PropertyValue?
        var fieldCount = 0
        while !reader.isAtEnd {
            let (field, wireType) = try reader.readTag()
            switch field {
            case Field.string:
                try reader.expect(.lengthDelimited, for: field, named: "string_value", got: wireType)
                value = .string(try reader.string(in: try reader.readLengthDelimited(), "string value"))
            case Field.float:
                try reader.expect(.fixed32, for: field, named: "float_value", got: wireType)
                value = .double(Double(Float(bitPattern: try reader.readFixed32())))
            case Field.double:
                try reader.expect(.fixed64, for: field, named: "double_value", got: wireType)
                value = .double(Double(bitPattern: try reader.readFixed64()))
            case Field.int:
                try reader.expect(.varint, for: field, named: "int_value", got: wireType)
                value = .int(Int64(bitPattern: try reader.readVarint()))
            case Field.uint:
                try reader.expect(.varint, for: field, named: "uint_value", got: wireType)
                let number = try reader.readVarint()
                value = number <= UInt64(Int64.max) ? .int(Int64(number)) : .uint(number)
            case Field.sint:
                try reader.expect(.varint, for: field, named: "sint_value", got: wireType)
                let encoded = try reader.readVarint()
                value = .int(Int64(bitPattern: encoded >> 1) ^ (0 &- Int64(bitPattern: encoded & 1)))
            case Field.bool:
                try reader.expect(.varint, for: field, named: "bool_value", got: wireType)
                value = .bool(try reader.readVarint() != 0)
            default:
                try reader.skip(wireType)
                continue
            }
            fieldCount += 1
        }
        guard fieldCount == 1, let value else {
            throw reader.error(fieldCount == 0 ? "value message holds no value"
                               : "value message holds \(fieldCount) values, expected exactly one", at: valueStart)
        }
        return value
    }
}
