import RouteTilesModel

/// The contents of a vector tile as `VectorTileDecoder` reads them.
public struct DecodedTile: Sendable {
    /// The tile's layers, in the order they were encoded.
    public var layers: [DecodedLayer]

    /// A decoded tile with the given layers.
    public init(layers: [DecodedLayer] = []) {
        self.layers = layers
    }

    /// The first layer called `name`, if any.
    public func layer(named name: String) -> DecodedLayer? {
        layers.first { $0.name == name }
    }
}

/// One layer of a decoded tile.
public struct DecodedLayer: Sendable {
    /// The layer's name.
    public var name: String
    /// The `version` field; 1 when absent, as the schema says.
    public var version: UInt32
    /// The `extent` field; 4096 when absent.
    public var extent: UInt32
    /// The layer's features, in the order they were encoded.
    public var features: [DecodedFeature]
    /// The layer's key and value tables, in index order.
    public var keys: [String]
    /// The layer's value table, in index order.
    public var values: [PropertyValue]

    /// A decoded layer with the given fields.
    public init(name: String, version: UInt32 = 2, extent: UInt32 = 4096, features: [DecodedFeature] = [],
                keys: [String] = [], values: [PropertyValue] = []) {
        self.name = name
        self.version = version
        self.extent = extent
        self.features = features
        self.keys = keys
        self.values = values
    }
}

/// One feature of a decoded layer.
public struct DecodedFeature: Sendable {
    /// The feature id, when the feature has one.
    public var id: UInt64?
    /// The geometry type, when it is one RouteTiles writes (point or line); nil for UNKNOWN (0), POLYGON (3) and
    /// anything else, which `rawType` keeps.
    public var kind: GeometryKind?
    /// The `type` field as written; 0 (UNKNOWN) when absent.
    public var rawType: UInt32
    /// The tags resolved against the layer's tables, in tag order.
    ///
    /// Integers come back as `.int` when they fit 64 signed bits, whichever of `int_value`, `uint_value` or
    /// `sint_value` held them, and as `.uint` above that; `float_value` comes back as `.double`.
    public var properties: [Property]
    /// The geometry in tile coordinates. Each `MoveTo` position starts a part: for points every point is a part, for
    /// lines every line, and for polygons every ring (not repeated at its end: `ClosePath` adds no point). Its
    /// `kind` is `.point` for point features and `.lineString` for all others.
    public var geometry: TileGeometry

    /// A decoded feature with the given fields.
    public init(id: UInt64?, kind: GeometryKind?, rawType: UInt32, properties: [Property], geometry: TileGeometry) {
        self.id = id
        self.kind = kind
        self.rawType = rawType
        self.properties = properties
        self.geometry = geometry
    }
}
