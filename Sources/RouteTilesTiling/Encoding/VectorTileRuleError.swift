/// What MVT 2.1 forbids that a tile or layer builder was asked to write. The description names the rule, as
/// vtzero's errors do.
public enum VectorTileRuleError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Two properties of one feature have this key (MVT 2.1, section 4.4).
    case repeatedKey(String)
    /// Two layers of one tile have this name (MVT 2.1, section 4.1).
    case repeatedLayerName(String)

    /// A sentence that names the rule broken and the key or layer name.
    public var description: String {
        switch self {
        case let .repeatedKey(key):
            return "key '\(key)' appears twice in one feature: MVT 2.1 (4.4) wants keys unique within a feature"
        case let .repeatedLayerName(name):
            return "layer name '\(name)' appears twice in one tile: MVT 2.1 (4.1) wants layer names unique within a tile"
        }
    }
}
