/// Reads GPX 1.1 (UTF-8): each `trk` becomes a route with its `trkseg`s as parts, each `rte` a route of its
/// `rtept`s, with `name`, `desc`, `type` and the first and last point `time`s as `start_time` / `end_time`.
///
/// The file is tokenized in one pass (`XMLTokenizer`) without building a tree. Waypoints (`wpt`) are counted in
/// `ReadResult.skippedGeometries`. Errors carry line and column; a track with no segment of two points, or with a
/// point whose coordinates are missing or out of range, is invalid (skipped whole with `--skip-invalid`). XML that
/// is not well formed stops the read whatever the options.
public enum GPXReader {
    public static func read(_ bytes: [UInt8], file: String, options: ReadOptions) throws -> ReadResult {
        try bytes.withUnsafeBufferPointer { buffer throws -> ReadResult in
            var reader = GPXDocumentReader(tokenizer: XMLTokenizer(bytes: buffer), file: file, options: options)
            do {
                return try reader.read()
            } catch let error as XMLTokenizer.SyntaxError {
                let position = TextPosition(offset: error.offset, in: buffer)
                throw InputError(file: file, location: .line(position.line, column: position.column),
                                 message: error.message)
            }
        }
    }
}

private struct GPXDocumentReader {
    var tokenizer: XMLTokenizer
    let file: String
    let options: ReadOptions
    var result = ReadResult()

    /// The route being read: a `trk` or an `rte`.
    struct Draft {
        var offset: Int
        var properties: [Property] = []
        var parts: [[Coordinate]] = []
        var startTime: String?
        var endTime: String?
        /// The first bad point, with `--skip-invalid`: the track is then skipped whole.
        var problem: InputError?
    }

    init(tokenizer: XMLTokenizer, file: String, options: ReadOptions) {
        self.tokenizer = tokenizer
        self.file = file
        self.options = options
    }

    func error(_ message: String, at offset: Int) -> InputError {
        let position = TextPosition(offset: offset, in: tokenizer.bytes)
        return InputError(file: file, location: .line(position.line, column: position.column), message: message)
    }

    static func localName(_ name: String) -> Substring {
        guard let colon = name.lastIndex(of: ":") else { return Substring(name) }
        return name[name.index(after: colon)...]
    }

    mutating func read() throws -> ReadResult {
        var stack: [Substring] = []
        var draft: Draft?
        var text = ""
        var sawRoot = false
        while let token = try tokenizer.next() {
            let offset = tokenizer.tokenOffset
            switch token {
            case .text(let value):
                if stack.isEmpty, value.contains(where: { !$0.isWhitespace }) {
                    throw error("text outside the root element", at: offset)
                }
                text += value
            case let .start(name, attributes, selfClosing):
                let local = Self.localName(name)
                if stack.isEmpty {
                    guard !sawRoot else { throw error("a second root element <\(name)>", at: offset) }
                    guard local == "gpx" else { throw error("expected a <gpx> root element, found <\(name)>", at: offset) }
                    sawRoot = true
                }
                text = ""
                let parent = stack.last
                switch local {
                case "trk" where parent == "gpx", "rte" where parent == "gpx":
                    draft = Draft(offset: offset)
                case "trkseg" where parent == "trk":
                    draft?.parts.append([])
                case "trkpt" where parent == "trkseg", "rtept" where parent == "rte":
                    let point: Coordinate
                    do {
                        point = try coordinate(attributes, tag: name, at: offset)
                    } catch let problem as InputError where options.skipInvalid {
                        if draft?.problem == nil { draft?.problem = problem }
                        break
                    }
                    if local == "rtept", draft?.parts.isEmpty == true { draft?.parts.append([]) }
                    if let last = draft?.parts.indices.last { draft?.parts[last].append(point) }
                case "wpt" where parent == "gpx":
                    result.skippedGeometries["wpt", default: 0] += 1
                default: break
                }
                if !selfClosing { stack.append(local) }
            case .end(let name):
                let local = Self.localName(name)
                guard let open = stack.popLast() else { throw error("end tag </\(name)> without a start tag", at: offset) }
                guard open == local else { throw error("end tag </\(name)> does not close <\(open)>", at: offset) }
                let parent = stack.last
                switch local {
                case "name" where parent == "trk" || parent == "rte",
                     "desc" where parent == "trk" || parent == "rte",
                     "type" where parent == "trk" || parent == "rte":
                    draft?.properties.append(Property(String(local), .string(text.trimmingSpace)))
                case "time" where parent == "trkpt" || parent == "rtept":
                    let time = text.trimmingSpace
                    if draft?.startTime == nil { draft?.startTime = time }
                    draft?.endTime = time
                case "trk" where parent == "gpx", "rte" where parent == "gpx":
                    if let finished = draft { try finish(finished) }
                    draft = nil
                default: break
                }
                text = ""
            }
        }
        if let open = stack.last { throw error("the file ends inside <\(open)>", at: tokenizer.bytes.count) }
        guard sawRoot else { throw InputError(file: file, message: "no <gpx> element") }
        return result
    }

    func coordinate(_ attributes: [(String, String)], tag: String, at offset: Int) throws -> Coordinate {
        func value(_ key: String) throws -> Double {
            guard let text = attributes.first(where: { $0.0 == key })?.1 else {
                throw error("<\(tag)> has no \(key) attribute", at: offset)
            }
            guard let number = Double(text) ?? Double(text.trimmingSpace), number.isFinite else {
                throw error("<\(tag)> \(key)=\"\(text)\" is not a number", at: offset)
            }
            return number
        }
        let c = Coordinate(longitude: try value("lon"), latitude: try value("lat"))
        if let problem = CoordinateLimits.problem(with: c) { throw error("<\(tag)>: \(problem)", at: offset) }
        return c
    }

    mutating func finish(_ draft: Draft) throws {
        if let problem = draft.problem {
            result.invalid.append(problem)
            return
        }
        let parts = draft.parts.filter { $0.count >= 2 }
        guard !parts.isEmpty else {
            let problem = error("track or route has no segment of two or more points", at: draft.offset)
            guard options.skipInvalid else { throw problem }
            result.invalid.append(problem)
            return
        }
        var properties = draft.properties
        if let start = draft.startTime { properties.append(Property("start_time", .string(start))) }
        if let end = draft.endTime { properties.append(Property("end_time", .string(end))) }
        // The origin names the byte offset: a line number would cost a scan from the start of the file per track.
        result.routes.append(Route(properties: properties, parts: parts,
                                   origin: "\(file) byte \(draft.offset)", geodesic: options.geodesic))
    }
}

extension String {
    /// The string without leading and trailing XML whitespace.
    var trimmingSpace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !" \t\r\n".unicodeScalars.contains($0) }),
              let last = scalars.lastIndex(where: { !" \t\r\n".unicodeScalars.contains($0) }) else { return "" }
        return String(scalars[first...last])
    }
}
