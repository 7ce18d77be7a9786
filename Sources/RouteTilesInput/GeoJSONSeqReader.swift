import RouteTilesModel

/// Reads GeoJSON text sequences (RFC 8142: each text after an RS, 0x1E) and newline-delimited GeoJSON (one
/// Feature or geometry per line), one record at a time, so that memory stays bounded whatever the file's size.
///
/// Each record is read as a GeoJSON document; its errors name the line the record starts on (and the column, when
/// the record is one line). Blank records are ignored. With `ReadOptions.pointsAsTracks`, Point features are
/// fixes grouped into line routes (`PointTracks`), handed over after the last record.
enum GeoJSONSeqReader {
    /// Streams the file at `path`.
    static func read(path: String, options: ReadOptions) throws -> ReadResult {
        var result = ReadResult()
        try forEachRecord(path: path, options: options) { result.append($0) }
        return result
    }

    /// Streams the file at `path`, handing `body` what each record yields; nothing is kept between records.
    static func forEachRecord(path: String, options: ReadOptions,
                                     _ body: (ReadResult) throws -> Void) throws {
        let input = try ChunkedInput(path: path)
        var tracks = PointTracks(file: path, options: options)
        try input.forEachRecord { record, line in
            var result = ReadResult()
            try readRecord(record, line: line, file: path, options: options, tracks: &tracks, into: &result)
            if !result.routes.isEmpty || !result.invalid.isEmpty || !result.skippedGeometries.isEmpty {
                result.applyGeodesic(options)
                try body(result)
            }
        }
        let points = try tracks.result()
        if !points.routes.isEmpty || !points.invalid.isEmpty { try body(points) }
    }

    /// Reads a sequence held in memory.
    static func read(bytes: [UInt8], file: String, options: ReadOptions) throws -> ReadResult {
        var result = ReadResult()
        var tracks = PointTracks(file: file, options: options)
        var line = 1, start = 0, recordLine = 1
        for index in bytes.indices where bytes[index] == 0x0A || bytes[index] == 0x1E {
            try readRecord(bytes[start..<index], line: recordLine, file: file, options: options, tracks: &tracks,
                           into: &result)
            if bytes[index] == 0x0A { line += 1 }
            recordLine = line
            start = index + 1
        }
        try readRecord(bytes[start...], line: recordLine, file: file, options: options, tracks: &tracks,
                       into: &result)
        result.append(try tracks.result())
        return result
    }

    /// Reads one record into `result`, or, when it is a Point feature and `--points-as-tracks` is on, into
    /// `tracks`.
    static func readRecord(_ record: ArraySlice<UInt8>, line: Int, file: String, options: ReadOptions,
                           tracks: inout PointTracks, into result: inout ReadResult) throws {
        guard record.contains(where: { !InputFormat.isSpace($0) }) else { return }
        if try tracks.take(record, line: line) { return }
        let bytes = Array(record)
        do {
            var part = try GeoJSONReader.read(bytes, file: file, options: options)
            let origin = "\(file) line \(line)"
            for i in part.routes.indices { part.routes[i].origin = origin }
            // Routes the record's reader skipped (--skip-invalid) are placed on the record's line, as thrown errors are.
            part.invalid = part.invalid.map { moved($0, line: line, file: file) }
            result.append(part)
        } catch let error as InputError {
            let moved = moved(error, line: line, file: file)
            guard options.skipInvalid else { throw moved }
            result.invalid.append(moved)
        }
    }

    /// An error of one record, placed in the whole file: at the record's line (and column, when the record's
    /// reader gave one), with the feature index when the record is a collection.
    static func moved(_ error: InputError, line: Int, file: String) -> InputError {
        switch error.location {
        case let .line(inner, column):
            return InputError(file: file, location: .line(line + inner - 1, column: column), message: error.message)
        case let .feature(index) where index > 0:
            return InputError(file: file, location: .line(line, column: nil), message: "feature \(index): \(error.message)")
        default:
            return InputError(file: file, location: .line(line, column: nil), message: error.message)
        }
    }
}
