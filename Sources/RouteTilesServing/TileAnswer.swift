/// What to answer to a tile request, decided by `TileResponder` without any HTTP library: the status, the headers
/// that vary with the tile (the HTTP layer writes them, with `Vary: Accept-Encoding`, in the order of its fields)
/// and the body. `Bytes` is how the cache keeps a tile's gzip bytes, so that a cached tile is answered without a copy.
public struct TileAnswer<Bytes: TileBytes>: Sendable {
    /// The statuses a tile request can get.
    public enum Status: Int, Sendable {
        /// The tile, gzip or identity.
        case ok = 200
        /// No route touches the tile.
        case noContent = 204
        /// `If-None-Match` names the tag of the representation the client would get.
        case notModified = 304
        /// Not a tile path, or z/x/y out of range.
        case badRequest = 400
        /// A variant the content cannot cut (the groups of a finished tileset).
        case forbidden = 403
        /// A zoom the server does not serve.
        case notFound = 404
        /// The tile could not be generated, or its stored bytes are not gzip.
        case internalServerError = 500
        /// Too many tiles are being generated: retry shortly.
        case serviceUnavailable = 503
    }

    /// What follows the head.
    public enum Body: Sendable {
        /// Nothing: HEAD, 204, 304, and errors (whose message the HTTP layer writes as it writes its errors).
        case none
        /// The cached gzip bytes, as they are.
        case gzip(Bytes)
        /// The tile decompressed, for a client that does not accept gzip.
        case identity([UInt8])
    }

    /// The media type of a vector tile: `application/vnd.mapbox-vector-tile`.
    public static var contentType: String { "application/vnd.mapbox-vector-tile" }

    /// The HTTP status to answer with.
    public var status: Status
    /// `Cache-Control`, on 200, 204 and 304.
    public var cacheControl: String?
    /// The strong tag of the representation (gzip or identity), on 200 and 304.
    public var etag: String?
    /// `gzip` when the body is the gzip bytes.
    public var contentEncoding: String?
    /// `Content-Length` of a 200 (of GET's body for a HEAD too).
    public var contentLength: Int?
    /// What follows the head.
    public var body: Body
    /// For an error status: why, for the client.
    public var message: String?
    /// For a 500 of a generation: what the server should log.
    public var logMessage: String?

    /// An answer with `status` and the given headers and body; everything else absent.
    public init(status: Status, cacheControl: String? = nil, etag: String? = nil, contentEncoding: String? = nil,
                contentLength: Int? = nil, body: Body = .none, message: String? = nil, logMessage: String? = nil) {
        self.status = status
        self.cacheControl = cacheControl
        self.etag = etag
        self.contentEncoding = contentEncoding
        self.contentLength = contentLength
        self.body = body
        self.message = message
        self.logMessage = logMessage
    }

    /// Whether this answers with the tile (200, 204, 304) rather than an error.
    public var isTile: Bool { status.rawValue < 400 }
}
