import Foundation
import RouteTilesModel
import RouteTilesTiling

/// The decisions that make a tile answer, apart from any HTTP library: the path parsed strictly, the zoom range
/// (404), the cache over single-flight generation (503 when the generation queue is full), then 204 for an empty
/// tile, 304 when `If-None-Match` names the tag, else 200 with the gzip bytes or, for a client that does not accept
/// gzip, the decompressed ones (each encoding with its own tag). An HTTP layer parses the request head, asks, and
/// writes the answer (RouteTilesServer's `TileEndpoint` and `CachedTileFastPath` do).
public struct TileResponder<Bytes: TileBytes>: Sendable {
    /// The service that finds or generates tiles.
    public let service: TileService<Bytes>
    /// `Cache-Control` of tile answers.
    public let cacheControl: String

    /// A responder over `service` whose tile answers carry `cacheControl`.
    public init(service: TileService<Bytes>, cacheControl: String) {
        self.service = service
        self.cacheControl = cacheControl
    }

    /// The answer to a `GET` or `HEAD` of a tile.
    /// - Parameters:
    ///   - path: what follows the tiles' prefix (`/tiles/`): `{z}/{x}/{y}.mvt` or `.pbf`.
    ///   - isHead: whether the request is a `HEAD`: the answer then has the headers of a `GET` and no body.
    ///   - acceptsGzip: whether `Accept-Encoding` allows gzip (`GzipAcceptance`).
    ///   - ifNoneMatch: the `If-None-Match` value, several lines joined by commas.
    ///   - variant: the variant asked for: a window tile (`?from=…&to=…`, parsed by `TileQuery.window(from:to:)`),
    ///     the tile of a reader's groups; the default tile when it is the default variant.
    public func answer(path: Substring, variant: TileVariant = TileVariant(), isHead: Bool, acceptsGzip: Bool,
                       ifNoneMatch: String?) async -> TileAnswer<Bytes> {
        let id: TileID
        switch TileRequestPath.parse(path) {
        case let .tile(tile): id = tile
        case .raster: return TileAnswer(status: .badRequest, message: "a raster tile (.png) is not a vector tile")
        case let .malformed(reason), let .outOfRange(reason): return TileAnswer(status: .badRequest, message: reason)
        case let .outsideGrid(reason): return TileAnswer(status: .notFound, message: reason)
        }
        return await answer(id, variant: variant, isHead: isHead, acceptsGzip: acceptsGzip, ifNoneMatch: ifNoneMatch)
    }

    /// The answer to a `GET` or `HEAD` of tile `id` of `variant` (of its grid: a Web Mercator `TileID`, or a
    /// WorldCRS84Quad tile whose column and row are its x and y), an address already checked.
    public func answer(_ id: TileID, variant: TileVariant = TileVariant(), isHead: Bool, acceptsGzip: Bool,
                       ifNoneMatch: String?) async -> TileAnswer<Bytes> {
        let entry: TileCache<Bytes>.Entry
        switch await Self.entry(id, variant: variant, of: service) {
        case let .found(found): entry = found
        case let .refused(answer): return answer
        }
        do {
            return try answer(entry, isHead: isHead, acceptsGzip: acceptsGzip, ifNoneMatch: ifNoneMatch)
        } catch {
            return TileAnswer(status: .internalServerError, message: "stored tile \(id) is not valid gzip: \(error)")
        }
    }

    /// A tile's vector tile, or the answer that says why there is none.
    public enum Lookup: Sendable {
        case found(TileCache<Bytes>.Entry)
        case refused(TileAnswer<Bytes>)
    }

