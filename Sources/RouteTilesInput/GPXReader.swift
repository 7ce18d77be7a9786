import RouteTilesModel

/// Reads GPX 1.1 (UTF-8): each `trk` becomes a route with its `trkseg`s as parts, each `rte` a route of its
/// `rtept`s, with `name`, `desc`, `type` and the first and last point `time`s as `start_time` / `end_time`; each
/// `wpt` a point in the layer `waypoints`, with its `name`, `desc`, `sym` and `time`.
///
/// The `<time>` of each `trkpt` and `rtept` becomes the position's time (`Route.times`; text without a zone is
/// UTC, as the GPX schema defines it). A track's times are used when every point has one, each can be read, and
/// they never go back nor repeat one placeholder instant on every point; otherwise the track is read without times
/// and `ReadResult.droppedTimes` says why at the point (`TimesRule`: `.strict` makes it an error instead, `.ignore`
/// reads no time at all).
///
/// The file is tokenized in one pass (`XMLTokenizer`) without building a tree, and read as a stream: a window of
/// about one chunk is held, never the whole file. Devices write empty tracks ("ACTIVE LOG" with an empty `trkseg`)
/// and one-point segments beside real ones: segments of fewer than two points are dropped, and a track or route
/// left with none is skipped; both are counted in `ReadResult.skippedGeometries`. Errors carry line and column; a
/// track, route or waypoint with a point whose coordinates are missing or out of range is invalid (skipped whole
/// with `--skip-invalid`). XML that is not well formed stops the read whatever the options.
package enum GPXReader {
    /// The vector tile layer of waypoints.
    package static let waypointsLayer = "waypoints"

    /// Reads GPX held in memory (an HTTP body).
    package static func read(_ bytes: [UInt8], file: String, options: ReadOptions) throws -> ReadResult {
        var reader = GPXDocumentReader(file: file, options: options)
        _ = try bytes.withUnsafeBufferPointer { try reader.consume($0, base: 0, isFinal: true) }
        return reader.result
    }

    /// Reads a GPX file as a stream: in chunks of `chunkSize` bytes, holding one chunk and the token that crosses
    /// its end, never the whole file.
    package static func read(path: String, options: ReadOptions, chunkSize: Int = 1 << 20) throws -> ReadResult {
        let input = try ChunkedInput(path: path, chunkSize: chunkSize)
        var reader = GPXDocumentReader(file: path, options: options)
        var window: [UInt8] = []
        var base = 0
        var isFinal = false
        while !isFinal {
            if let chunk = try input.nextChunk() {
                window.append(contentsOf: chunk)
            } else {
                isFinal = true
            }
            let consumed = try window.withUnsafeBufferPointer { buffer in
                try reader.consume(buffer, base: base, isFinal: isFinal)
            }
            window.removeSubrange(0..<consumed)
            base += consumed
        }
        return reader.result
    }
}

/// Turns the tokens of a GPX document into routes. The document may come in windows (`consume` once per window,
/// the last with `isFinal`); each window starts where the previous one stopped.
private struct GPXDocumentReader {
    let file: String
    let options: ReadOptions
    var result = ReadResult()
    private var stack: [Substring] = []
    private var draft: Draft?
    private var text = ""
    private var sawRoot = false
    /// Lines counted up to `lines.offset` (absolute), so that positions cost a scan of new bytes only.
    private var lines = LineCursor()
    /// The window being consumed, and the absolute offset of its first byte.
    private var window = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var base = 0
    /// Where the `<time>` being read starts.
    private var timeLocation = InputError.Location.none

    /// The route being read: a `trk` or an `rte`.
    struct Draft {
        var offset: Int
        var position: TextPosition
        var properties: [Property] = []
        var parts: [[Coordinate]] = []
        var startTime: String?
        var endTime: String?
        /// The first bad point, with `--skip-invalid`: the track is then skipped whole.
        var problem: InputError?
        /// A `wpt`: one position.
        var isWaypoint = false
        /// The time of each point kept.
        var times: TimesDraft
        /// The point being read (a `trkpt` or `rtept` not yet closed): where it starts and its `<time>`.
        var openPoint: (location: InputError.Location, time: Int64?)?
    }

