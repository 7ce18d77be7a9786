/// How readers treat their input.
public struct ReadOptions: Sendable {
    /// Leave out invalid features (GeoJSON) or routes (CSV) and report them in `ReadResult.invalid`, instead of
    /// failing on the first. Syntax errors (malformed JSON, an unterminated CSV quote) always fail.
    public var skipInvalid: Bool = false
    /// CSV: the latitude column's name, instead of `lat` or `latitude`.
    public var latColumn: String?
    /// CSV: the longitude column's name, instead of `lon`, `lng`, `long` or `longitude`.
    public var lonColumn: String?
    /// CSV: the column whose values group rows into routes, instead of `route` or `id`.
    public var routeColumn: String?

    public init(skipInvalid: Bool = false, latColumn: String? = nil, lonColumn: String? = nil,
                routeColumn: String? = nil) {
        self.skipInvalid = skipInvalid
        self.latColumn = latColumn
        self.lonColumn = lonColumn
        self.routeColumn = routeColumn
    }
}

/// The routes read from one or more files, with what was left out.
public struct ReadResult: Sendable {
    public var routes: [Route]
    /// Features that are not lines, counted by geometry type (`"Point"`, `"Polygon"`, `"null"`, …).
    public var skippedGeometries: [String: Int]
    /// The errors of the features or routes left out under `ReadOptions.skipInvalid`, one each.
    public var invalid: [InputError]

    public init(routes: [Route] = [], skippedGeometries: [String: Int] = [:], invalid: [InputError] = []) {
        self.routes = routes
        self.skippedGeometries = skippedGeometries
        self.invalid = invalid
    }

    /// Adds another file's result to this one.
    public mutating func append(_ other: ReadResult) {
        routes.append(contentsOf: other.routes)
        skippedGeometries.merge(other.skippedGeometries, uniquingKeysWith: +)
        invalid.append(contentsOf: other.invalid)
    }
}

/// Reads a route file of any supported format.
public enum RouteReader {
    /// Reads the file at `path`, in `format` or else the format `InputFormat.detect` finds. Errors name `path` as
    /// the file.
    public static func read(path: String, format: InputFormat? = nil,
                            options: ReadOptions = ReadOptions()) throws -> ReadResult {
        let bytes = try FileBytes.contents(atPath: path)
        guard bytes.contains(where: { !InputFormat.isSpace($0) }) else {
            throw InputError(file: path, message: "file is empty")
        }
        guard let format = format ?? InputFormat.detect(path: path, bytes: bytes) else {
            throw InputError(file: path, message: "cannot tell the format: the file is neither GeoJSON (starts with "
                                 + "'{') nor CSV with latitude and longitude columns; name it .geojson, .json or .csv")
        }
        switch format {
        case .geojson: return try GeoJSONReader.read(bytes, file: path, options: options)
        case .csv: return try CSVReader.read(bytes, file: path, options: options)
        }
    }
}
