import HTTPTypes
import NIOCore
import RouteTiles

/// The head of the answer most cached-tile requests get (200, gzip), as bytes made once per server, so that the
/// fast path writes a few runs of bytes around the tile's tag and length instead of building and encoding a field
/// list per request.
///
/// The runs come from the full path's own answer (`TileHTTPAnswer(_:lastModified:)`, `TileEndpoints.keepPrivate`,
/// `CORSHeaders.add`) for a template tile, cut where the tag and the length go: the fields, their order and their
/// values are those of every other tile answer by construction.
struct CachedTileHead: Sendable {
    /// The status line and the fields before `ETag`'s value, public and private (`Cache-Control` differs).
    private let opening: [UInt8]
    private let privateOpening: [UInt8]
    /// From the end of the tag to `Content-Length`'s value.
    private let middle: [UInt8]
    /// From the end of the length to the last field (the CORS fields), each line ended.
    private let closing: [UInt8]

    /// The tag and the length a template answer carries, found again in its encoded head.
    private static let tagMark = "\"rt-tag\"", lengthMark = 987_654_321

    init(tiles: TileEndpoints) {
        func encoded(isPrivate: Bool) -> [UInt8] {
            let template = TileAnswer<ByteBuffer>(status: .ok, cacheControl: tiles.responder.cacheControl, etag: Self.tagMark,
                                                  contentEncoding: "gzip", contentLength: Self.lengthMark)
            var answer = TileHTTPAnswer(template, lastModified: tiles.lastModified)
            if isPrivate { tiles.keepPrivate(&answer) }
            tiles.cors.add(to: &answer.headers, method: .get)
            var text = "HTTP/1.1 \(answer.status.code) \(answer.status.reasonPhrase)\r\n"
            for field in answer.headers { text += "\(field.name.rawName): \(field.value)\r\n" }
            return Array(text.utf8)
        }
        func split(_ bytes: [UInt8], at mark: String) -> ([UInt8], [UInt8]) {
            let mark = Array(mark.utf8)
            guard let start = (0...(bytes.count - mark.count)).first(where: { bytes[$0..<($0 + mark.count)].elementsEqual(mark) })
            else { return (bytes, []) }
            return (Array(bytes[..<start]), Array(bytes[(start + mark.count)...]))
        }
        let (opening, rest) = split(encoded(isPrivate: false), at: Self.tagMark)
        (middle, closing) = split(rest, at: String(Self.lengthMark))
        self.opening = opening
        privateOpening = split(encoded(isPrivate: true), at: Self.tagMark).0
    }

    /// Writes the head of a 200 gzip answer with `etag` and `length` into `buffer`, up to and including the last
    /// field's line end (the caller adds `Date`, `Server` and the blank line).
    func write(etag: String, length: Int, isPrivate: Bool, into buffer: inout ByteBuffer) {
        buffer.writeBytes(isPrivate ? privateOpening : opening)
        buffer.writeString(etag)
        buffer.writeBytes(middle)
        buffer.writeString(String(length))
        buffer.writeBytes(closing)
    }
}