    /// Line and column of absolute offsets, counted forward through the windows.
    struct LineCursor {
        var offset = 0
        var line = 1
        var lineStart = 0
    }

    init(file: String, options: ReadOptions) {
        self.file = file
        self.options = options
    }

    /// Reads the tokens of `buffer` (input bytes from absolute offset `base`) and returns how many bytes it
    /// consumed: all of them, or up to the token that the window's end cuts short.
    mutating func consume(_ buffer: UnsafeBufferPointer<UInt8>, base: Int, isFinal: Bool) throws -> Int {
        window = buffer
        self.base = base
        defer { window = UnsafeBufferPointer(start: nil, count: 0) }
        var tokenizer = XMLTokenizer(bytes: buffer, isFinal: isFinal, atInputStart: base == 0)
        do {
            while let token = try tokenizer.next() {
                try handle(token, at: base + tokenizer.tokenOffset)
            }
        } catch let error as XMLTokenizer.SyntaxError {
            if error.needsMore {
                _ = position(of: base + error.offset)
                return error.offset
            }
            throw self.error(error.message, at: base + error.offset)
        }
        if let open = stack.last { throw error("the file ends inside <\(open)>", at: base + buffer.count) }
        guard sawRoot else { throw InputError(file: file, message: "no <gpx> element") }
        return buffer.count
    }

    /// The line and column of an absolute offset in the current window, at or after the offsets asked before.
    mutating func position(of offset: Int) -> TextPosition {
        let end = min(max(offset, lines.offset), base + window.count)
        var index = lines.offset
        while index < end {
            if window[index - base] == UInt8(ascii: "\n") {
                lines.line += 1
                lines.lineStart = index + 1
            }
            index += 1
        }
        lines.offset = end
        return TextPosition(line: lines.line, column: max(offset, lines.lineStart) - lines.lineStart + 1)
    }

    mutating func error(_ message: String, at offset: Int) -> InputError {
        let p = position(of: offset)
        return InputError(file: file, location: .line(p.line, column: p.column), message: message)
    }

    static func localName(_ name: String) -> Substring {
        guard let colon = name.lastIndex(of: ":") else { return Substring(name) }
        return name[name.index(after: colon)...]
    }

