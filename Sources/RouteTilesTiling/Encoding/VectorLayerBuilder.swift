import RouteTilesModel

/// Builds one layer of a Mapbox Vector Tile (MVT 2.1), feature by feature.
///
/// Features are encoded as they are added, into one growing buffer; keys and values go into per-layer tables with
/// each distinct key and each distinct typed value stored once. `VectorTileBuilder` assembles finished layers into a
/// tile.
public struct VectorLayerBuilder: Sendable {
    /// The layer's name.
    public private(set) var name: String
    /// The layer's extent: the tile's width and height in tile coordinates.
    public private(set) var extent: UInt32
    /// Features added so far.
    public private(set) var featureCount: Int = 0

    /// Encoded `features` fields (key, length, Feature message), in the order added.
    private(set) var featureBytes = ProtobufWriter(capacity: 1024)
    /// Encoded `keys` fields, one per entry of `keyTable`, in index order.
    private(set) var keyBytes = ProtobufWriter(capacity: 128)
    /// Encoded `values` fields, one per entry of `valueTable`, in index order.
    private(set) var valueBytes = ProtobufWriter(capacity: 256)
    private var keyTable = IndexTable<ExactString>()
    private var valueTable = IndexTable<TileValue>()

    // Features of one layer usually list the same keys in the same order, and often repeat a key's value: checking
    // the last ones first with a byte comparison saves most table lookups.
    /// For each property position, the index of the key last seen there.
    private var recentKeyIndexes: [UInt32] = []
    /// For each key index, the index of the value last seen with that key, or `noValue`.
    private var recentValueIndexes: [UInt32] = []
    private static let noValue = UInt32.max

    /// Scratch space for the geometry of the feature being added; it only grows.
    private var geometryScratch: [UInt8] = []
    /// Key and value indexes of the feature being added, alternating.
    private var tagScratch: [UInt32] = []

    /// An empty layer.
    /// - Parameters:
    ///   - name: The layer's name, unique within a tile.
    ///   - extent: The size of the tile in tile coordinates (4096 unless the tiling options say otherwise).
    public init(name: String, extent: UInt32 = 4096) {
        self.name = name
        self.extent = extent
    }

    /// Whether no feature has been added; ``VectorTileBuilder`` leaves empty layers out.
    public var isEmpty: Bool { featureCount == 0 }

    /// The number of distinct keys and values so far.
    var keyCount: Int { keyTable.count }
    var valueCount: Int { valueTable.count }

    /// Encodes one feature and appends it to the layer.
    ///
    /// Returns false and leaves the layer unchanged when the geometry has nothing to draw (no point, or no line part
    /// with two distinct points), is malformed, or has a coordinate beyond ±32767.
    ///
    /// - Parameters:
    ///   - id: The feature id, written only when present.
    ///   - geometry: Points or lines in tile coordinates; see `GeometryEncoder` for the cleaning of line parts.
    ///   - properties: Written as tags in this order.
    /// - Throws: `VectorTileRuleError.repeatedKey` when two properties have the same key (byte for byte): MVT 2.1,
    ///   section 4.4, wants keys unique within a feature. The layer is then unchanged.
    @discardableResult
    public mutating func addFeature(id: UInt64?, geometry: TileGeometry,
                                    properties: [Property]) throws(VectorTileRuleError) -> Bool {
        if let key = Self.repeatedKey(in: properties) { throw .repeatedKey(key) }
        return appendFeature(id: id, geometry: geometry, properties: properties)
    }

    /// The first key that appears a second time in `properties`, if any.
    static func repeatedKey(in properties: [Property]) -> String? {
        if properties.count <= 16 {
            // Features have few properties: comparing pairs costs less than hashing.
            for later in properties.indices.dropFirst() {
                for earlier in 0..<later where ExactString.equal(properties[earlier].key, properties[later].key) {
                    return properties[later].key
                }
            }
            return nil
        }
        var seen = IndexTable<ExactString>()
        for property in properties where !seen.index(of: ExactString(property.key)).inserted { return property.key }
        return nil
    }

