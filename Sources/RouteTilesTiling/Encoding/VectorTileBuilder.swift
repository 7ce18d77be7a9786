/// Assembles finished layers into the bytes of a Mapbox Vector Tile (MVT 2.1, uncompressed).
public struct VectorTileBuilder: Sendable {
    private var layers: [VectorLayerBuilder] = []

    /// An empty tile.
    public init() {}

    /// Adds a layer to the tile. A layer without features is left out: the tile would only carry its name.
    ///
    /// - Throws: `VectorTileRuleError.repeatedLayerName` when a layer of the same name (byte for byte) was added:
    ///   MVT 2.1, section 4.1, wants layer names unique within a tile. The tile is then unchanged.
    public mutating func addLayer(_ layer: VectorLayerBuilder) throws(VectorTileRuleError) {
        guard !layer.isEmpty else { return }
        if layers.contains(where: { ExactString.equal($0.name, layer.name) }) { throw .repeatedLayerName(layer.name) }
        layers.append(layer)
    }

    /// `addLayer` without the check that names are distinct, for the tiler, whose layer names are distinct by
    /// construction (`RouteTiler.layerSlots`, `RouteTilerSet.layerNames`).
    mutating func appendLayer(_ layer: VectorLayerBuilder) {
        guard !layer.isEmpty else { return }
        layers.append(layer)
    }

    /// The tile of `layers`, whose names the caller made distinct (the tilers do by construction); layers without
    /// features are left out.
    package static func encode(_ layers: some Sequence<VectorLayerBuilder>) -> [UInt8] {
        var tile = VectorTileBuilder()
        for layer in layers { tile.appendLayer(layer) }
        return tile.encode()
    }

    /// True when no layer with features was added; such a tile encodes to no bytes.
    public var isEmpty: Bool { layers.isEmpty }

    /// The tile: one `layers` field (3) per layer, in the order added. The buffer is sized exactly up front.
    public func encode() -> [UInt8] {
        var total = 0
        for layer in layers {
            total += ProtobufWriter.lengthDelimitedFieldSize(field: VectorTileSchema.Tile.layers, length: layer.encodedSize)
        }
        var writer = ProtobufWriter(capacity: total)
        for layer in layers {
            writer.writeTag(field: VectorTileSchema.Tile.layers, wireType: .lengthDelimited)
            writer.writeVarint(UInt64(layer.encodedSize))
            layer.write(into: &writer)
        }
        return writer.bytes
    }
}
