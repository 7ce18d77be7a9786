import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers a request head carrying `Expect: 100-continue` with an interim `100 Continue`, so that a client which
/// waits for it before sending its body (curl for bodies over 1 MB, many HTTP libraries for every POST and PUT)
/// sends the body at once instead of after its timeout, typically one second. Hummingbird does not send it itself.
/// Sits in the channel pipeline after the HTTP/1 codec; the request goes on unchanged.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data),
           let expect = head.headerFields[.expect], expect.lowercased() == "100-continue" {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }
}
