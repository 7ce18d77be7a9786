import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// The server's HTTP/1.1 connections: Hummingbird's `HTTP1Channel` pipeline (the same handlers with the same
/// settings), with three of ours: `CachedTileFastPath` first, which answers cached tiles from the raw bytes on
/// the event loop; `ExpectContinueHandler`; and `ResponseEndCounter` last, which tells the fast path when the
/// requests it handed on are answered. Requests handed on are handled by `HTTP1Channel` itself.
///
/// The pipeline is set up here rather than through `HTTP1Channel`'s additional handlers because those can only
/// go between the HTTP codec and Hummingbird's connection-state handler.
struct RouteTilesHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let cachedTiles: @Sendable (HandedOnRequests) -> CachedTileFastPath
    /// Behind TLS (`RouteTilesTLSChannel`): requests' scheme is `https`.
    let secure: Bool

    init(responder: @escaping HTTPChannelHandler.Responder, secure: Bool = false,
         cachedTiles: @escaping @Sendable (HandedOnRequests) -> CachedTileFastPath) {
        http1 = HTTP1Channel(responder: responder)
        self.cachedTiles = cachedTiles
        self.secure = secure
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let decoder = http1.configuration.httpDecoder
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = decoder.maxHeaderFieldSize
            limits.maxHeaderListSize = decoder.maxHeaderListSize
            limits.maxHeaderFieldCount = decoder.maxHeaderFieldCount
            let pipeline = channel.pipeline.syncOperations
            let handedOn = HandedOnRequests()
            try pipeline.addHandler(cachedTiles(handedOn))
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false,  // NIOAsyncChannel keeps requests in order
                withErrorHandling: false,  // Hummingbird answers parse errors
                withOutboundHeaderValidation: false,  // swift-http-types validates fields
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: limits
            )
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: secure))
            try pipeline.addHandler(ExpectContinueHandler())
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            try pipeline.addHandler(ResponseEndCounter(handedOn))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel,
                                       configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
