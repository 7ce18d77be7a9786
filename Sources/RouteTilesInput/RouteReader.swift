import RouteTilesModel

/// How readers treat their input.
public struct ReadOptions: Sendable {
    /// Leave out invalid features (GeoJSON) or routes (CSV) and report them in `ReadResult.invalid`, instead of
    /// failing on the first. Syntax errors (malformed JSON, an unterminated CSV quote) always fail.
    public var skipInvalid: Bool = false
    /// CSV: the latitude column's name, instead of `lat` or `latitude`.
    public var latColumn: String?
    /// CSV: the longitude column's name, instead of `lon`, `lng`, `long` or `longitude`.
    public var lonColumn: String?
    /// CSV (and point streams read with `pointsAsTracks`): the column whose values group rows into routes, instead
    /// of `route`, `id` or `object_id`.
    public var routeColumn: String?
    /// Encoded polylines: 5 (Google) or 6 (OSRM `polyline6`, Valhalla). Directions responses set their own.
    public var precision: Int = 5
    /// Mark every route read as geodesic (`--geodesic`).
    public var geodesic: Bool = false
    /// Keep the times the input holds where they can be used (the default), refuse a time that cannot be used
    /// (`--times strict`), or drop them all (`--times ignore`).
    public var times: TimesRule = .keep
    /// CSV: the time column's name, instead of `time`, `timestamp` or `datetime`; `none`: no time column.
    public var timeColumn: String?
    /// What a time written without a zone means in CSV, GeoJSON and NDJSON: refused (the default), or UTC
    /// (`--time-zone UTC`). GPX times are UTC whatever this says, as the GPX schema defines them.
    public var timeZone: TimeValue.ZonelessRule = .refuse
    /// CSV and point streams: put each route's rows in time order (stable), rather than refusing times that go back.
    public var orderByTime: Bool = false
    /// Directions: the departure, in milliseconds since 1970, from which each vertex gets its planned time; nil:
    /// directions routes have no times (a duration is not an instant). Google's `departure_time` is used otherwise.
    public var departure: Int64?
    /// GeoJSON sequences and NDJSON: Point features grouped by route into line routes (`--points-as-tracks`), one
    /// position per point with its time, instead of being skipped.
    public var pointsAsTracks: Bool = false

    /// Options with the given values; every default reads strictly, as the command line does without flags.
    public init(skipInvalid: Bool = false, latColumn: String? = nil, lonColumn: String? = nil,
                routeColumn: String? = nil, precision: Int = 5, geodesic: Bool = false, times: TimesRule = .keep,
                timeColumn: String? = nil, timeZone: TimeValue.ZonelessRule = .refuse, orderByTime: Bool = false,
                departure: Int64? = nil, pointsAsTracks: Bool = false) {
        self.skipInvalid = skipInvalid
        self.precision = precision
        self.geodesic = geodesic
        self.latColumn = latColumn
        self.lonColumn = lonColumn
        self.routeColumn = routeColumn
        self.times = times
        self.timeColumn = timeColumn
        self.timeZone = timeZone
        self.orderByTime = orderByTime
        self.departure = departure
        self.pointsAsTracks = pointsAsTracks
    }

    /// True when readers should read times at all.
    var keepsTimes: Bool { times != .ignore }
}

/// What readers do with the times an input holds.
///
/// A route's times can be used when every position has one, each can be read and lies within 1970–9999, they never
/// go back (unless the reader puts the positions in time order), and they are not one instant repeated on every
/// position (a device without a clock). Positions are never lost to their times.
public enum TimesRule: String, Sendable, CaseIterable {
    /// Read them into `Route.times`; a route whose times cannot be used is read without times, and the reason, at
    /// the file's line or feature, is in `ReadResult.droppedTimes` (the default).
    case keep
    /// Read them into `Route.times`; a time that cannot be used is an error at its position, and with
    /// `skipInvalid` its route is left out (the rule before `keep` dropped times). A repeated instant is kept.
    case strict
    /// Drop them all, for files whose times are junk.
    case ignore
}

/// The routes read from one or more files, with what was left out.
public struct ReadResult: Sendable {
    /// The routes read, in input order.
    public var routes: [Route]
    /// Features that are not lines, counted by geometry type (`"Point"`, `"Polygon"`, `"null"`, …).
    public var skippedGeometries: [String: Int]
    /// The errors of the features or routes left out under `ReadOptions.skipInvalid`, one each.
    public var invalid: [InputError]
    /// The routes read without their times (`TimesRule.keep`), one each: where the first time that cannot be used
    /// is and why. Warnings, not errors: each route is in `routes`.
    public var droppedTimes: [InputError]

    /// A result with the given routes and omissions; empty by default.
    public init(routes: [Route] = [], skippedGeometries: [String: Int] = [:], invalid: [InputError] = [],
                droppedTimes: [InputError] = []) {
        self.routes = routes
        self.skippedGeometries = skippedGeometries
        self.invalid = invalid
        self.droppedTimes = droppedTimes
    }

