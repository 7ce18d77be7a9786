import Foundation

/// One HTTP/1.1 exchange over a plain loopback socket, for what a high-level client hides: a request head is sent,
/// then (when `waitFor` is given) the bytes received are awaited until they contain `waitFor`, then the body is
/// sent and everything up to the connection's close (or `timeout` seconds) is returned; the head should ask for
/// `Connection: close`. Runs on a thread of its own.
enum RawHTTPExchange {
    struct Outcome {
        /// What arrived before the body was sent.
        var beforeBody: String
        /// Everything received.
        var all: String
    }

    static func run(port: Int, head: String, body: [UInt8], waitFor: String?, timeout: Double = 10) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try exchange(port: port, head: head, body: body, waitFor: waitFor, timeout: timeout) }) }
                .start()
        }
    }

    private static func exchange(port: Int, head: String, body: [UInt8], waitFor: String?, timeout: Double) throws -> Outcome {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var tv = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
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
