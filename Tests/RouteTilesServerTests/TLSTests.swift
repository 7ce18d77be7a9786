import Foundation
import RouteTiles
@testable import RouteTilesServer
import RouteTilesCoreTestSupport
import RouteTilesTestSupport
import Testing

/// HTTPS without a proxy: certificates made by openssl at test time, the server asked by curl for HTTP/2 and
/// HTTP/1.1, a renewed certificate served to new connections without a restart.
@Suite struct TLSTests {
    /// A self-signed P-256 certificate for 127.0.0.1 with the common name `name`, written to `cert` and `key`.
    static func makeCertificate(name: String, cert: String, key: String) async throws {
        let made = try await ExternalTool.runDetached("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-keyout", key, "-out", cert, "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        #expect(made.status == 0, "\(made.stderr)")
    }

    /// `curl` over HTTPS, trusting `ca`: the HTTP version and status, and the body.
    static func curl(_ url: String, ca: String, _ options: [String]) async throws -> (version: String, status: String, body: String) {
        let result = try await ExternalTool.runDetached("/usr/bin/curl", ["-s", "--cacert", ca, "-w", "\n%{http_version} %{http_code}"]
            + options + [url])
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false)
        let last = lines.last.map(String.init) ?? ""
        let parts = last.split(separator: " ")
        return (parts.first.map(String.init) ?? "", parts.last.map(String.init) ?? "", lines.dropLast().joined(separator: "\n"))
    }

    /// The common name of the certificate a new connection to `port` is shown.
    static func subject(port: Int) async throws -> String {
        let result = try await ExternalTool.runDetached("/bin/sh", ["-c",
            "openssl s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null | openssl x509 -noout -subject"])
        return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func httpsServesHTTP2AndHTTP1AndARenewedCertificateWithoutARestart() async throws {
        let folder = try TemporaryFolder()
        let cert = folder.path("cert.pem"), key = folder.path("key.pem"), renewed = folder.path("renewed")
        try await Self.makeCertificate(name: "first", cert: cert, key: key)
        let routes = TileBackend.routes(Sample.parisRoutes(count: 2, points: 60), options: TestServer.options())
        try await TestServer.with(routes, configure: { c in
            c.tlsCertificatePath = cert
            c.tlsKeyPath = key
            c.keyReloadInterval = .milliseconds(200)
        }) { server in
            let port = try #require(Int(server.base.split(separator: ":").last ?? ""))
            let base = "https://127.0.0.1:\(port)"
            let h2 = try await Self.curl(base + "/health", ca: cert, ["--http2"])
            #expect(h2.version == "2" && h2.status == "200", "\(h2)")
            let h1 = try await Self.curl(base + "/health", ca: cert, ["--http1.1"])
            #expect(h1.version == "1.1" && h1.status == "200", "\(h1)")
            // tiles.json names https URLs; a tile is answered over both, the second time from the cache.
            let tilejson = try await Self.curl(base + "/tiles.json", ca: cert, ["--http2"])
            #expect(tilejson.body.contains("\"\(base)/tiles/{z}/{x}/{y}.mvt\""), "\(tilejson.body)")
            for options in [["--http2"], ["--http1.1"], ["--http1.1"]] {
                let tile = try await Self.curl(base + "/tiles/0/0/0.mvt", ca: cert, options + ["-H", "Accept-Encoding: gzip", "-o", "/dev/null"])
                #expect(tile.status == "200", "\(tile)")
            }
            #expect(try await Self.subject(port: port).hasSuffix("CN = first"))

            // A renewed certificate: new connections get it within the reload interval.
            try FileManager.default.createDirectory(atPath: renewed, withIntermediateDirectories: true)
            try await Self.makeCertificate(name: "second", cert: renewed + "/cert.pem", key: renewed + "/key.pem")
            try FileManager.default.removeItem(atPath: cert)
            try FileManager.default.removeItem(atPath: key)
            try FileManager.default.copyItem(atPath: renewed + "/key.pem", toPath: key)
            try FileManager.default.copyItem(atPath: renewed + "/cert.pem", toPath: cert)
            var subject = ""
            for _ in 0..<50 {
                subject = try await Self.subject(port: port)
                if subject.hasSuffix("CN = second") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(subject.hasSuffix("CN = second"), "\(subject)")
            #expect(try await Self.curl(base + "/health", ca: cert, ["--http2"]).status == "200")
        }
    }

    @Test func badCertificateFilesAreNamedInTheError() async throws {
        let folder = try TemporaryFolder()
        let cert = folder.path("cert.pem"), key = folder.path("key.pem")
        try await Self.makeCertificate(name: "x", cert: cert, key: key)
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: folder.path("bad.pem")))
        let routes = TileBackend.routes(Sample.parisRoutes(count: 1, points: 20), options: TestServer.options())
        for (c, k, named) in [(folder.path("bad.pem"), key, "--tls-cert"), (cert, folder.path("bad.pem"), "--tls-key"),
                              (folder.path("missing.pem"), key, "missing.pem")] {
            var configuration = ServerConfiguration()
            configuration.tlsCertificatePath = c
            configuration.tlsKeyPath = k
            #expect {
                _ = try RouteTilesServer(configuration: configuration, name: "t", backend: routes, logger: .init(label: "t"))
            } throws: { error in "\(error)".contains(named) }
        }
    }
}