    mutating func handle(_ token: XMLTokenizer.Token, at offset: Int) throws {
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
                draft = Draft(offset: offset, position: position(of: offset),
                              times: TimesDraft(file: file, noun: local == "trk" ? "trkpt" : "rtept", rule: options.times))
            case "trkseg" where parent == "trk":
                draft?.parts.append([])
            case "time" where options.keepsTimes && (parent == "trkpt" || parent == "rtept" || parent == "wpt"):
                let p = position(of: offset)
                timeLocation = .line(p.line, column: p.column)
            case "trkpt" where parent == "trkseg", "rtept" where parent == "rte":
                let point: Coordinate
                do {
                    point = try coordinate(attributes, tag: name, at: offset)
                } catch let problem as InputError where options.skipInvalid {
                    if draft?.problem == nil { draft?.problem = problem }
                    break
                }
                if local == "rtept", draft?.parts.isEmpty == true { draft?.parts.append([]) }
                guard let last = draft?.parts.indices.last else { break }
                draft?.parts[last].append(point)
                if options.keepsTimes {
                    let p = position(of: offset)
                    let location = InputError.Location.line(p.line, column: p.column)
                    if selfClosing {
                        draft?.times.add(nil, at: location)
                    } else {
                        draft?.openPoint = (location, nil)
                    }
                }
            case "wpt" where parent == "gpx":
                var waypoint = Draft(offset: offset, position: position(of: offset), isWaypoint: true,
                                     times: TimesDraft(file: file, noun: "wpt", rule: options.times))
                do {
                    waypoint.parts = [[try coordinate(attributes, tag: name, at: offset)]]
                } catch let problem as InputError where options.skipInvalid {
                    waypoint.problem = problem
                }
                if selfClosing {
                    try finish(waypoint)
                } else {
                    draft = waypoint
                }
            default: break
            }
            if !selfClosing { stack.append(local) }
        case .end(let name):
            let local = Self.localName(name)
            guard let open = stack.popLast() else { throw error("end tag </\(name)> without a start tag", at: offset) }
            guard open == local else { throw error("end tag </\(name)> does not close <\(open)>", at: offset) }
            let parent = stack.last
            switch local {
            case "name" where parent == "trk" || parent == "rte" || parent == "wpt",
                 "desc" where parent == "trk" || parent == "rte" || parent == "wpt",
                 "type" where parent == "trk" || parent == "rte",
                 "sym" where parent == "wpt":
                draft?.properties.append(Property(String(local), .string(text.trimmingSpace)))
            case "time" where parent == "trkpt" || parent == "rtept":
                let time = text.trimmingSpace
                if draft?.startTime == nil { draft?.startTime = time }
                draft?.endTime = time
                if options.keepsTimes, draft?.openPoint != nil, let instant = try pointTime(time) {
                    draft?.openPoint?.time = instant
                }
            case "time" where parent == "wpt":
                if options.keepsTimes, draft?.isWaypoint == true, let instant = try pointTime(text.trimmingSpace) {
                    draft?.properties.append(Property("time", .string(TimeValue.iso(instant))))
                }
            case "trkpt" where parent == "trkseg", "rtept" where parent == "rte":
                if let point = draft?.openPoint {
                    draft?.times.add(point.time, at: point.location)
                    draft?.openPoint = nil
                }
            case "trkseg" where parent == "trk":
                // A segment too short to keep takes its times with it.
                if let count = draft?.parts.last?.count, count < 2 { draft?.times.dropLast(count) }
            case "trk" where parent == "gpx", "rte" where parent == "gpx", "wpt" where parent == "gpx":
                if let finished = draft { try finish(finished) }
                draft = nil
            default: break
            }
            text = ""
        }
    }

    /// The instant of a point's `<time>` text (zone-less text is UTC). A time that cannot be read throws under
    /// `--times strict`, or with `--skip-invalid` too makes the track invalid; under `keep` the track's times are
    /// dropped for it (a waypoint's `time` is left out), with a warning. Nil when it gives no time.
    mutating func pointTime(_ text: String) throws -> Int64? {
        do {
            return try TimeValue.parse(text, zoneless: .utc)
        } catch {
            let problem = InputError(file: file, location: timeLocation, message: TimesDraft.message(error))
            if options.times == .keep {
                if draft?.isWaypoint == true {
                    result.droppedTimes.append(problem)
                } else {
                    try draft?.times.unusable(problem)
                }
                return nil
            }
            guard options.skipInvalid else { throw problem }
            if draft?.problem == nil { draft?.problem = problem }
            return nil
        }
    }

    mutating func coordinate(_ attributes: [(String, String)], tag: String, at offset: Int) throws -> Coordinate {
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
        if draft.isWaypoint {
            result.routes.append(Route(properties: draft.properties, parts: draft.parts, origin: "\(file) byte \(draft.offset)",
                                       layer: GPXReader.waypointsLayer, kind: .point))
            return
        }
        let parts = draft.parts.filter { $0.count >= 2 }
        let short = draft.parts.count - parts.count
        let times: [Int64]?
        do {
            let finished = try draft.times.finish()
            times = finished.times
            if let dropped = finished.dropped { result.droppedTimes.append(dropped) }
        } catch {
            guard options.skipInvalid else { throw error }
            result.invalid.append(error)
            return
        }
        guard !parts.isEmpty else {
            // An empty track, as devices write them: skipped and counted, like other things that are not lines.
            result.skippedGeometries["trk or rte with no segment of two points", default: 0] += 1
            return
        }
        if short > 0 { result.skippedGeometries["trkseg of fewer than two points", default: 0] += short }
        var properties = draft.properties
        if let start = draft.startTime { properties.append(Property("start_time", .string(start))) }
        if let end = draft.endTime { properties.append(Property("end_time", .string(end))) }
        // The origin names the byte offset: a line number would cost a scan from the start of the file per track.
        result.routes.append(Route(properties: properties, parts: parts,
                                   origin: "\(file) byte \(draft.offset)", geodesic: options.geodesic, times: times))
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
