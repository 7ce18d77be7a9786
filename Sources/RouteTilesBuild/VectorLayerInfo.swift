/// One entry of `vector_layers`: a layer's name and the type of each of its fields.
public struct VectorLayerInfo: Sendable, Equatable {
    /// The layer's name.
    public var id: String
    /// A description of the layer; empty by default.
    public var description: String
    /// Field name to type: `String`, `Number`, `Boolean`, or `Mixed`.
    public var fields: [String: String]
    /// The deepest zoom whose tiles may hold the layer, when it is shallower than the tileset's (the `density`
    /// layer's); nil: the tileset's.
    public var maxZoom: Int?

    /// A layer called `id` whose features have `fields`.
    public init(id: String, description: String = "", fields: [String: String], maxZoom: Int? = nil) {
        self.id = id
        self.description = description
        self.fields = fields
        self.maxZoom = maxZoom
    }
}

/// One entry of the `vector_layers` array of TileJSON and of tileset metadata, as written and read.
public struct VectorLayerEntry: Codable, Sendable, Equatable {
    /// The layer's name.
    public var id: String
    /// A description of the layer.
    public var description: String
    /// The zooms of the tiles that may hold the layer.
    public var minzoom: Int
    public var maxzoom: Int
    /// Field name to type: `String`, `Number`, `Boolean`, or `Mixed`.
    public var fields: [String: String]

    /// An entry with these values.
    public init(id: String, description: String, minzoom: Int, maxzoom: Int, fields: [String: String]) {
        self.id = id
        self.description = description
        self.minzoom = minzoom
        self.maxzoom = maxzoom
        self.fields = fields
    }
}
