/// The `data` of the events of `GET /events`, one JSON object each (`HelloEvent`, `ResyncEvent` and `ChangeEvent`
/// in `openapi.json`).
enum EventData {
    /// `hello`: where the server is when the stream opens; `{}` for a reader limited to some groups, whom the
    /// counters of every group's changes would tell how often the other groups change.
    struct Hello: Encodable, Sendable {
        var generation: UInt64?
        var sequence: Int64?
    }

    /// `resync`, instead of `hello` when `Last-Event-ID` is behind: the routes changed since, or null when the
    /// store's feed cannot tell (then a client refreshes everything). No counters for a limited reader (`Hello`).
    struct Resync: Encodable, Sendable {
        var generation: UInt64?
        var ids: [String]?
        var sequence: Int64?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(generation, forKey: .generation)
            try container.encode(ids, forKey: .ids)  // null, not absent: "refresh everything"
            try container.encodeIfPresent(sequence, forKey: .sequence)
        }

        enum CodingKeys: String, CodingKey { case generation, ids, sequence }
    }

    // `change` (`ChangeEvent` in the document) is written by `ChangeEvent` itself, once for every stream, member by
    // member: `generation`, `ids`, `sequence`, `subtrees` (absent when none: tiles under which every tile, down to
    // the greatest zoom, changed too without being listed) and `tiles`, keys in the order `JSONBody` gives; without
    // `generation` and `sequence` for a limited reader.
}
