import RouteTiles

/// The answer to `POST /routes/points` (`BatchAppendAnswer` in `openapi.json`): per id, what was applied and what
/// was refused with the status a single append would have got; 200 when anything was applied, 422 when nothing was.
///
/// Written member by member (`JSONObjectWriter`): with thousands of ids a request, building it through
/// `JSONSerialization` cost a fifth of the server's time.
struct BatchAppendAnswer: Sendable {
    struct Applied: Sendable {
        var id: String
        var points: Int
        var sequence: Int64?
        /// Committed but not applied by this server yet (it will from the store's feed): the reason.
        var notAppliedBecause: String?
        /// The fixes the glitch filters dropped from this id's list, when any.
        var dropped = FixFilter.Dropped()
    }

    struct Refused: Sendable {
        var id: String
        var status: Int
        var error: String
    }

    var applied: [Applied] = []
    var refused: [Refused] = []
    /// Of the commit that carried the appends, when one was applied here.
    var generation: UInt64?
    var invalidatedTiles: Int?
    var invalidatedCachedTiles: Int?
    /// The newest store sequence of the appends.
    var sequence: Int64?

    var json: [UInt8] {
        var answer = JSONObjectWriter()
        answer.array("applied", applied.map { entry in
            var object = JSONObjectWriter()
            object.string("id", entry.id)
            object.integer("points", entry.points)
            if entry.dropped.total > 0 { object.object("dropped_positions", entry.dropped.json) }
            if let sequence = entry.sequence { object.integer("sequence", sequence) }
            if let reason = entry.notAppliedBecause {
                object.bool("applied", false)
                object.string("error", reason)
            }
            return object
        })
        answer.array("refused", refused.map { entry in
            var object = JSONObjectWriter()
            object.string("id", entry.id)
            object.integer("status", entry.status)
            object.string("error", entry.error)
            return object
        })
        if let generation { answer.integer("generation", generation) }
        if let invalidatedTiles { answer.integer("invalidated_tiles", invalidatedTiles) }
        if let invalidatedCachedTiles { answer.integer("invalidated_cached_tiles", invalidatedCachedTiles) }
        if let sequence { answer.integer("sequence", sequence) }
        return answer.finished + [0x0a]
    }
}