    /// `addFeature` without the check that keys are distinct, for callers that made them distinct already (the
    /// tiler does once per route, see `RouteTiler.featureProperties`): the cutter adds a feature per route per
    /// tile, and checking there would repeat the same work in every tile.
    @discardableResult
    mutating func appendFeature(id: UInt64?, geometry: TileGeometry, properties: [Property]) -> Bool {
        // Geometry first: it is the only part that can fail, and the key and value tables must not grow then.
        guard let geometryLength = GeometryEncoder.encode(geometry, into: &geometryScratch) else { return false }

        tagScratch.removeAll(keepingCapacity: true)
        var tagsLength = 0
        for (position, property) in properties.enumerated() {
            let keyIndex = keyIndex(property.key, position: position)
            let valueIndex = valueIndex(property.value, keyIndex: keyIndex)
            tagScratch.append(keyIndex)
            tagScratch.append(valueIndex)
            tagsLength += ProtobufWriter.varintSize(UInt64(keyIndex)) + ProtobufWriter.varintSize(UInt64(valueIndex))
        }

        typealias Field = VectorTileSchema.Feature
        var size = 0
        if let id { size += 1 + ProtobufWriter.varintSize(id) }
        if tagsLength > 0 { size += ProtobufWriter.lengthDelimitedFieldSize(field: Field.tags, length: tagsLength) }
        size += 2 // type: key and a one-byte value
        size += ProtobufWriter.lengthDelimitedFieldSize(field: Field.geometry, length: geometryLength)

        featureBytes.writeTag(field: VectorTileSchema.Layer.features, wireType: .lengthDelimited)
        featureBytes.writeVarint(UInt64(size))
        if let id { featureBytes.writeVarintField(Field.id, id) }
        if tagsLength > 0 {
            featureBytes.writeTag(field: Field.tags, wireType: .lengthDelimited)
            featureBytes.writeVarint(UInt64(tagsLength))
            for index in tagScratch { featureBytes.writeVarint(index) }
        }
        featureBytes.writeVarintField(Field.type, UInt64(geometry.kind.rawValue))
        featureBytes.writeLengthDelimitedField(Field.geometry, geometryScratch[0..<geometryLength])
        featureCount += 1
        return true
    }

    /// The index of `key` in the key table, adding it when new.
    private mutating func keyIndex(_ key: String, position: Int) -> UInt32 {
        if position < recentKeyIndexes.count {
            let recent = recentKeyIndexes[position]
            if ExactString.equal(keyTable.elements[Int(recent)].string, key) { return recent }
        }
        let (index, inserted) = keyTable.index(of: ExactString(key))
        if inserted {
            keyBytes.writeStringField(VectorTileSchema.Layer.keys, key)
            recentValueIndexes.append(Self.noValue)
        }
        if position < recentKeyIndexes.count {
            recentKeyIndexes[position] = index
        } else if position == recentKeyIndexes.count {
            recentKeyIndexes.append(index)
        }
        return index
    }

    /// The index of `value` in the value table, adding it when new.
    private mutating func valueIndex(_ value: PropertyValue, keyIndex: UInt32) -> UInt32 {
        let tileValue = TileValue(value)
        // Every key has a slot: `keyIndex` appends one for each new key.
        let recent = recentValueIndexes[Int(keyIndex)]
        if recent != Self.noValue, valueTable.elements[Int(recent)] == tileValue { return recent }
        let (index, inserted) = valueTable.index(of: tileValue)
        if inserted {
            valueBytes.writeTag(field: VectorTileSchema.Layer.values, wireType: .lengthDelimited)
            valueBytes.writeVarint(UInt64(tileValue.encodedSize))
            tileValue.write(into: &valueBytes)
        }
        recentValueIndexes[Int(keyIndex)] = index
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
