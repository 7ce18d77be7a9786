/// A vector tile that cannot be decoded: where in its bytes, and what is wrong.
public struct VectorTileDecodingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The byte offset in the tile where the problem was found (for a geometry: where the feature starts).
    public var offset: Int
    /// What is wrong, with the layer and feature it is in when known: `layer 0: feature 3: odd number of tags (5)`.
    public var message: String

    /// An error at byte `offset` of the tile.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// The offset and the message, as one sentence.
    public var description: String { "invalid vector tile at byte \(offset): \(message)" }

    /// The same error, its message prefixed with where it happened.
    func within(_ context: String) -> VectorTileDecodingError {
        VectorTileDecodingError(offset: offset, message: "\(context): \(message)")
    }
}
