import Foundation
import RouteTiles
import RouteTilesCoreTestSupport

/// A PostgreSQL cluster of the tests' own: `initdb` and `pg_ctl` in a temporary folder, on a free loopback port,
/// run as the `postgres` user when the tests run as root (PostgreSQL refuses to run as root). PostGIS comes from
/// Debian's `postgresql-15-postgis-3`, which `.ci/run` installs.
package final class PostgresCluster: @unchecked Sendable {
    package static let binaries = "/usr/lib/postgresql/15/bin"

    /// Whether the server binaries are installed; in CI they must be (`ExternalTool.required`).
    package static var installed: Bool {
        FileManager.default.isExecutableFile(atPath: binaries + "/initdb")
            && FileManager.default.fileExists(atPath: "/usr/share/postgresql/15/extension/postgis.control")
    }

    /// One cluster for every test that does not stop it; a watchdog stops it when the test process exits. Tests
    /// reach it through `sharedCluster()`.
    private static let shared: Result<PostgresCluster, any Error> = Result { try PostgresCluster(watchdog: true) }

    /// The shared cluster, first touched on a thread of its own: that touch runs `initdb` and starts the server
    /// (seconds, many more on a loaded machine), and every test that touches it meanwhile waits. Waiting on the
    /// concurrency pool's threads, which are as few as the cores, two PostgreSQL suites starting together held up
    /// every other test of the run for 40 to 80 s, and tests with deadlines of their own failed.
    package static func sharedCluster() async throws -> PostgresCluster {
        try await detached { try shared.get() }
    }

    /// A cluster of the caller's own (watched as the shared one), made on a thread of its own (`initdb`).
    package static func newCluster() async throws -> PostgresCluster {
        try await detached { try PostgresCluster(watchdog: true) }
    }

    /// `stop()` and `start()` on a thread of their own (`pg_ctl … -w` waits for the server).
    package func stopDetached() async throws { try await Self.detached { try self.stop() } }
    package func startDetached() async throws { try await Self.detached { try self.start() } }

    /// `createDatabase()` on a thread of its own (`createdb` and `CREATE EXTENSION postgis` take a second or more).
    package func newDatabase() async throws -> String {
        try await Self.detached { try self.createDatabase() }
    }

    private static func detached<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await ExternalTool.onThread(body)
    }

    package let folder: String
    package let port: Int
    private let asRoot = getuid() == 0
    private let lock = NSLock()
    private var databases = 0

    package init(watchdog: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("routetiles-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        port = try FreePort.loopback()
        if asRoot { try check(ExternalTool.run("/bin/chown", ["postgres:postgres", folder]), "chown") }
        try check(run("initdb", ["-D", folder + "/data", "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]), "initdb")
        try start()
        if watchdog {
            // Stops the cluster and removes its folder once this process is gone, however it ends.
            let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; "
                + "\(asRoot ? "runuser -u postgres -- " : "")\(Self.binaries)/pg_ctl -D \(folder)/data stop -m immediate >/dev/null 2>&1; rm -rf \(folder)"
            try ExternalTool.startWatchdog(script)
        }
    }

    deinit {
        _ = try? run("pg_ctl", ["-D", folder + "/data", "stop", "-m", "immediate"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Starts the server. `pg_ctl` starts it through a wrapper that closes every inherited descriptor above 2:
    /// Foundation's `Process` learns that a child ended when a descriptor the child inherited closes, and a
    /// server that kept it would make `pg_ctl` look as if it never ended.
    package func start() throws {
        let wrapper = folder + "/postgres-wrapper"
        if !FileManager.default.fileExists(atPath: wrapper) {
            let script = """
                #!/bin/bash
                for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null; fi; done
                exec \(Self.binaries)/postgres "$@"

                """
            try Data(script.utf8).write(to: URL(fileURLWithPath: wrapper))
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        }
        try check(run("pg_ctl", ["-D", folder + "/data", "-p", wrapper, "-l", folder + "/pg.log", "-w", "-t", "60", "-o",
                                 "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
                                 "start"]), "pg_ctl start")
    }

    /// Stops the server: `fast` rolls back open transactions and closes every connection.
    package func stop() throws {
        try check(run("pg_ctl", ["-D", folder + "/data", "stop", "-m", "fast", "-w"]), "pg_ctl stop")
    }

    /// A new, empty database with PostGIS; its URL.
    package func createDatabase() throws -> String {
        let name = lock.withLock { () -> String in
            databases += 1
            return "routes_\(databases)"
        }
        _ = try psqlBlocking("postgres", "CREATE DATABASE \(name)")
        return url(name)
    }

    package func url(_ database: String) -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Runs SQL with `psql` (as a user would), returning its unaligned output; on a thread of its own
    /// (`runDetached`), so that the wait holds none of the concurrency pool's threads, which the in-process servers
    /// of other tests need.
    @discardableResult
    package func psql(_ database: String, _ sql: String) async throws -> String {
        let result = try await ExternalTool.runDetached("/usr/bin/psql", psqlArguments(database, sql))
        try check(result, "psql \(sql)")
        return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `psql` for code already on a thread of its own.
    private func psqlBlocking(_ database: String, _ sql: String) throws -> String {
        let result = try ExternalTool.run("/usr/bin/psql", psqlArguments(database, sql))
        try check(result, "psql \(sql)")
        return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func psqlArguments(_ database: String, _ sql: String) -> [String] {
        ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres",
         "-d", database, "-c", sql]
    }

    /// Waits (up to `seconds`) until `condition`, a boolean SQL expression, holds in `database`: how tests wait for
    /// a state of the server (listeners connected, a lock waited on) instead of sleeping.
    package func waitUntil(_ database: String, _ condition: String, seconds: Double = 30) async throws -> Bool {
        // psql on a thread of its own (`runDetached`): a poll must not hold one of the concurrency pool's threads,
        // which the in-process servers of other tests need.
        func holds() async throws -> Bool {
            let result = try await ExternalTool.runDetached("/usr/bin/psql", [
                "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database,
                "-c", "SELECT \(condition)",
            ])
            return result.status == 0 && result.text.trimmingCharacters(in: .whitespacesAndNewlines) == "t"
        }
        return try await eventually(within: seconds, holds)
    }

    /// The database name of a URL made by `createDatabase`.
    package static func database(of url: String) -> String {
        String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> ExternalTool.Result {
        if asRoot {
            return try ExternalTool.run("/usr/sbin/runuser", ["-u", "postgres", "--", Self.binaries + "/" + tool] + arguments)
        }
        return try ExternalTool.run(Self.binaries + "/" + tool, arguments)
    }

    private func check(_ result: ExternalTool.Result, _ what: String) throws {
        guard result.status == 0 else {
            throw InputError(file: "postgres", message: "\(what) failed (\(result.status)): \(result.stderr)")
        }
    }
}
