import RouteTilesModel

/// Reads routes from GeoJSON (RFC 7946).
///
/// Accepts a FeatureCollection, a single Feature, or a bare geometry. Each feature whose geometry is a LineString
/// becomes a route with one part; a MultiLineString, a route with one part per line; a GeometryCollection, a route
/// with the parts of its LineStrings and MultiLineStrings. Features with other geometries (points, polygons, null) are
/// counted in `ReadResult.skippedGeometries` by type name (`"null"` for a null geometry).
///
/// JSON syntax errors always throw, with line and column. A malformed feature throws with its index, or with
/// `ReadOptions.skipInvalid` is left out and reported in `ReadResult.invalid`.
package enum GeoJSONReader {
    package static func read(_ bytes: [UInt8], file: String, options: ReadOptions) throws -> ReadResult {
        try bytes.withUnsafeBufferPointer { buffer throws -> ReadResult in
            var reader = GeoJSONDocumentReader(bytes: buffer, file: file, options: options)
            do {
                return try reader.read()
            } catch let error as JSONSyntaxError {
                throw error.inputError(file: file, in: buffer)
            }
        }
    }

    /// Reads `bytes` as `read` does, handing `body` the routes in batches of about `batchPoints` positions as the
    /// features are read, when the document says it is a FeatureCollection before its `features` (the usual order);
    /// otherwise in one batch at the end. Counts of skipped and invalid features come with the batch they fell in.
    /// A syntax error further on still throws, after the batches before it were handed over.
    package static func forEachBatch(_ bytes: UnsafeBufferPointer<UInt8>, file: String, options: ReadOptions,
                                    batchPoints: Int = 1 << 16, _ body: (ReadResult) throws -> Void) throws {
        try withoutActuallyEscaping(body) { body in
            var reader = GeoJSONDocumentReader(bytes: bytes, file: file, options: options)
            reader.batch = (batchPoints, body)
            let rest: ReadResult
            do {
                rest = try reader.read()
            } catch let error as JSONSyntaxError {
                throw error.inputError(file: file, in: bytes)
            }
            try body(rest)
        }
    }
}

/// One pass over a GeoJSON document. The top-level object's members may come in any order, so everything a
/// FeatureCollection, a Feature or a geometry could need is read, and the `type` decides at the end which of it counts.
private struct GeoJSONDocumentReader {
    var scanner: JSONScanner
    let file: String
    let options: ReadOptions
    /// Where a FeatureCollection's routes go as they are read, every `points` positions (see `forEachBatch`).
    var batch: (points: Int, body: (ReadResult) throws -> Void)?

    init(bytes: UnsafeBufferPointer<UInt8>, file: String, options: ReadOptions) {
        scanner = JSONScanner(bytes: bytes)
        self.file = file
        self.options = options
    }

    /// The top-level object's members.
    private struct TopLevel {
        var type: String?
        var typeOffset = 0
        var typeProblem: FeatureProblem?
        /// As a Feature.
        var feature = FeatureDraft()
        /// As a geometry.
        var geometry = GeometryDraft()
        /// As a FeatureCollection: what its features made, and whether there was a `features` array.
        var collection = ReadResult()
        var featuresProblem: String?
        var hasFeatures = false
    }

    mutating func read() throws -> ReadResult {
        scanner.skipWhitespace()
        guard !scanner.isAtEnd else { throw InputError(file: file, message: "file is empty") }
        let kind = try scanner.peekKind()
        guard kind == .object else {
            // Check the syntax first: a syntax error is the more useful message.
            let valueOffset = scanner.offset
            try scanner.skipValue()
            try scanner.finish()
            throw error("expected a GeoJSON object at the top level, found \(kind.description)", at: valueOffset)
        }

        var top = TopLevel()
        var object = try scanner.enterObject()
        while let key = try scanner.nextKey(in: &object) {
            switch key {
            case "type":
                _ = try scanner.peekKind()
                top.typeOffset = scanner.offset
                switch try scanner.readTypeMember() {
                case .success(let type): top.type = type
                case .failure(let problem): top.typeProblem = problem
                }
            case "features":
                try readFeatures(into: &top)
            default:
                if try scanner.readFeatureMember(key, into: &top.feature) { continue }
                if try scanner.readGeometryMember(key, into: &top.geometry) { continue }
                try scanner.skipValue()
            }
        }
        try scanner.finish()
        return try result(of: top)
    }