    /// The vector tile `id` of `variant`, found or cut by `service`, or the answer that refuses it: a zoom outside the
    /// served range (404), too many tiles being cut (503), a window or groups that cannot be cut (400, 403), or a
    /// failure (500). What the vector and the raster tile answers share.
    public static func entry(_ id: TileID, variant: TileVariant, of service: TileService<Bytes>) async -> Lookup {
        let backend = service.backend
        guard backend.serves(zoom: id.z) else {
            return .refused(TileAnswer(status: .notFound, message: "zoom \(id.z) is outside \(backend.minZoom)–\(backend.maxZoom)"))
        }
        do {
            return .found(try await service.variantTile(id, variant: variant))
        } catch is GenerationLimiter.Overloaded {
            return .refused(TileAnswer(status: .serviceUnavailable, message: "too many tiles being generated; retry shortly"))
        } catch let unavailable as TimeWindowUnavailable {
            return .refused(TileAnswer(status: .badRequest, message: unavailable.description))
        } catch let unavailable as GroupsUnavailable {
            return .refused(TileAnswer(status: .forbidden, message: unavailable.description))
        } catch let unavailable as GridUnavailable {
            return .refused(TileAnswer(status: .notFound, message: unavailable.description))
        } catch {
            return .refused(TileAnswer(status: .internalServerError, message: "cannot produce tile \(id): \(error)",
                                       logMessage: "tile \(id): \(error)"))
        }
    }

    /// The answer to a `GET` or `HEAD` of a tile already in the cache, or nil when the request needs the full path
    /// (`answer(path:…)`): a path that is not a plain tile path (a 400 or 404 to explain), a tile not in the cache, a
    /// client that does not accept gzip (inflating is CPU work, for the full path to do off the event loop).
    /// - Parameters:
    ///   - path: the bytes after the tiles' prefix, read in place.
    ///   - isHead: whether the request is a `HEAD`.
    ///   - acceptsGzip: whether `Accept-Encoding` allows gzip; when it does not, the answer is nil.
    ///   - ifNoneMatch: the `If-None-Match` value, several lines joined by commas.
    ///
    /// Inlinable, with `answer(_:isHead:acceptsGzip:ifNoneMatch:)`: this is the whole of a cached request's work in
    /// the core, and a server calling it with its own `Bytes` gets a copy specialized for them.
    @inlinable
    public func cachedAnswer(path: UnsafeRawBufferPointer, isHead: Bool, acceptsGzip: Bool, ifNoneMatch: String?)
        -> TileAnswer<Bytes>?
    {
        guard acceptsGzip, case let .tile(id) = TileRequestPath.parse(path), service.backend.serves(zoom: id.z),
              let entry = service.cachedTile(id)
        else { return nil }
        return try? answer(entry, isHead: isHead, acceptsGzip: true, ifNoneMatch: ifNoneMatch)
    }

    /// The answer for a tile's cache entry: 204 when empty, 304 when `If-None-Match` names the tag, else 200 with
    /// the gzip bytes or the decompressed ones. Throws when the stored bytes do not decompress.
    @inlinable
    public func answer(_ entry: TileCache<Bytes>.Entry, isHead: Bool, acceptsGzip gzip: Bool, ifNoneMatch: String?)
        throws -> TileAnswer<Bytes>
    {
        // No Content-Length on 204 and 304 (RFC 9110 §8.6).
        if entry.isEmpty { return TileAnswer(status: .noContent, cacheControl: cacheControl) }
        let etag = gzip ? entry.etag : TileHasher.identityTag(entry.etag)
        if let tags = ifNoneMatch, Self.matches(tags, etag) {
            return TileAnswer(status: .notModified, cacheControl: cacheControl, etag: etag)
        }
        if gzip {
            return TileAnswer(status: .ok, cacheControl: cacheControl, etag: etag, contentEncoding: "gzip",
                              contentLength: entry.gzip.tileByteCount, body: isHead ? .none : .gzip(entry.gzip))
        }
        let bytes = try Gzip.decompress(entry.gzip.tileByteArray)
        return TileAnswer(status: .ok, cacheControl: cacheControl, etag: etag, contentLength: bytes.count,
                          body: isHead ? .none : .identity(bytes))
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, as the header asks) or is `*`.
    public static func matches(_ header: String, _ etag: String) -> Bool {
        for item in header.split(separator: ",") {
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == etag { return true }
        }
        return false
    }
}
