import HTTPTypes
import Hummingbird
import RouteTiles

extension RouteTilesResponder {
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
