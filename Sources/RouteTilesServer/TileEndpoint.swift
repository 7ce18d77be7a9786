import HTTPTypes
import Hummingbird
import RouteTiles

/// The answer to a tile request, before it becomes Hummingbird's `Response` or is written straight to the channel
/// by `CachedTileHandler`: both paths build it here, so a tile is answered the same way on either.
struct TileAnswer {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    /// What is sent after the head: empty for HEAD, 204 and 304.
    var body: ByteBuffer
}

extension RouteTilesResponder {
    static let tileContentType = "application/vnd.mapbox-vector-tile"

    /// `GET`/`HEAD /tiles/{z}/{x}/{y}.mvt`.
    func tile(_ request: Request, path: Substring) async -> Response {
        let id: TileID
        switch TileRequestPath.parse(path) {
        case let .tile(tile): id = tile
        case let .malformed(reason), let .outOfRange(reason): return HTTPAnswers.error(.badRequest, reason)
        }
        let service = state.tiles
        guard service.backend.serves(zoom: id.z) else {
            return HTTPAnswers.error(.notFound, "zoom \(id.z) is outside \(service.backend.minZoom)–\(service.backend.maxZoom)")
        }
        let entry: TileCache.Entry
        do {
            entry = try await service.tile(id)
        } catch is GenerationLimiter.Overloaded {
            state.metrics.overloaded.increment()
            return HTTPAnswers.error(.serviceUnavailable, "too many tiles being generated; retry shortly",
                                     headers: [.retryAfter: String(state.configuration.retryAfterSeconds)])
        } catch {
            state.logger.error("tile \(id): \(error)")
            return HTTPAnswers.error(.internalServerError, "cannot produce tile \(id): \(error)")
        }
        do {
            let answer = try tileAnswer(entry, isHead: request.method == .head,
                                        acceptsGzip: Self.acceptsGzip(request.headers[.acceptEncoding]),
                                        ifNoneMatch: request.headers[.ifNoneMatch])
            let body = answer.body.readableBytes == 0 ? ResponseBody() : ResponseBody(byteBuffer: answer.body)
            return Response(status: answer.status, headers: answer.headers, body: body)
        } catch {
            return HTTPAnswers.error(.internalServerError, "stored tile \(id) is not valid gzip: \(error)")
        }
    }

    /// The answer for a tile's cache entry: 204 when empty, 304 when `If-None-Match` names the tag, else 200 with
    /// the gzip bytes or, for a client that does not accept gzip, the decompressed ones. Throws when the stored
    /// bytes do not decompress.
    func tileAnswer(_ entry: TileCache.Entry, isHead: Bool, acceptsGzip gzip: Bool, ifNoneMatch: String?) throws
        -> TileAnswer
    {
        // Appended, not assigned: each field is new, and assigning first looks for an existing one.
        var headers = HTTPFields()
        headers.reserveCapacity(12)
        headers.append(HTTPField(name: .cacheControl, value: state.configuration.cacheControl))
        headers.append(HTTPField(name: .vary, value: "Accept-Encoding"))
        // No Content-Length on 204 and 304 (RFC 9110 §8.6; NIO's encoder strips it from Hummingbird's too).
        if entry.isEmpty {
            return TileAnswer(status: .noContent, headers: headers, body: ByteBuffer())
        }
        let etag = gzip ? entry.etag : TileHasher.identityTag(entry.etag)
        headers.append(HTTPField(name: .eTag, value: etag))
        if let tags = ifNoneMatch, Self.matches(tags, etag) {
            return TileAnswer(status: .notModified, headers: headers, body: ByteBuffer())
        }
        headers.append(HTTPField(name: .contentType, value: Self.tileContentType))
        let body: ByteBuffer
        if gzip {
            headers.append(HTTPField(name: .contentEncoding, value: "gzip"))
            body = entry.gzip
        } else {
            body = ByteBuffer(bytes: try Gzip.decompress(Array(entry.gzip.readableBytesView)))
        }
        headers.append(HTTPField(name: .contentLength, value: String(body.readableBytes)))
        return TileAnswer(status: .ok, headers: headers, body: isHead ? ByteBuffer() : body)
    }

