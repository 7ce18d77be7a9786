/// Assembles finished layers into the bytes of a Mapbox Vector Tile (MVT 2.1, uncompressed).
public struct VectorTileBuilder: Sendable {
    private var layers: [VectorLayerBuilder] = []

    public init() {}

    /// Adds a layer to the tile. A layer without features is left out: the tile would only carry its name.
    /// Layer names should be distinct within a tile.
    public mutating func addLayer(_ layer: VectorLayerBuilder) {
        guard !layer.isEmpty else { return }
        layers.append(layer)
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
