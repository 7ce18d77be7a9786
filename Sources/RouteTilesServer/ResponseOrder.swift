import NIOCore
import NIOHTTPTypes

/// How many requests of a connection `CachedTileFastPath` has handed on to Hummingbird and Hummingbird has not yet
/// answered. While there are any, the fast path answers nothing, so that responses keep the order of requests.
/// Shared by the two handlers of one connection, on its event loop only.
final class HandedOnRequests {
    var unanswered = 0
}

/// Counts Hummingbird's answers as their last part is written, for `HandedOnRequests`. Sits at the end of the
/// pipeline, where Hummingbird's response parts enter it.
final class ResponseEndCounter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let handedOn: HandedOnRequests

    init(_ handedOn: HandedOnRequests) {
        self.handedOn = handedOn
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let isEnd = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        // Counted once the part is queued on the channel: a fast answer written after it goes out after it.
        if isEnd, handedOn.unanswered > 0 { handedOn.unanswered -= 1 }
    }
}
