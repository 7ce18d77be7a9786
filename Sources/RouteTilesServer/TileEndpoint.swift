import HTTPTypes
import Hummingbird
import RouteTiles

extension RouteTilesResponder {
    /// `GET`/`HEAD /tiles/{z}/{x}/{y}.mvt`: the core's `TileResponder` decides; this writes its answer.
    func tile(_ request: Request, path: Substring) async -> Response {
        let answer = await state.tileResponder.answer(
            path: path, isHead: request.method == .head,
            acceptsGzip: GzipAcceptance.allowsGzip(request.headers[.acceptEncoding]), ifNoneMatch: request.headers[.ifNoneMatch])
        guard answer.isTile else {
            var headers: HTTPFields = [:]
            if answer.status == .serviceUnavailable {
                state.metrics.overloaded.increment()
                headers[.retryAfter] = String(state.configuration.retryAfterSeconds)
            }
            if let log = answer.logMessage { state.logger.error("\(log)") }
            return HTTPAnswers.error(answer.status.http, answer.message ?? "",
                                     headers: headers)
        }
        let http = Self.httpAnswer(answer, lastModified: state.tileLastModified)
        let body = http.body.readableBytes == 0 ? ResponseBody() : ResponseBody(byteBuffer: http.body)
        return Response(status: http.status, headers: http.headers, body: body)
    }
}

extension RouteTilesResponder {
    /// The answer to a `GET` or `HEAD` of a tile that is already cached, with every header the full path would
    /// send (CORS included; `Date` and `Server` are added by the caller, as Hummingbird adds them), counted in the
    /// metrics and the access log. Nil when the request needs the full path: another resource, a path that is not a
    /// plain tile path (a 400 or 404 to explain), a tile not in the cache, a client that does not accept gzip.
    /// - Parameter bytes: the request head's bytes, which `head` indexes.
    func cachedTileAnswer(_ head: RequestHeadScanner.Head, in bytes: UnsafeRawBufferPointer) -> TileHTTPAnswer? {
        let prefix = "/tiles/".utf8.count
        let path = UnsafeRawBufferPointer(rebasing: bytes[head.pathStart..<(head.pathStart + head.pathCount)])
        // A client that refuses gzip gets the tile inflated: CPU work, left to the full path, off the event loop.
        guard head.isCandidate, head.acceptsGzip, path.count > prefix, path.prefix(prefix).elementsEqual("/tiles/".utf8)
        else {
            return nil
        }
        let started = state.logger.logLevel <= .info ? ContinuousClock.now : nil
        guard let tile = state.tileResponder.cachedAnswer(
            path: UnsafeRawBufferPointer(rebasing: path[prefix...]), isHead: head.isHead,
            acceptsGzip: head.acceptsGzip, ifNoneMatch: head.ifNoneMatch)
        else { return nil }
        var answer = Self.httpAnswer(tile, lastModified: state.tileLastModified)
        let method: HTTPRequest.Method = head.isHead ? .head : .get
        addCORS(to: &answer.headers, method: method)
        state.metrics.fastAnswers.increment()
        record(method: method, path: String(decoding: path, as: UTF8.self), status: answer.status.code,
               bytes: answer.body.readableBytes, started: started)
        return answer
    }
}
