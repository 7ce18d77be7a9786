/// 202: the write was committed to the store (so it is acknowledged) but this server could not apply it yet; it
/// will from the store's feed (`WriteAcknowledged` in `openapi.json`).
struct WriteAcknowledgedAnswer: Encodable, Sendable {
    var ids: [String]
    /// Always false.
    var applied = false
    var error: String
    var sequence: Int64?
}
