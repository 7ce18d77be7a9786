import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `CachedTileFastPath` in a pipeline of its own (NIO's `EmbeddedChannel`): what it answers, what it hands on,
/// and that it waits for handed-on requests to be answered before answering again.
@Suite struct CachedTileFastPathTests {
    /// Records the bytes handed on to where NIO's HTTP decoder would be.
    final class HandedOnBytes: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        var text = ""
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            text += String(buffer: unwrapInboundIn(data))
        }
    }

    let cached = TileID(z: 14, x: 8300, y: 5635)
    let cachedBytes = Array("tile bytes, as if gzip".utf8)

    func pipeline() throws -> (EmbeddedChannel, HandedOnBytes, ServerState) {
        let state = try ServerState(configuration: ServerConfiguration(), name: "t",
                                    backend: .routes([], options: TestServer.options()),
                                    logger: Logger(label: "t"))
        state.tiles.cache.put(cached, TileCache<ByteBuffer>.Entry(gzip: ByteBuffer(bytes: cachedBytes), etag: "\"00-gz\""))
        let handedOn = HandedOnRequests()
        let recorder = HandedOnBytes()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            CachedTileFastPath(cachedAnswer: { head, bytes, remembered in state.api.tiles.cachedAnswer(head, in: bytes, remembered: &remembered) },
                               preparedHead: CachedTileHead(tiles: state.api.tiles), serverName: "rt", handedOn: handedOn),
            recorder,
            ResponseEndCounter(handedOn),
        ])
        return (channel, recorder, state)
    }

    func request(_ path: String) -> String {
        "GET \(path) HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n\r\n"
    }

    /// Everything the fast path wrote, as text.
    func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let part = try channel.readOutbound(as: IOData.self) {
            if case let .byteBuffer(buffer) = part { text += String(buffer: buffer) }
        }
        return text
    }

    @Test func handedOnRequestsHoldBackTheOnesBehindThem() throws {
        let (channel, recorder, _) = try pipeline()
        let hot = request("/tiles/14/8300/5635.mvt"), cold = request("/tiles/14/8300/5636.mvt")

        // A cached tile: answered here, nothing handed on.
        try channel.writeInbound(ByteBuffer(string: hot))
        let first = try written(channel)
        #expect(first.hasPrefix("HTTP/1.1 200 OK\r\n") && first.hasSuffix("tile bytes, as if gzip"))
        #expect(first.contains("\r\nETag: \"00-gz\"\r\n") && first.contains("\r\nServer: rt\r\n"))
        #expect(recorder.text.isEmpty)

        // A miss is handed on; the cached tile behind it, in a later read, waits its turn.
        try channel.writeInbound(ByteBuffer(string: cold))
        try channel.writeInbound(ByteBuffer(string: hot))
        #expect(try written(channel).isEmpty)
        #expect(recorder.text == cold + hot)

        // Hummingbird answers the first; the second is still unanswered, so a third goes to Hummingbird too.
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        try channel.writeInbound(ByteBuffer(string: hot))
        #expect(recorder.text == cold + hot + hot)
        _ = try channel.readOutbound(as: HTTPResponsePart.self)

        // All three answered: the fast path answers again.
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            _ = try channel.readOutbound(as: HTTPResponsePart.self)
        }
        try channel.writeInbound(ByteBuffer(string: hot))
        #expect(try written(channel).hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(recorder.text == cold + hot + hot)
        _ = try channel.finish()
    }

    /// A read that ends inside a head, behind a request handed on: the complete request goes on now, the partial
    /// one once whole, each exactly once.
    @Test func aPartialHeadBehindAHandedOnRequestIsHandedOnOnce() throws {
        let (channel, recorder, _) = try pipeline()
        let hot = request("/tiles/14/8300/5635.mvt"), cold = request("/tiles/14/8300/5636.mvt")
        let cut = hot.index(hot.startIndex, offsetBy: 20)
        try channel.writeInbound(ByteBuffer(string: cold + hot[..<cut]))
        #expect(recorder.text == cold)
        try channel.writeInbound(ByteBuffer(string: String(hot[cut...]) + hot))
        #expect(recorder.text == cold + hot + hot)
        #expect(try written(channel).isEmpty)
        _ = try channel.finish()
    }

    @Test func aRequestWithABodyHandsOnTheRestOfTheConnection() throws {
        let (channel, recorder, _) = try pipeline()
        let hot = request("/tiles/14/8300/5635.mvt")
        let post = "POST /routes HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody"
        // The body's bytes could look like anything, even a cached tile's request: they are not scanned.
        let tricky = "POST /routes HTTP/1.1\r\nContent-Length: \(hot.utf8.count)\r\n\r\n" + hot
        try channel.writeInbound(ByteBuffer(string: post + hot))
        try channel.writeInbound(ByteBuffer(string: hot + tricky))
        #expect(try written(channel).isEmpty)
        #expect(recorder.text == post + hot + hot + tricky)
        _ = try channel.finish()
    }

    @Test func aHeadInPiecesIsAnsweredWhenWholeAndAnOverlongOneIsHandedOn() throws {
        let (channel, recorder, _) = try pipeline()
        let hot = Array(request("/tiles/14/8300/5635.mvt").utf8)
        for byte in hot {
            #expect(try written(channel).isEmpty)
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
        }
        #expect(try written(channel).hasPrefix("HTTP/1.1 200 OK\r\n"))
        let long = "GET /tiles/14/8300/5635.mvt HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: CachedTileFastPath.maxHeadBytes)
        try channel.writeInbound(ByteBuffer(string: long))
        #expect(recorder.text == long)
        #expect(try written(channel).isEmpty)
        _ = try channel.finish()
    }

    /// A CR at the end of one read and no LF at the start of the next: malformed, so the decoder gets it all.
    @Test func aBareCRAcrossReadsIsHandedOn() throws {
        let (channel, recorder, _) = try pipeline()
        try channel.writeInbound(ByteBuffer(string: "GET /tiles/14/8300/5635.mvt HTTP/1.1\r"))
        #expect(recorder.text.isEmpty)
        try channel.writeInbound(ByteBuffer(string: "Host: a\r\n\r\n"))
        #expect(recorder.text == "GET /tiles/14/8300/5635.mvt HTTP/1.1\rHost: a\r\n\r\n")
        #expect(try written(channel).isEmpty)
        _ = try channel.finish()
    }
}
