import Foundation
import RouteTiles
import RouteTilesCoreTestSupport

/// A real Varnish (Debian's `varnish`, which `.ci/run` installs) on a free loopback port, in front of a backend
/// port, configured with the shipped Docs/varnish/routetiles.vcl: the same file, with only the backend's port put
/// in. `varnishd` forks and drops privileges, so its folder and the VCL are readable by others. It is stopped with
/// SIGKILL, by the pid it writes and those of its children: it inherits the test process's ignored SIGTERM (swift-
/// service-lifecycle ignores it to catch it through Dispatch), so SIGTERM would not stop it. A watchdog stops it if
/// the test process ends first.
package final class VarnishCache: @unchecked Sendable {
    package static let varnishd = "/usr/sbin/varnishd"
    package static var installed: Bool { FileManager.default.isExecutableFile(atPath: varnishd) }
    package static let shippedVCL = PackageFolder.root.appendingPathComponent("Docs/varnish/routetiles.vcl")

    package let folder: TemporaryFolder
    package let port: Int
    package let backendPort: Int
    package var base: String { "http://127.0.0.1:\(port)" }
    private let lock = NSLock()

    /// - Parameter port: where Varnish listens; nil: a free port.
    package init(backendPort: Int, port: Int? = nil) throws {
        folder = try TemporaryFolder()
        self.backendPort = backendPort
        self.port = try port ?? FreePort.loopback()
        let vcl = try String(contentsOf: Self.shippedVCL, encoding: .utf8)
        let configured = vcl.replacingOccurrences(of: #".port = "8080";"#, with: ".port = \"\(backendPort)\";")
        guard configured != vcl else { throw InputError(file: "routetiles.vcl", message: "no backend port to set") }
        try Data(configured.utf8).write(to: URL(fileURLWithPath: folder.path("routetiles.vcl")))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder.path("routetiles.vcl"))
        try start()
    }

    deinit { stop() }

    /// `init(backendPort:port:)` on a thread of its own: starting varnishd compiles the VCL (seconds of CPU) and
    /// waits for its port, which must not hold a thread of the concurrency pool (`ExternalTool.onThread`).
    package static func started(backendPort: Int, port: Int? = nil) async throws -> VarnishCache {
        try await ExternalTool.onThread { try VarnishCache(backendPort: backendPort, port: port) }
    }

    /// `start()` on a thread of its own.
    package func startDetached() async throws {
        try await ExternalTool.onThread { try self.start() }
    }

    /// `stop()` on a thread of its own.
    package func stopDetached() async {
        _ = try? await ExternalTool.onThread { self.stop() }
    }

    /// Starts varnishd (again, after `stop`: with an empty cache, as a restarted Varnish has).
    package func start() throws {
        let result = try ExternalTool.run(Self.varnishd, [
            "-a", "127.0.0.1:\(port)", "-f", folder.path("routetiles.vcl"), "-n", folder.path("vn"),
            "-s", "malloc,32m", "-P", folder.path("varnish.pid"),
        ], timeout: 60)
        guard result.status == 0 else {
            throw InputError(file: "varnishd", message: "did not start (\(result.status)): \(result.stderr) \(result.text)")
        }
        try waitUntilListening()
        // The watchdog: stops this varnishd once the test process is gone, and ends when `stop` removed the pid
        // file. It kills a pid only while that process's command line still names this folder, so that a pid
        // reused by another process is left alone.
        let pids = try processes().map(String.init).joined(separator: " ")
        let pidFile = folder.path("varnish.pid"), name = folder.path("vn")
        let script = "while kill -0 \(getpid()) 2>/dev/null && [ -e \(pidFile) ]; do sleep 1; done; "
            + "for p in \(pids); do grep -qF \(name) /proc/$p/cmdline 2>/dev/null && kill -9 $p; done"
        try ExternalTool.startWatchdog(script)
    }

    /// Stops varnishd (its manager and children) and waits until its port is closed.
    package func stop() {
        lock.withLock {
            guard let pids = try? processes() else { return }
            for pid in pids.reversed() { kill(pid, SIGKILL) }
            let deadline = Date().addingTimeInterval(10)
            while FreePort.accepts(port: port), Date() < deadline { usleep(20_000) }
            try? FileManager.default.removeItem(atPath: folder.path("varnish.pid"))
        }
    }

    /// Stops (SIGSTOP) varnishd's processes: it keeps its objects and accepts connections, and answers nothing.
    package func pause() throws {
        for pid in try processes() { kill(pid, SIGSTOP) }
    }

    /// Lets a paused varnishd go on (SIGCONT).
    package func resume() throws {
        for pid in try processes().reversed() { kill(pid, SIGCONT) }
    }

    /// The manager (from the pid file) and its children, the cache process among them.
    private func processes() throws -> [pid_t] {
        let text = try String(contentsOfFile: folder.path("varnish.pid"), encoding: .utf8)
        guard let manager = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw InputError(file: "varnish.pid", message: "no pid in '\(text)'")
        }
        var pids = [manager]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { continue }
            // Fields after the command name: state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == manager { pids.append(pid) }
        }
        return pids
    }

    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if FreePort.accepts(port: port) { return }
            usleep(50_000)
        }
        throw InputError(file: "varnishd", message: "not listening on \(port) after 20 s")
    }
}

/// Loopback ports for servers the tests start as processes.
package enum FreePort {
    /// A port free now (bound and released by the kernel's choice).
    package static func loopback() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw InputError(file: "socket", message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on the loopback port.
    package static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                connect(fd, raw, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
