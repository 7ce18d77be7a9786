import RouteTiles

/// Finds the extent of an HTTP/1.1 request head in raw bytes and reads the few fields the cached-tile fast path
/// needs, without building any header structure.
///
/// Deliberately narrow: it accepts only well-formed heads and says `.unsure` for anything else (a body, obsolete
/// line folding, control characters, an unknown protocol), after which the connection's bytes all go to NIO's real
/// HTTP decoder, which enforces the protocol and its limits. It never rejects a request itself.
enum RequestHeadScanner {
    /// What the head asks for, when it is a candidate for the fast path.
    struct Head {
        var isHead: Bool
        /// The target's path (before any `?`), as an offset and length in the scanned bytes.
        var pathStart: Int
        var pathCount: Int
        /// `Accept-Encoding` allows gzip.
        var acceptsGzip: Bool
        /// The `If-None-Match` value, when there is one (several lines joined by commas).
        var ifNoneMatch: String?
        /// A `GET` or `HEAD` of an HTTP/1.1 origin-form target without percent escapes, with no `Connection`,
        /// `Expect` or `Upgrade` field: the kinds of request the fast path may answer.
        var isCandidate: Bool
        /// The credential: the token of `Authorization: Bearer …`, else the `access_token` query parameter's value,
        /// as offsets in the scanned bytes; nil without one.
        var credential: Range<Int>?
        /// An `Authorization` field that is not a bearer token (or several): the full path explains the 401.
        var otherAuthorization = false
        /// The query (after `?`), as offsets in the scanned bytes; nil without one.
        var query: Range<Int>?
        /// The query has a `sig` parameter: a signed tile URL.
        var isSigned = false
    }

    enum Result {
        /// The bytes end before the head does.
        case incomplete
        /// A complete request of `length` bytes with no body.
        case request(Head, length: Int)
        /// Not a request this scanner can delimit with certainty.
        case unsure
    }

    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")

    static func scan(_ bytes: UnsafeRawBufferPointer) -> Result {
        // The request line: METHOD SP target SP HTTP/1.x CRLF.
        let lineEnd: Int
        switch self.lineEnd(bytes, from: 0) {
        case let .at(end): lineEnd = end
        case .incomplete: return .incomplete
        case .malformed: return .unsure
        }
        guard let space1 = bytes[..<lineEnd].firstIndex(of: UInt8(ascii: " ")),
              let space2 = bytes[(space1 + 1)..<lineEnd].firstIndex(of: UInt8(ascii: " "))
        else { return .unsure }
        let method = bytes[..<space1]
        let target = bytes[(space1 + 1)..<space2]
        let version = bytes[(space2 + 1)..<lineEnd]
        guard !method.isEmpty, !target.isEmpty, method.allSatisfy(isTokenByte),
              target.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return .unsure }
        let isHTTP11 = version.elementsEqual("HTTP/1.1".utf8)
        guard isHTTP11 || version.elementsEqual("HTTP/1.0".utf8) else { return .unsure }
        let isGet = method.elementsEqual("GET".utf8)
        let isHead = method.elementsEqual("HEAD".utf8)

        var head = Head(isHead: isHead, pathStart: space1 + 1, pathCount: 0, acceptsGzip: false, ifNoneMatch: nil,
                        isCandidate: (isGet || isHead) && isHTTP11 && target.first == UInt8(ascii: "/")
                            && !target.contains(UInt8(ascii: "%")))
        head.pathCount = (target.firstIndex(of: UInt8(ascii: "?")) ?? space2) - head.pathStart
        // A window tile (`?from=…`, `?to=…`) is another tile than the one cached under the path: the full path's.
        if let question = target.firstIndex(of: UInt8(ascii: "?")) {
            let query = bytes[(question + 1)..<space2]
            head.query = query.startIndex..<query.endIndex
            head.isSigned = Self.parameter("sig", in: query) != nil
            if Self.namesTimeWindow(query) { head.isCandidate = false }
            head.credential = Self.parameter("access_token", in: query)
        }
        var bearer: Range<Int>?
        var gzip = GzipAcceptance()

