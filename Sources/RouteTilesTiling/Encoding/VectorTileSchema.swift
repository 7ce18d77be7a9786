/// Field numbers of the MVT 2.1 protobuf schema (`vector_tile.proto`), shared by the encoder and the decoder.
enum VectorTileSchema {
    /// `message Tile`.
    enum Tile {
        static let layers: UInt32 = 3
    }

    /// `message Tile.Layer`.
    enum Layer {
        static let name: UInt32 = 1
        static let features: UInt32 = 2
        static let keys: UInt32 = 3
        static let values: UInt32 = 4
        static let extent: UInt32 = 5
        static let version: UInt32 = 15

        /// The version this encoder writes.
        static let currentVersion: UInt32 = 2
        /// Defaults the schema gives when a field is absent.
        static let defaultVersion: UInt32 = 1
        static let defaultExtent: UInt32 = 4096
    }

    /// `message Tile.Feature`.
    enum Feature {
        static let id: UInt32 = 1
        static let tags: UInt32 = 2
        static let type: UInt32 = 3
        static let geometry: UInt32 = 4
    }

    /// `message Tile.Value`: exactly one of these is present.
    enum Value {
        static let string: UInt32 = 1
        static let float: UInt32 = 2
        static let double: UInt32 = 3
        static let int: UInt32 = 4
        static let uint: UInt32 = 5
        static let sint: UInt32 = 6
        static let bool: UInt32 = 7
    }
}