    /// Reads a `features` array, turning each feature into its outcome as it goes, so that a large collection is
    /// never held as drafts.
    private mutating func readFeatures(into top: inout TopLevel) throws {
        let kind = try scanner.peekKind()
        top.collection = ReadResult()
        guard kind == .array else {
            top.featuresProblem = "\"features\" must be an array, found \(kind.description)"
            top.hasFeatures = false
            try scanner.skipValue()
            return
        }
        top.featuresProblem = nil
        top.hasFeatures = true
        // When the type came first (the usual order), the first bad feature can stop the read at once.
        let failFast = top.type == "FeatureCollection" && !options.skipInvalid
        var array = try scanner.enterArray()
        var index = 0
        var pending = 0
        while try scanner.nextElement(in: &array) {
            let feature = try scanner.readFeature()
            let outcome = feature.outcome(origin: "\(file) feature \(index)", options: options)
            if failFast, case .invalid(let problem) = outcome {
                throw InputError(file: file, location: .feature(index), message: problem.message)
            }
            record(outcome, index: index, in: &top.collection)
            index += 1
            if let batch, top.type == "FeatureCollection", case .route(let route, _) = outcome {
                pending += route.pointCount
                if pending >= batch.points {
                    try batch.body(top.collection)
                    top.collection = ReadResult()
                    pending = 0
                }
            }
        }
    }

    private func record(_ outcome: FeatureOutcome, index: Int, in result: inout ReadResult) {
        switch outcome {
        case let .route(route, droppedTimes):
            result.routes.append(route)
            if let droppedTimes {
                result.droppedTimes.append(InputError(file: file, location: .feature(index), message: droppedTimes.message))
            }
        case .skipped(let type): result.skippedGeometries[type, default: 0] += 1
        case .invalid(let problem):
            result.invalid.append(InputError(file: file, location: .feature(index), message: problem.message))
        }
    }

    /// What the document yields, now that its type is known.
    private func result(of top: TopLevel) throws -> ReadResult {
        if let typeProblem = top.typeProblem {
            throw error("top-level " + typeProblem.message, at: top.typeOffset)
        }
        guard let type = top.type else {
            throw InputError(file: file, message: "the top-level object has no \"type\"; expected a GeoJSON "
                                 + "FeatureCollection, Feature or geometry")
        }
        var result = ReadResult()
        switch type {
        case "FeatureCollection":
            if let problem = top.featuresProblem { throw InputError(file: file, message: problem) }
            guard top.hasFeatures else { throw InputError(file: file, message: "FeatureCollection has no \"features\"") }
            result = top.collection
        case "Feature":
            var feature = top.feature
            feature.type = type
            record(feature.outcome(origin: "\(file) feature 0", options: options), index: 0, in: &result)
        case "LineString", "MultiLineString", "GeometryCollection":
            var feature = FeatureDraft()
            feature.type = "Feature"
            var geometry = top.geometry
            geometry.type = type
            feature.geometry = geometry
            record(feature.outcome(origin: "\(file) feature 0", options: options), index: 0, in: &result)
        default:
            guard GeometryDraft.otherTypes.contains(type) else {
                throw error("unknown GeoJSON type '\(type)'; expected a FeatureCollection, Feature or geometry",
                            at: top.typeOffset)
            }
            result.skippedGeometries[type] = 1
        }
        if !options.skipInvalid, let first = result.invalid.first { throw first }
        return result
    }

    private func error(_ message: String, at offset: Int) -> InputError {
        JSONSyntaxError(offset: offset, message: message).inputError(file: file, in: scanner.bytes)
    }
}
