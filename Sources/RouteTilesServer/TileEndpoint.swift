import Hummingbird
import RouteTiles

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
        guard id.z >= service.backend.minZoom, id.z <= service.backend.maxZoom else {
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
        var headers: HTTPFields = [:]
        headers[.cacheControl] = state.configuration.cacheControl
        headers[.vary] = "Accept-Encoding"
        if entry.isEmpty { return HTTPAnswers.empty(.noContent, headers: headers) }

        let gzip = Self.acceptsGzip(request.headers[values: .acceptEncoding])
        let etag = gzip ? entry.etag : TileHasher.identityTag(entry.etag)
        headers[.eTag] = etag
        if let tags = request.headers[.ifNoneMatch], Self.matches(tags, etag) {
            return HTTPAnswers.empty(.notModified, headers: headers)
        }
        headers[.contentType] = Self.tileContentType
        let body: ByteBuffer
        if gzip {
            headers[.contentEncoding] = "gzip"
            body = entry.gzip
        } else {
            do {
                body = ByteBuffer(bytes: try Gzip.decompress(Array(entry.gzip.readableBytesView)))
            } catch {
                return HTTPAnswers.error(.internalServerError, "stored tile \(id) is not valid gzip: \(error)")
            }
        }
        headers[.contentLength] = String(body.readableBytes)
        if request.method == .head { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// Whether `Accept-Encoding` allows gzip: listed with a non-zero q, or `*` with a non-zero q and gzip not
    /// refused (RFC 9110 §12.5.3). No header means identity.
    static func acceptsGzip(_ values: [String]) -> Bool {
        var gzip: Double?
        var star: Double?
        for value in values {
            for item in value.split(separator: ",") {
                let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                guard let coding = parts.first else { continue }
                var q = 1.0
                for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                    q = Double(parameter.dropFirst(2)) ?? 0
                }
                if coding == "gzip" || coding == "x-gzip" { gzip = q } else if coding == "*" { star = q }
            }
        }
        if let gzip { return gzip > 0 }
        return (star ?? 0) > 0
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