    /// Whether an `Accept-Encoding` value (several header lines joined by commas) allows gzip.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard var header else { return false }
        var acceptance = GzipAcceptance()
        header.withUTF8 { acceptance.add(UnsafeRawBufferPointer($0)) }
        return acceptance.allowsGzip
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, as the header asks) or is `*`.
    static func matches(_ header: String, _ etag: String) -> Bool {
        for item in header.split(separator: ",") {
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == etag { return true }
        }
        return false
    }
}

extension RouteTilesResponder {
    /// The answer to a `GET` or `HEAD` of a tile that is already cached, with every header the full path would
    /// send (CORS included; `Date` and `Server` are added by the caller, as Hummingbird adds them), counted in the
    /// metrics and the access log. Nil when the request needs the full path: another resource, a path that is not a
    /// plain tile path (a 400 or 404 to explain), a tile not in the cache, a client that does not accept gzip.
    /// - Parameter bytes: the request head's bytes, which `head` indexes.
    func cachedTileAnswer(_ head: RequestHeadScanner.Head, in bytes: UnsafeRawBufferPointer) -> TileAnswer? {
        let prefix = "/tiles/".utf8.count
        let path = UnsafeRawBufferPointer(rebasing: bytes[head.pathStart..<(head.pathStart + head.pathCount)])
        // A client that refuses gzip gets the tile inflated: CPU work, left to the full path, off the event loop.
        guard head.isCandidate, head.acceptsGzip, path.count > prefix, path.prefix(prefix).elementsEqual("/tiles/".utf8)
        else {
            return nil
        }
        let started = state.logger.logLevel <= .info ? ContinuousClock.now : nil
        guard case let .tile(id) = TileRequestPath.parse(UnsafeRawBufferPointer(rebasing: path[prefix...])),
              state.tiles.backend.serves(zoom: id.z),
              let entry = state.tiles.cachedTile(id),
              var answer = try? tileAnswer(entry, isHead: head.isHead, acceptsGzip: head.acceptsGzip,
                                           ifNoneMatch: head.ifNoneMatch)
        else { return nil }
        let method: HTTPRequest.Method = head.isHead ? .head : .get
        addCORS(to: &answer.headers, method: method)
        state.metrics.fastAnswers.increment()
        record(method: method, path: String(decoding: path, as: UTF8.self), status: answer.status.code,
               bytes: answer.body.readableBytes, started: started)
        return answer
    }
}

/// Whether `Accept-Encoding` allows gzip: listed with a non-zero q, or `*` with a non-zero q and gzip not refused
/// (RFC 9110 §12.5.3). No header means identity. Reads the field's bytes in place, line by line: this runs on every
/// tile request.
struct GzipAcceptance {
    private var gzip: Double?
    private var star: Double?

    var allowsGzip: Bool {
        if let gzip { return gzip > 0 }
        return (star ?? 0) > 0
    }

    /// Adds the items of one `Accept-Encoding` line.
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for item in bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            guard let item = AcceptEncodingItem(item) else { continue }
            switch item.kind {
            case .gzip: gzip = item.q
            case .any: star = item.q
            case .other: break
            }
        }
    }
}

/// One item of an `Accept-Encoding` list: a coding and its q (1 when not given).
struct AcceptEncodingItem {
    enum Kind { case gzip, any, other }
    var kind: Kind
    var q: Double

    /// Nil for an empty item.
    init?(_ item: Slice<UnsafeRawBufferPointer>) {
        var parameters = item.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).makeIterator()
        guard let codingBytes = parameters.next().map(Self.trimmed), !codingBytes.isEmpty else { return nil }
        if Self.equalsIgnoringCase(codingBytes, "gzip") || Self.equalsIgnoringCase(codingBytes, "x-gzip") {
            kind = .gzip
        } else if codingBytes.count == 1, codingBytes.first == UInt8(ascii: "*") {
            kind = .any
        } else {
            kind = .other
        }
        q = 1
        while let parameter = parameters.next().map(Self.trimmed) {
            guard parameter.count >= 2, Self.lowercased(parameter[parameter.startIndex]) == UInt8(ascii: "q"),
                  parameter[parameter.startIndex + 1] == UInt8(ascii: "=")
            else { continue }
            q = Double(String(decoding: parameter.dropFirst(2), as: UTF8.self)) ?? 0
        }
    }

    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        return bytes
    }

    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        return zip(bytes, UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
            .allSatisfy { lowercased($0) == $1 }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }
}
