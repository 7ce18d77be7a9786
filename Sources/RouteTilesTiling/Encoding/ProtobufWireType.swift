/// The protobuf wire types a vector tile uses, as they appear in the low three bits of a field tag.
///
/// Groups (3 and 4) are deprecated and never appear in vector tiles; readers reject them.
enum ProtobufWireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case fixed32 = 5
}