        // Header fields, up to the empty line.
        var start = lineEnd + 2
        while true {
            let end: Int
            switch self.lineEnd(bytes, from: start) {
            case let .at(found): end = found
            case .incomplete: return .incomplete
            case .malformed: return .unsure
            }
            if end == start {
                start = end + 2
                break
            }
            let line = bytes[start..<end]
            start = end + 2
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .unsure }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return .unsure }  // also refuses folding
            let value = line[(colon + 1)...].trimmingWhitespace()
            guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else { return .unsure }
            if name.equalsIgnoringCase("content-length") {
                guard value.elementsEqual("0".utf8) else { return .unsure }  // a body: not delimited here
            } else if name.equalsIgnoringCase("transfer-encoding") {
                return .unsure
            } else if name.equalsIgnoringCase("accept-encoding") {
                gzip.add(UnsafeRawBufferPointer(rebasing: value))
            } else if name.equalsIgnoringCase("if-none-match") {
                let text = String(decoding: value, as: UTF8.self)
                head.ifNoneMatch = head.ifNoneMatch.map { $0 + ", " + text } ?? text
            } else if name.equalsIgnoringCase("connection") {
                // `keep-alive` (which browsers send) is what HTTP/1.1 does anyway; `close` and `upgrade` are
                // Hummingbird's to act on.
                if value.containsIgnoringCase("close") || value.containsIgnoringCase("upgrade") {
                    head.isCandidate = false
                }
            } else if name.equalsIgnoringCase("expect") || name.equalsIgnoringCase("upgrade") {
                head.isCandidate = false
            } else if name.equalsIgnoringCase("authorization") {
                let scheme = value.prefix(7)
                if bearer == nil, value.count > 7, scheme.prefix(6).equalsIgnoringCase("bearer"), scheme.last == UInt8(ascii: " ") {
                    bearer = value.startIndex + 7..<value.endIndex
                } else {
                    head.otherAuthorization = true
                }
            }
        }
        if let bearer { head.credential = bearer }
        head.acceptsGzip = gzip.allowsGzip
        return .request(head, length: start)
    }

    /// The value of the query parameter `name`, when it has one without escapes (else the full path reads it).
    static func parameter(_ name: String, in query: Slice<UnsafeRawBufferPointer>) -> Range<Int>? {
        var start = query.startIndex
        while start < query.endIndex {
            let end = query[start...].firstIndex(of: UInt8(ascii: "&")) ?? query.endIndex
            let parameter = query[start..<end]
            if let equals = parameter.firstIndex(of: UInt8(ascii: "=")),
               query[start..<equals].elementsEqual(name.utf8), equals + 1 < end {
                return (equals + 1)..<end
            }
            start = end + 1
        }
        return nil
    }

    /// Whether a query string has a `from` or `to` parameter.
    static func namesTimeWindow(_ query: Slice<UnsafeRawBufferPointer>) -> Bool {
        for parameter in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let name = parameter.prefix { $0 != UInt8(ascii: "=") }
            if name.elementsEqual("from".utf8) || name.elementsEqual("to".utf8) { return true }
        }
        return false
    }

    private enum LineEnd {
        /// The index of the line's CR.
        case at(Int)
        case incomplete
        /// A bare CR or LF.
        case malformed
    }

    /// The end of the line that starts at `from`: its CRLF.
    private static func lineEnd(_ bytes: UnsafeRawBufferPointer, from: Int) -> LineEnd {
        var i = from
        while i < bytes.count {
            if bytes[i] == cr {
                guard i + 1 < bytes.count else { return .incomplete }
                return bytes[i + 1] == lf ? .at(i) : .malformed
            }
            if bytes[i] == lf { return .malformed }
            i += 1
        }
        return .incomplete
    }

    /// RFC 9110 token characters.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}
