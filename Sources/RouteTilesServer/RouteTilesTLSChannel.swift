import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// The server's connections with TLS (`--tls-cert`, `--tls-key`): the TLS handler with the context in use when the
/// connection opens (`TLSCredentials`, reloaded without a restart), then by ALPN either HTTP/2 (Hummingbird's
/// `HTTP2Channel`) or HTTP/1.1 (`RouteTilesHTTP1Channel`, with the cached-tile fast path reading the decrypted
/// bytes). A client that offers no ALPN gets HTTP/1.1.
struct RouteTilesTLSChannel: ServerChildChannel {
    /// The protocol ALPN chose, with its connection.
    enum Negotiated: Sendable {
        case http1(RouteTilesHTTP1Channel.Value)
        case http2(HTTP2Channel.Value)
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let credentials: TLSCredentials
    let http1: RouteTilesHTTP1Channel
    let http2: HTTP2Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture { () -> EventLoopFuture<Negotiated> in
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(NIOSSLServerHandler(context: credentials.context))
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { (result: ALPNResult) in
                switch result {
                case .negotiated("h2"):
                    return http2.setup(channel: channel, logger: logger).map { Negotiated.http2($0) }
                case .negotiated("http/1.1"), .fallback:
                    return http1.setup(channel: channel, logger: logger).map { Negotiated.http1($0) }
                case let .negotiated(other):
                    logger.debug("TLS: a client negotiated \(other), which this server does not speak")
                    return channel.close().flatMap { channel.eventLoop.makeFailedFuture(TLSProblem("ALPN: \(other)")) }
                }
            }
            try pipeline.addHandler(negotiation)
            return negotiation.protocolNegotiationResult
        }.map { Value(negotiated: $0, channel: channel) }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case let .http1(connection): await http1.handle(value: connection, logger: logger)
            case let .http2(connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("TLS: the connection ended before it spoke HTTP: \(error)")
        }
    }
}
