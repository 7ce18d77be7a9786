import HTTPTypes
import NIOCore

/// Answers requests for cached tiles straight from the connection's bytes, in front of the HTTP decoder.
///
/// Through Hummingbird, a request is decoded by NIO's HTTP/1 parser, converted to swift-http-types, handed to a
/// task on the Swift concurrency pool, and its response travels back through the event loop and two encoders.
/// For a tile already in memory that costs several times the answer itself (measured in Docs/BENCHMARKS.md,
/// "Serving tiles"). This handler is the first in the connection's pipeline: it finds each request head in the
/// bytes read (`RequestHeadScanner`) and answers a `GET` or `HEAD` of a cached tile at once, with the headers the
/// full path sends for the same request (`TileEndpoints.cachedAnswer`, the one closure it is given), plus `Date` and
/// `Server` as Hummingbird adds them.
///
/// Every other request goes to the HTTP decoder unchanged, byte for byte: other resources, cache misses, errors. So
/// do all the bytes of the connection from the first request the scanner cannot delimit with certainty (one with a
/// body, or malformed): from then on the connection is Hummingbird's alone. Responses keep the order of requests:
/// while a request handed on is unanswered (`HandedOnRequests`), the requests behind it are handed on too. A
/// client that does not read its answers (the channel not writable) is handed on, to Hummingbird's back pressure.
final class CachedTileFastPath: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = IOData

    /// The longest head kept while waiting for its end; past it, the bytes go to the decoder and its limits.
    static let maxHeadBytes = 16 * 1024
    private static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")

    /// The answer to a request head for a cached tile, or nil to hand the request on.
    /// The third argument is the connection's last credential, which the closure may remember.
    typealias CachedAnswer = @Sendable (RequestHeadScanner.Head, UnsafeRawBufferPointer, inout RememberedCredential)
        -> TileHTTPAnswer?

    private let cachedAnswer: CachedAnswer
    /// The prepared head of the usual answer (`TileHTTPAnswer.prepared`).
    private let preparedHead: CachedTileHead
    private let serverName: String
    private let handedOn: HandedOnRequests
    private var dates = HTTPDateClock()
    private var remembered = RememberedCredential()
    /// The start of a request whose head has not fully arrived.
    private var partial: ByteBuffer?
    /// Everything goes to the decoder from now on.
    private var passThrough = false
    private var needsFlush = false

    init(cachedAnswer: @escaping CachedAnswer, preparedHead: CachedTileHead, serverName: String, handedOn: HandedOnRequests) {
        self.cachedAnswer = cachedAnswer
        self.preparedHead = preparedHead
        self.serverName = serverName
        self.handedOn = handedOn
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if passThrough {
            context.fireChannelRead(data)
            return
        }
        var input = unwrapInboundIn(data)
        if var earlier = partial {
            partial = nil
            // A head is only ever completed (or found malformed) by a CR or LF: without one among the new bytes,
            // and after a complete line, the head is still incomplete. This keeps a head sent a byte at a time
            // from being scanned again from its start for every byte.
            let mayEnd = earlier.readableBytesView.last == Self.cr
                || input.readableBytesView.contains { $0 == Self.cr || $0 == Self.lf }
            earlier.writeBuffer(&input)
            input = earlier
            if !mayEnd, input.readableBytes <= Self.maxHeadBytes {
                partial = input
                return
            }
        }
        // Requests handed on from this read: always a run to the end of the complete requests, because once one
        // is handed on, the ones behind it are too.
        var handOnFrom: Int?
        scanning: while input.readableBytes > 0 {
            let scanned = input.withUnsafeReadableBytes { bytes -> (RequestHeadScanner.Result, TileHTTPAnswer?) in
                let result = RequestHeadScanner.scan(bytes)
                guard case let .request(head, _) = result, handOnFrom == nil, handedOn.unanswered == 0,
                      context.channel.isWritable
                else { return (result, nil) }
                return (result, cachedAnswer(head, bytes, &remembered))
            }
            switch scanned {
            case let (.request(_, length), answer?):
                write(answer, context: context)
                input.moveReaderIndex(forwardBy: length)
            case let (.request(_, length), nil):
                if handOnFrom == nil { handOnFrom = input.readerIndex }
                handedOn.unanswered += 1
                input.moveReaderIndex(forwardBy: length)
            case (.incomplete, _) where input.readableBytes <= Self.maxHeadBytes:
                // Kept for the next read; the reader index stays at its start, where the run handed on ends.
                partial = input.getSlice(at: input.readerIndex, length: input.readableBytes)
                break scanning
            case (.incomplete, _), (.unsure, _):
                passThrough = true
                if handOnFrom == nil { handOnFrom = input.readerIndex }
                input.moveReaderIndex(to: input.writerIndex)
                break scanning
            }
        }
        if let start = handOnFrom {
            // (ByteBuffer's get methods see only readable bytes: step back to the start, then read.)
            let end = input.readerIndex
            input.moveReaderIndex(to: start)
            if let slice = input.readSlice(length: end - start) { context.fireChannelRead(wrapInboundOut(slice)) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    private func write(_ answer: TileHTTPAnswer, context: ChannelHandlerContext) {
        var head = context.channel.allocator.buffer(capacity: 512)
        if let prepared = answer.prepared {
            preparedHead.write(etag: prepared.etag, length: prepared.length, isPrivate: prepared.isPrivate, into: &head)
        } else {
            head.writeStaticString("HTTP/1.1 ")
            head.writeString(String(answer.status.code))
            head.writeStaticString(" ")
            head.writeString(answer.status.reasonPhrase)
            head.writeStaticString("\r\n")
            for field in answer.headers {
                head.writeString(field.name.rawName)
                head.writeStaticString(": ")
                head.writeString(field.value)
                head.writeStaticString("\r\n")
            }
        }
        head.writeStaticString("Date: ")
        head.writeString(dates.now())
        head.writeStaticString("\r\nServer: ")
        head.writeString(serverName)
        head.writeStaticString("\r\n\r\n")
        context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
        if answer.body.readableBytes > 0 { context.write(wrapOutboundOut(.byteBuffer(answer.body)), promise: nil) }
        needsFlush = true
    }
}
