import Foundation
import RouteTilesCoreTestSupport

/// One HTTP/1.1 exchange over a plain loopback socket, for what a high-level client hides: a request head is sent,
/// then (when `waitFor` is given) the bytes received are awaited until they contain `waitFor`, then the body is
/// sent and everything up to the connection's close (or `timeout` seconds) is returned; the head should ask for
/// `Connection: close`. Runs on a thread of its own.
package enum RawHTTPExchange {
    package struct Outcome {
        /// What arrived before the body was sent.
        package var beforeBody: String
        /// Everything received.
        package var all: String
    }

    package static func run(port: Int, head: String, body: [UInt8], waitFor: String?, timeout: Double = 10) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try exchange(port: port, head: head, body: body, waitFor: waitFor, timeout: timeout) }) }
                .start()
        }
    }

    /// A TCP socket connected to the loopback port, with a 100 ms receive timeout and Nagle's delay off (so that
    /// small chunks leave one by one).
    private static func connectedSocket(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var tv = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    private static func exchange(port: Int, head: String, body: [UInt8], waitFor: String?, timeout: Double) throws -> Outcome {
        let fd = try connectedSocket(port: port)
        defer { close(fd) }
        func sendAll(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { return }
                offset += n
            }
        }
        var received: [UInt8] = []
        func receive(until deadline: Date, stop: (String) -> Bool) {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while Date() < deadline {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 { received += buffer[0..<n] }
                if n == 0 { return }
                if stop(String(decoding: received, as: UTF8.self)) { return }
            }
        }
        sendAll(Array(head.utf8))
        if let waitFor {
            receive(until: Date().addingTimeInterval(timeout)) { $0.contains(waitFor) }
        }
        let beforeBody = String(decoding: received, as: UTF8.self)
        sendAll(body)
        // The head asks for `Connection: close`: the server closes once the final answer is sent.
        receive(until: Date().addingTimeInterval(timeout)) { _ in false }
        return Outcome(beforeBody: beforeBody, all: String(decoding: received, as: UTF8.self))
    }
}

extension RawHTTPExchange {
    /// Sends `chunks` over one loopback connection, `pause` seconds apart, then returns every byte received until
    /// the server closes the connection (the last request should ask for `Connection: close`) or `timeout`. The
    /// timeout is long because it is only reached when something is wrong: the test process runs every suite at
    /// once, and a busy concurrency pool can keep the server's handlers waiting for seconds.
    package static func sendChunks(port: Int, chunks: [[UInt8]], pause: Double = 0, timeout: Double = 120) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try sendAndReceive(port: port, chunks: chunks, pause: pause, timeout: timeout) })
            }.start()
        }
    }

    private static func sendAndReceive(port: Int, chunks: [[UInt8]], pause: Double, timeout: Double) throws -> [UInt8] {
        let fd = try connectedSocket(port: port)
        defer { close(fd) }
        for (i, chunk) in chunks.enumerated() {
            if i > 0, pause > 0 { Thread.sleep(forTimeInterval: pause) }
            var offset = 0
            while offset < chunk.count {
                let n = chunk[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }
                offset += n
            }
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += buffer[0..<n] }
            if n == 0 { break }
        }
        return received
    }
}

/// HTTP/1.1 responses read back from a byte stream, in order.
package struct RawHTTPResponse {
    package var status: Int
    /// Field names lowercased; repeated fields joined by ", ".
    package var headers: [String: String]
    package var body: [UInt8]

    /// Splits `bytes` into responses; `heads[i]` says whether the i-th answers a HEAD (no body follows).
    /// Interim (1xx) responses are skipped. Stops at the first thing that is not a whole response.
    package static func split(_ bytes: [UInt8], heads: [Bool] = []) -> [RawHTTPResponse] {
        var responses: [RawHTTPResponse] = []
        var offset = 0
        let separator = Array("\r\n\r\n".utf8)
        while offset < bytes.count {
            guard let end = (offset...(bytes.count - separator.count)).first(where: { Array(bytes[$0..<($0 + 4)]) == separator })
            else { break }
            let lines = String(decoding: bytes[offset..<end], as: UTF8.self).components(separatedBy: "\r\n")
            guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 "),
                  let status = Int(statusLine.dropFirst(9).prefix(3)) else { break }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name] = headers[name].map { $0 + ", " + value } ?? value
            }
            offset = end + 4
            if status < 200 { continue }
            let isHead = responses.count < heads.count && heads[responses.count]
            let length = (isHead || status == 204 || status == 304) ? 0 : Int(headers["content-length"] ?? "0") ?? 0
            guard offset + length <= bytes.count else { break }
            responses.append(RawHTTPResponse(status: status, headers: headers, body: Array(bytes[offset..<(offset + length)])))
            offset += length
        }
        return responses
    }
}
