import HTTPTypes
import Hummingbird
import RouteTiles

/// A tile answer as HTTP, before it becomes Hummingbird's `Response` or is written straight to the channel by
/// `CachedTileFastPath`: both paths turn the core's `TileAnswer` into it with `init(_:lastModified:)`, so a tile is answered
/// the same way on either.
struct TileHTTPAnswer {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    /// What is sent after the head: empty for HEAD, 204 and 304.
    var body: ByteBuffer
    /// For the fast path's usual answer (200, gzip): its tag and length, written into a `CachedTileHead` in place of
    /// `headers`, which is then empty.
    var prepared: Prepared?

    /// What a 200 gzip answer's head needs beyond what `CachedTileHead` holds.
    struct Prepared {
        var etag: String
        var length: Int
        var isPrivate: Bool
    }

    init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer, prepared: Prepared? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.prepared = prepared
    }

    /// The head and body of a tile answer (200, 204 or 304): `Cache-Control`, `Vary`, `lastModified` when given
    /// (built once per server: a field appended here costs no allocation), then `ETag`, `Content-Type`,
    /// `Content-Encoding` and `Content-Length` as the answer has them.
    init(_ answer: TileAnswer<ByteBuffer>, lastModified: HTTPField?) {
        // Appended, not assigned: each field is new, and assigning first looks for an existing one.
        var headers = HTTPFields()
        headers.reserveCapacity(12)
        if let cacheControl = answer.cacheControl { headers.append(HTTPField(name: .cacheControl, value: cacheControl)) }
        headers.append(HTTPField(name: .vary, value: "Accept-Encoding"))
        if let lastModified { headers.append(lastModified) }
        if let etag = answer.etag { headers.append(HTTPField(name: .eTag, value: etag)) }
        if answer.status == .ok {
            headers.append(HTTPField(name: .contentType, value: TileAnswer<ByteBuffer>.contentType))
            if let encoding = answer.contentEncoding { headers.append(HTTPField(name: .contentEncoding, value: encoding)) }
            if let length = answer.contentLength { headers.append(HTTPField(name: .contentLength, value: String(length))) }
        }
        self.init(status: answer.status.http, headers: headers, body: Self.body(of: answer))
    }
}

extension TileHTTPAnswer {
    /// What follows the head of `answer`: nothing, its gzip bytes, or its plain bytes in a buffer.
    static func body(of answer: TileAnswer<ByteBuffer>) -> ByteBuffer {
        switch answer.body {
        case .none: ByteBuffer()
        case let .gzip(bytes): bytes
        case let .identity(bytes): ByteBuffer(bytes: bytes)
        }
    }

    /// The head and body of a raster tile answer (200 or 304; a PNG does not vary with `Accept-Encoding`).
    init(raster answer: TileAnswer<ByteBuffer>, lastModified: HTTPField?) {
        var headers = HTTPFields()
        headers.reserveCapacity(8)
        if let cacheControl = answer.cacheControl { headers.append(HTTPField(name: .cacheControl, value: cacheControl)) }
        if let lastModified { headers.append(lastModified) }
        if let etag = answer.etag { headers.append(HTTPField(name: .eTag, value: etag)) }
        if answer.status == .ok {
            headers.append(HTTPField(name: .contentType, value: RasterTileResponder<ByteBuffer>.contentType))
            if let length = answer.contentLength { headers.append(HTTPField(name: .contentLength, value: String(length))) }
        }
        self.init(status: answer.status.http, headers: headers, body: Self.body(of: answer))
    }
}

extension TileAnswer.Status {
    /// The status with its reason phrase (`HTTPResponse.Status(code:)` would leave the phrase empty).
    var http: HTTPResponse.Status {
        switch self {
        case .ok: .ok
        case .noContent: .noContent
        case .notModified: .notModified
        case .badRequest: .badRequest
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .internalServerError: .internalServerError
        case .serviceUnavailable: .serviceUnavailable
        }
    }
}
