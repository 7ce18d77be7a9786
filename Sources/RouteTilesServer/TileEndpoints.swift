import HTTPTypes
import Hummingbird
import Logging
import RouteTiles
import RouteTilesAccess

/// The tiles: `GET`/`HEAD /tiles/{z}/{x}/{y}.mvt` and the raster tiles `….png`, `…@2x.png`, `…@3x.png`, and the
/// cached-tile fast path's answers (`CachedTileFastPath`). The core's `TileResponder` and `RasterTileResponder`
/// decide; this writes their answers as HTTP.
struct TileEndpoints: Sendable {
    let responder: TileResponder<ByteBuffer>
    let raster: RasterTileResponder<ByteBuffer>
    /// `Last-Modified` of every tile answer, for content that does not change; nil for live routes.
    let lastModified: HTTPField?
    let metrics: ServerMetrics
    let logger: Logger
    let retryAfterSeconds: Int
    /// What the fast path adds and records itself, as the wrappers of the table do for every other answer.
    let cors: CORSHeaders
    let recorder: RequestRecorder
    /// Where reads are private, what the fast path asks whether a request's credential reads every group (a
    /// token verified lately, `CredentialVerifier.cachedGrant(for:)`); others go the full path. Nil: reads are
    /// public.
    let privateReads: CredentialVerifier?
    /// The `Cache-Control` of tiles read with a credential (`privateCacheControl(of:)`).
    let privateCacheControl: String

    var operations: [APIOperation] {
        let tiles = PathPattern(subtree: "/tiles/", documentedAs: "/tiles/{z}/{x}/{y}.mvt")
        // The raster tiles first: the vector tiles' pattern takes every other path below /tiles/ (and explains a
        // malformed one with a 400).
        var raster: [APIOperation] = []
        for (ending, excluding, name) in [("@2x.png", [String](), "2x"), ("@3x.png", [], "3x"), (".png", ["@2x.png", "@3x.png"], "")] {
            let pattern = PathPattern(subtree: "/tiles/", ending: ending, excluding: excluding,
                                      documentedAs: "/tiles/{z}/{x}/{y}\(ending)")
            raster.append(APIOperation(.get, pattern, "getRasterTile\(name)") { request, context in
                await tile(request, path: context.parameters.tail, grant: context.grant)
            })
            raster.append(APIOperation(.head, pattern, "headRasterTile\(name)") { request, context in
                await tile(request, path: context.parameters.tail, grant: context.grant)
            })
        }
        return raster + [
            APIOperation(.get, tiles, "getTile") { request, context in
                await tile(request, path: context.parameters.tail, grant: context.grant)
            },
            APIOperation(.head, tiles, "headTile") { request, context in
                await tile(request, path: context.parameters.tail, grant: context.grant)
            },
        ]
    }

    /// A tile, its 304 or 204, or the error that explains why not: the tile of the routes of the groups the
    /// reader's grant reads (every group where reads are public).
    func tile(_ request: Request, path: Substring, grant: AccessGrant) async -> Response {
        await tile(request, grant: grant, grid: .webMercator) { variant in
            if case let .raster(id, scale) = TileRequestPath.parse(path) {
                return (true, await raster.answer(id, scale: scale, variant: variant, isHead: request.method == .head,
                                                  ifNoneMatch: request.headers[.ifNoneMatch]))
            }
            return (false, await responder.answer(
                path: path, variant: variant, isHead: request.method == .head,
                acceptsGzip: GzipAcceptance.allowsGzip(request.headers[.acceptEncoding]), ifNoneMatch: request.headers[.ifNoneMatch]))
        }
    }

    /// Tile `id` of `grid` (a checked address), its vector tile or, with `raster`, its PNG at 1x, as `tile(_:path:grant:)`
    /// answers: the OGC API's tiles.
    func tile(_ request: Request, _ id: TileID, grid: TileGrid, raster isRaster: Bool, grant: AccessGrant) async -> Response {
        await tile(request, grant: grant, grid: grid) { variant in
            if isRaster {
                return (true, await raster.answer(id, scale: 1, variant: variant, isHead: request.method == .head,
                                                  ifNoneMatch: request.headers[.ifNoneMatch]))
            }
            return (false, await responder.answer(
                id, variant: variant, isHead: request.method == .head,
                acceptsGzip: GzipAcceptance.allowsGzip(request.headers[.acceptEncoding]), ifNoneMatch: request.headers[.ifNoneMatch]))
        }
    }

