import Foundation

/// One HTTP/1.1 exchange over a plain loopback socket, for what a high-level client hides: a request head is sent,
/// then (when `waitFor` is given) the bytes received are awaited until they contain `waitFor`, then the body is
/// sent and everything up to the connection's close (or `timeout` seconds) is returned. Runs on a thread of its own.
enum RawHTTPExchange {
    struct Outcome {
        /// What arrived before the body was sent.
        var beforeBody: String
        /// Everything received.
        var all: String
        /// Seconds from the head to `waitFor` (nil when not awaited or not seen).
        var waited: Double?
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
        let started = Date()
        sendAll(Array(head.utf8))
        var waited: Double?
        if let waitFor {
            receive(until: started.addingTimeInterval(timeout)) { $0.contains(waitFor) }
            if String(decoding: received, as: UTF8.self).contains(waitFor) { waited = Date().timeIntervalSince(started) }
        }
        let beforeBody = String(decoding: received, as: UTF8.self)
        sendAll(body)
        receive(until: Date().addingTimeInterval(timeout)) { text in
            // The final response is whole once its Content-Length bytes follow its head.
            guard let final = text.range(of: "HTTP/1.1 2", options: .backwards) ?? text.range(of: "HTTP/1.1 4", options: .backwards),
                  let end = text.range(of: "\r\n\r\n", range: final.upperBound..<text.endIndex) else { return false }
            let headText = text[final.lowerBound..<end.lowerBound].lowercased()
            guard let line = headText.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                  let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else { return true }
            return text.utf8.distance(from: end.upperBound.samePosition(in: text.utf8) ?? text.utf8.endIndex, to: text.utf8.endIndex) >= length
        }
        return Outcome(beforeBody: beforeBody, all: String(decoding: received, as: UTF8.self), waited: waited)
    }
}
