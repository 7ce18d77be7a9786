import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import RouteTilesCoreTestSupport

/// A small HTTP/1.1 server on an ephemeral loopback port whose answers a test scripts: `answer(uri, n)` gives the
/// status, headers and body of the `n`-th request (from 1) for `uri`. For clients that must cope with answers a
/// well-behaved tile server rarely gives (429, Retry-After, 5xx on demand).
package final class ScriptedHTTPServer: Sendable {
    package struct Answer: Sendable {
        package var status: Int
        package var headers: [(String, String)] = []
        package var body: String = ""
        package init(status: Int, headers: [(String, String)] = [], body: String = "") {
            (self.status, self.headers, self.body) = (status, headers, body)
        }
    }

    package let base: String
    private let channel: any Channel
    private let counts = RequestCounts()

    /// Requests per URI, shared by the connections' handlers.
    package final class RequestCounts: Sendable {
        private let counts = Mutex<[String: Int]>([:])
        /// Counts one more request for `uri` and returns how many there have been.
        package func next(_ uri: String) -> Int {
            counts.withLock { c -> Int in
                c[uri, default: 0] += 1
                return c[uri] ?? 0
            }
        }
        package var all: [String: Int] { counts.withLock { $0 } }
    }

    package init(answer: @escaping @Sendable (String, Int) -> Answer) async throws {
        let counts = self.counts
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(counts: counts, answer: answer))
                }
            }
        channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        base = "http://127.0.0.1:\(channel.localAddress?.port ?? 0)"
    }

    /// Requests received so far, by URI.
    package var requests: [String: Int] { counts.all }

    package func close() async throws {
        try await channel.close()
    }

    private final class Handler: ChannelInboundHandler {
        package typealias InboundIn = HTTPServerRequestPart
        package typealias OutboundOut = HTTPServerResponsePart
        package let counts: RequestCounts
        package let answer: @Sendable (String, Int) -> Answer
        package var uri = ""

        package init(counts: RequestCounts, answer: @escaping @Sendable (String, Int) -> Answer) {
            self.counts = counts
            self.answer = answer
        }

        package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                uri = head.uri
            case .body:
                break
            case .end:
                let uri = self.uri
                let n = counts.next(uri)
                let a = answer(uri, n)
                var headers = HTTPHeaders(a.headers)
                headers.add(name: "Content-Length", value: "\(a.body.utf8.count)")
                let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: a.status), headers: headers)
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: a.body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