    /// What every tile answer shares: the window of `from` and `to` (400 when malformed) and the reader's groups make
    /// the variant, `answer` decides (and says whether it is a raster tile), and the decision is written as HTTP.
    private func tile(_ request: Request, grant: AccessGrant, grid: TileGrid,
                      answer: (TileVariant) async -> (isRaster: Bool, answer: TileAnswer<ByteBuffer>)) async -> Response {
        let window: TimeWindow?
        do {
            let query = request.uri.queryParameters
            window = try TileQuery.window(from: query["from"].map(String.init), to: query["to"].map(String.init))
        } catch {
            return HTTPAnswers.error(.badRequest, error.description)
        }
        let (isRaster, answer) = await answer(TileVariant(window: window, groups: grant.read, grid: grid))
        guard answer.isTile else {
            var headers: HTTPFields = [:]
            if answer.status == .serviceUnavailable {
                metrics.overloaded.increment()
                headers[.retryAfter] = String(retryAfterSeconds)
            }
            if let log = answer.logMessage { logger.error("\(log)") }
            return HTTPAnswers.error(answer.status.http, answer.message ?? "", headers: headers)
        }
        var http = isRaster ? TileHTTPAnswer(raster: answer, lastModified: lastModified)
            : TileHTTPAnswer(answer, lastModified: lastModified)
        if privateReads != nil, grant.subject != AccessGrant.signedURLSubject { keepPrivate(&http) }
        let body = http.body.readableBytes == 0 ? ResponseBody() : ResponseBody(byteBuffer: http.body)
        return Response(status: http.status, headers: http.headers, body: body)
    }

    /// A private tile read with a credential is the reader's: no shared cache may keep it (`private`). Tiles of
    /// signed URLs keep their `public`: the URL is the credential, and caches key on it.
    func keepPrivate(_ answer: inout TileHTTPAnswer) {
        guard answer.headers[.cacheControl] != nil else { return }
        answer.headers[.cacheControl] = privateCacheControl
    }

    /// `cacheControl` with `private` for `public`: made once per server (per request, Foundation's string search
    /// cost more than the rest of a cached answer).
    static func privateCacheControl(of value: String) -> String {
        value.contains("public") ? value.replacingOccurrences(of: "public", with: "private") : "private, " + value
    }

    /// Whether a request for a private tile may have the default (cached) tile at once: a signed URL of every group
    /// whose signature holds, or a credential verified lately that reads every group. Anything else (no credential,
    /// one not verified yet, a reader of some groups) goes the full path, which verifies, refuses or cuts the
    /// groups' tile.
    static func readsEverything(_ head: RequestHeadScanner.Head, in bytes: UnsafeRawBufferPointer,
                                verifier: CredentialVerifier, remembered: inout RememberedCredential) -> Bool {
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        if let query = head.query, let sig = RequestHeadScanner.parameter("sig", in: bytes[query]) {
            guard RequestHeadScanner.parameter("g", in: bytes[query]) == nil,
                  let exp = RequestHeadScanner.parameter("exp", in: bytes[query])
            else { return false }
            // A URL signed for every group carries no `g`: that alone may have the default tile at once.
            if case .success(.all) = verifier.checkSignedURL(exp: text(exp), groups: String?.none, sig: text(sig)) { return true }
            return false
        }
        guard !head.otherAuthorization, let range = head.credential else { return false }
        return remembered.readsEverything(UnsafeRawBufferPointer(rebasing: bytes[range]), verifier: verifier)
    }

    /// The answer to a `GET` or `HEAD` of a tile that is already cached, with every header the full path would
    /// send (CORS included; `Date` and `Server` are added by the caller, as Hummingbird adds them), counted in the
    /// metrics and the access log. Nil when the request needs the full path: another resource, a path that is not a
    /// plain tile path (a 400 or 404 to explain), a tile not in the cache, a client that does not accept gzip.
    /// - Parameter bytes: the request head's bytes, which `head` indexes.
    /// - Parameter remembered: the connection's last credential (`RememberedCredential`).
    func cachedAnswer(_ head: RequestHeadScanner.Head, in bytes: UnsafeRawBufferPointer,
                      remembered: inout RememberedCredential) -> TileHTTPAnswer? {
        let prefix = "/tiles/".utf8.count
        let path = UnsafeRawBufferPointer(rebasing: bytes[head.pathStart..<(head.pathStart + head.pathCount)])
        // A client that refuses gzip gets the tile inflated: CPU work, left to the full path, off the event loop.
        guard head.isCandidate, head.acceptsGzip, path.count > prefix, path.prefix(prefix).elementsEqual("/tiles/".utf8)
        else {
            return nil
        }
        if let privateReads, !Self.readsEverything(head, in: bytes, verifier: privateReads, remembered: &remembered) {
            return nil
        }
        let started = recorder.start()
        guard let tile = responder.cachedAnswer(
            path: UnsafeRawBufferPointer(rebasing: path[prefix...]), isHead: head.isHead,
            acceptsGzip: head.acceptsGzip, ifNoneMatch: head.ifNoneMatch)
        else { return nil }
        let method: HTTPRequest.Method = head.isHead ? .head : .get
        let isPrivate = privateReads != nil && !head.isSigned
        var answer: TileHTTPAnswer
        if tile.status == .ok, tile.contentEncoding == "gzip", let etag = tile.etag, let length = tile.contentLength {
            // The usual answer: its head written from bytes prepared once (`CachedTileHead`).
            answer = TileHTTPAnswer(status: .ok, headers: [:], body: TileHTTPAnswer.body(of: tile),
                                    prepared: .init(etag: etag, length: length, isPrivate: isPrivate))
        } else {
            answer = TileHTTPAnswer(tile, lastModified: lastModified)
            if isPrivate { keepPrivate(&answer) }
            cors.add(to: &answer.headers, method: method)
        }
        metrics.fastAnswers.increment()
        recorder.record(method: method, path: path, status: answer.status.code,
                        bytes: answer.body.readableBytes, started: started)
        return answer
    }
}