    /// Adds another file's result to this one.
    public mutating func append(_ other: ReadResult) {
        routes.append(contentsOf: other.routes)
        skippedGeometries.merge(other.skippedGeometries, uniquingKeysWith: +)
        invalid.append(contentsOf: other.invalid)
        droppedTimes.append(contentsOf: other.droppedTimes)
    }

    /// With `options.geodesic` (`--geodesic` in the CLI), every route follows great circles: the one place the
    /// option is applied to what a reader made, whatever it set from the file itself.
    mutating func applyGeodesic(_ options: ReadOptions) {
        guard options.geodesic else { return }
        for i in routes.indices { routes[i].geodesic = true }
    }
}

/// Reads a route file of any supported format.
public enum RouteReader {
    /// Reads the file at `path`, in `format` or else the format `InputFormat.detect` finds. Errors name `path` as
    /// the file. GeoJSON text sequences, NDJSON and GPX are streamed; other formats are read whole.
    public static func read(path: String, format: InputFormat? = nil,
                            options: ReadOptions = ReadOptions()) throws -> ReadResult {
        let detected: InputFormat?
        if let format {
            detected = format
        } else {
            detected = InputFormat.detect(path: path, bytes: try ChunkedInput.head(ofPath: path))
        }
        if detected == .geojsonseq {
            var result = ReadResult()
            try GeoJSONSeqReader.forEachRecord(path: path, options: options) { result.append($0) }
            return result
        }
        if detected == .gpx {
            return try GPXReader.read(path: path, options: options)
        }
        // Detected again on the whole file: the start alone may not tell directions from GeoJSON.
        return try read(bytes: try FileBytes.contents(atPath: path), name: path, format: format, options: options)
    }

    /// Reads the file at `path` as `read(path:format:options:)` does, handing `body` the routes in pieces, so that
    /// memory stays bounded when `body` keeps nothing: one per record for GeoJSON sequences and NDJSON; batches of
    /// about 65,536 positions for a GeoJSON FeatureCollection in a `.geojson` file (or read with `format` geojson),
    /// which is mapped into memory rather than read (see `MappedFile`); one for the whole file otherwise.
    public static func forEachPiece(path: String, format: InputFormat? = nil, options: ReadOptions = ReadOptions(),
                                    _ body: (ReadResult) throws -> Void) throws {
        let detected = try format ?? InputFormat.detect(path: path, bytes: ChunkedInput.head(ofPath: path))
        if detected == .geojsonseq {
            try GeoJSONSeqReader.forEachRecord(path: path, options: options, body)
        } else if detected == .geojson, format == .geojson || path.lowercased().hasSuffix(".geojson") {
            guard let mapped = try MappedFile(path: path),
                  mapped.bytes.contains(where: { !InputFormat.isSpace($0) }) else {
                throw InputError(file: path, message: "file is empty")
            }
            try GeoJSONReader.forEachBatch(mapped.bytes, file: path, options: options) { piece in
                var piece = piece
                piece.applyGeodesic(options)
                try body(piece)
            }
        } else {
            try body(read(path: path, format: format, options: options))
        }
    }

    /// The message when the format cannot be told from the name or the content. The library has no flags: a
    /// caller that can be told the format (the CLI's `--format`) adds how.
    package static let undetectedFormat = "cannot tell the format: not GeoJSON, a GeoJSON sequence, directions JSON, "
        + "GPX, encoded polylines, nor CSV with latitude and longitude columns; name the file by its format"

    /// Reads routes from bytes in memory (an HTTP body), in `format` or else the format found from `name`'s
    /// extension and the content. Errors name `name` as the file.
    public static func read(bytes: [UInt8], name: String, format: InputFormat? = nil,
                            options: ReadOptions = ReadOptions()) throws -> ReadResult {
        guard bytes.contains(where: { !InputFormat.isSpace($0) }) else {
            throw InputError(file: name, message: "file is empty")
        }
        guard let format = format ?? InputFormat.detect(path: name, bytes: bytes) else {
            throw InputError(file: name, message: undetectedFormat)
        }
        var result: ReadResult
        switch format {
        case .geojson: result = try GeoJSONReader.read(bytes, file: name, options: options)
        case .csv: result = try CSVReader.read(bytes, file: name, options: options)
        case .polyline: result = try PolylineReader.read(bytes, file: name, options: options)
        case .directions: result = try DirectionsReader.read(bytes, file: name, options: options)
        case .gpx: result = try GPXReader.read(bytes, file: name, options: options)
        case .geojsonseq: result = try GeoJSONSeqReader.read(bytes: bytes, file: name, options: options)
        }
        result.applyGeodesic(options)
        return result
    }
}
