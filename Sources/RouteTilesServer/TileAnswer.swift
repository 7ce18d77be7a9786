import HTTPTypes
import Hummingbird
import RouteTiles

/// The answer to a tile request, before it becomes Hummingbird's `Response` or is written straight to the channel
/// by `CachedTileFastPath`: both paths build it with `tileAnswer`, so a tile is answered the same way on either.
struct TileAnswer {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    /// What is sent after the head: empty for HEAD, 204 and 304.
    var body: ByteBuffer
}

extension RouteTilesResponder {
    static let tileContentType = "application/vnd.mapbox-vector-tile"

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
