/// Builds one layer of a Mapbox Vector Tile (MVT 2.1), feature by feature.
///
/// Features are encoded as they are added, into one growing buffer; keys and values go into per-layer tables with
/// each distinct key and each distinct typed value stored once. `VectorTileBuilder` assembles finished layers into a
/// tile.
public struct VectorLayerBuilder: Sendable {
    public private(set) var name: String
    public private(set) var extent: UInt32
    public private(set) var featureCount: Int = 0

    /// Encoded `features` fields (key, length, Feature message), in the order added.
    private(set) var featureBytes = ProtobufWriter(capacity: 1024)
    /// Encoded `keys` fields, one per entry of `keyIndexes`, in index order.
    private(set) var keyBytes = ProtobufWriter(capacity: 128)
    /// Encoded `values` fields, one per entry of `valueIndexes`, in index order.
    private(set) var valueBytes = ProtobufWriter(capacity: 256)
    private var keyIndexes: [ExactString: UInt32] = [:]
    private var valueIndexes: [TileValue: UInt32] = [:]

    // Scratch buffers, refilled for each feature so that adding a feature allocates nothing once they have grown.
    private var geometryScratch = ProtobufWriter(capacity: 256)
    private var tagScratch = ProtobufWriter(capacity: 32)
    private var valueScratch = ProtobufWriter(capacity: 32)

    public init(name: String, extent: UInt32 = 4096) {
        self.name = name
        self.extent = extent
    }

    public var isEmpty: Bool { featureCount == 0 }

    /// The number of distinct keys and values so far.
    var keyCount: Int { keyIndexes.count }
    var valueCount: Int { valueIndexes.count }

    /// Encodes one feature and appends it to the layer.
    ///
    /// Returns false and leaves the layer unchanged when the geometry has nothing to draw (no point, or no line part
    /// with two distinct points), is malformed, or has a coordinate beyond ±32767.
    ///
    /// - Parameters:
    ///   - id: The feature id, written only when present.
    ///   - geometry: Points or lines in tile coordinates; see `GeometryEncoder` for the cleaning of line parts.
    ///   - properties: Written as tags in this order. Keys should be distinct within a feature.
    @discardableResult
    public mutating func addFeature(id: UInt64?, geometry: TileGeometry, properties: [Property]) -> Bool {
        // Geometry first: it is the only part that can fail, and the key and value tables must not grow then.
        geometryScratch.removeAll()
        guard GeometryEncoder.encode(geometry, into: &geometryScratch) else { return false }

        tagScratch.removeAll()
        for property in properties {
            tagScratch.writeVarint(keyIndex(property.key))
            tagScratch.writeVarint(valueIndex(property.value))
        }

        typealias Field = VectorTileSchema.Feature
        var size = 0
        if let id { size += 1 + ProtobufWriter.varintSize(id) }
        if !tagScratch.isEmpty { size += ProtobufWriter.lengthDelimitedFieldSize(field: Field.tags, length: tagScratch.count) }
        size += 2 // type: key and a one-byte value
        size += ProtobufWriter.lengthDelimitedFieldSize(field: Field.geometry, length: geometryScratch.count)

        featureBytes.writeTag(field: VectorTileSchema.Layer.features, wireType: .lengthDelimited)
        featureBytes.writeVarint(UInt64(size))
        if let id { featureBytes.writeVarintField(Field.id, id) }
        if !tagScratch.isEmpty { featureBytes.writeLengthDelimitedField(Field.tags, tagScratch) }
        featureBytes.writeVarintField(Field.type, UInt64(geometry.kind.rawValue))
        featureBytes.writeLengthDelimitedField(Field.geometry, geometryScratch)
        featureCount += 1
        return true
    }

    /// The index of `key` in the key table, adding it when new.
    private mutating func keyIndex(_ key: String) -> UInt32 {
        let exact = ExactString(key)
        if let index = keyIndexes[exact] { return index }
        let index = UInt32(truncatingIfNeeded: keyIndexes.count)
        keyIndexes[exact] = index
        keyBytes.writeStringField(VectorTileSchema.Layer.keys, key)
        return index
    }

    /// The index of `value` in the value table, adding it when new.
    private mutating func valueIndex(_ value: PropertyValue) -> UInt32 {
        let tileValue = TileValue(value)
        if let index = valueIndexes[tileValue] { return index }
        let index = UInt32(truncatingIfNeeded: valueIndexes.count)
        valueIndexes[tileValue] = index
        valueScratch.removeAll()
        tileValue.write(into: &valueScratch)
        valueBytes.writeLengthDelimitedField(VectorTileSchema.Layer.values, valueScratch)
        return index
    }

    // MARK: Assembling the Layer message

    /// The size of the Layer message body that `write(into:)` writes.
    var encodedSize: Int {
        typealias Field = VectorTileSchema.Layer
        return ProtobufWriter.lengthDelimitedFieldSize(field: Field.name, length: name.utf8.count)
            + featureBytes.count + keyBytes.count + valueBytes.count
            + 1 + ProtobufWriter.varintSize(UInt64(extent))
            + 2 // version: key 15 << 3 = 120 is one byte, and so is the value 2
    }

    /// Writes the Layer message body, fields in field-number order: name, features, keys, values, extent, version.
    func write(into writer: inout ProtobufWriter) {
        typealias Field = VectorTileSchema.Layer
        writer.writeStringField(Field.name, name)
        writer.append(featureBytes)
        writer.append(keyBytes)
        writer.append(valueBytes)
        writer.writeVarintField(Field.extent, UInt64(extent))
        writer.writeVarintField(Field.version, UInt64(Field.currentVersion))
    }
}
