import RouteTiles

/// The answer to a write that was committed and applied (`WriteAnswer` in `openapi.json`): 201 for
/// `POST /routes`, 200 for the others.
///
/// Written member by member (`JSONObjectWriter`) rather than through `JSONEncoder`: a fleet's appends are answered
/// thousands of times a second, and the keys are already in the sorted order `JSONBody` would give them.
struct WriteAnswer: Sendable {
    /// The live set's generation after the change.
    var generation: UInt64
    /// The routes written.
    var ids: [String]
    /// Of `invalidatedTiles`, how many were cached (and dropped).
    var invalidatedCachedTiles: Int
    /// The tiles whose content changed, at every zoom, in the commit that carried the write.
    var invalidatedTiles: Int
    /// The store's sequence number of the write's last change.
    var sequence: Int64?
    /// The fixes of an append that the glitch filters dropped (`--drop-fixes`), when any.
    var dropped = FixFilter.Dropped()

    var json: [UInt8] {
        var body = JSONObjectWriter()
        if dropped.total > 0 { body.object("dropped_positions", dropped.json) }
        body.integer("generation", generation)
        body.strings("ids", ids)
        body.integer("invalidated_cached_tiles", invalidatedCachedTiles)
        body.integer("invalidated_tiles", invalidatedTiles)
        if let sequence { body.integer("sequence", sequence) }
        return body.finished + [0x0a]
    }
}

extension FixFilter.Dropped {
    /// `{"invalid": n, "zero": n}`, with `speed`, `period` and `repeated` when the filters of fixes with times
    /// dropped any, as the write answers give it.
    var json: JSONObjectWriter {
        var object = JSONObjectWriter()
        object.integer("invalid", invalid)
        if period > 0 { object.integer("period", period) }
        if repeated > 0 { object.integer("repeated", repeated) }
        if speed > 0 { object.integer("speed", speed) }
        object.integer("zero", zero)
        return object
    }
}
