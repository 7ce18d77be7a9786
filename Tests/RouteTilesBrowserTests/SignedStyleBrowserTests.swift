import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// A private server over HTTPS with a certificate of a test CA, read as a site that embeds a map reads it: curl
/// trusting the CA, and headless Chromium trusting it through an NSS database, loading a page whose MapLibre map
/// takes `style.json?access_token=…` and then every tile by the signed URLs the style names. A changed character of
/// the signature is refused, and so is every tile asked for once the signed URLs have expired.
@Suite(.serialized, .heavy) struct SignedStyleBrowserTests {
    static var available: Bool { ViewerBrowserTests.browserAvailable && ExternalTool.available("certutil") }

    /// A test CA and a server certificate it signs for 127.0.0.1, in `folder`: `ca.pem`, `server.pem`, `server.key`.
    static func makeCertificates(in folder: TemporaryFolder) async throws {
        let openssl = "/usr/bin/openssl"
        try Data("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\n".utf8)
            .write(to: URL(fileURLWithPath: folder.path("server.ext")))
        for arguments in [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
             "-keyout", folder.path("ca.key"), "-out", folder.path("ca.pem"), "-subj", "/CN=RouteTiles test CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", folder.path("server.key"),
             "-out", folder.path("server.csr"), "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", folder.path("server.csr"), "-CA", folder.path("ca.pem"), "-CAkey", folder.path("ca.key"),
             "-CAcreateserial", "-days", "2", "-extfile", folder.path("server.ext"), "-out", folder.path("server.pem")],
        ] {
            let made = try await ExternalTool.runDetached(openssl, arguments)
            try #require(made.status == 0, "openssl \(arguments.first ?? ""): \(made.stderr)")
        }
    }

    /// `curl` over HTTPS (trusting `ca` when given): the status (`000` when no answer came) and the body.
    static func curl(_ url: String, ca: String?, headers: [String] = []) async throws -> (status: String, body: String) {
        let result = try await ExternalTool.runDetached("/usr/bin/curl", ["-s", "--http2", "-w", "\n%{http_code}"]
            + (ca.map { ["--cacert", $0] } ?? []) + headers.flatMap { ["-H", $0] } + [url])
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.last.map(String.init) ?? "", lines.dropLast().joined(separator: "\n"))
    }

    @Test(.enabled(if: ExternalTool.required(available), "needs chromium, chromedriver, selenium, maplibre and certutil"))
    func aSignedStyleOverHTTPSLoadsItsTilesUntilTheyExpire() async throws {
        let mapLibre = try #require(ViewerBrowserTests.mapLibreFolder)
        let folder = try TemporaryFolder()
        try await Self.makeCertificates(in: folder)
        try Data(TestTokens.secret + [0x0a]).write(to: URL(fileURLWithPath: folder.path("secret")))
        let features = [("acme-1", "acme", 2.350), ("acme-2", "acme", 2.353), ("globex-1", "globex", 2.3515)].map { id, group, lon in
            #"{"type":"Feature","id":"\#(id)","properties":{"group":"\#(group)"},"geometry":{"type":"LineString","coordinates":[[\#(lon),48.850],[\#(lon + 0.002),48.853],[\#(lon + 0.001),48.849]]}}"#
        }
        try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8)
            .write(to: URL(fileURLWithPath: folder.path("fleet.geojson")))
        // The page and MapLibre, served from one assets folder.
        let assets = folder.path("assets")
        try FileManager.default.createDirectory(atPath: assets, withIntermediateDirectories: true)
        for name in ["maplibre-gl.js", "maplibre-gl.css"] { try FileManager.default.copyItem(atPath: mapLibre + "/" + name, toPath: assets + "/" + name) }
        for name in ["signed.html", "signed.js"] {
            try FileManager.default.copyItem(atPath: ViewerBrowserTests.script + "signed/" + name, toPath: assets + "/" + name)
        }
        let serve = try await ServeProcess.start([folder.path("fleet.geojson"), "--store", "memory", "--read", "token",
                                                  "--jwt-secret-file", folder.path("secret"),
                                                  "--tls-cert", folder.path("server.pem"), "--tls-key", folder.path("server.key"),
                                                  "--assets", assets, "--basemap", "none"])
        defer { _ = serve.stopNow() }
        #expect(serve.base.hasPrefix("https://127.0.0.1:"))
        let ca = folder.path("ca.pem")
        // The token expires in a minute, and the signed URLs with it: long enough for the page to load on a busy machine.
        let token = try await TestTokens.hs256(read: ["acme"], subject: "embedded-map", expiresIn: 60)

        // curl: untrusted without the CA; with it, a tile by bearer token, and by the signed URL of style.json.
        #expect(try await Self.curl(serve.base + "/health", ca: nil).status == "000")
        let tile = WebMercator.tile(containing: Coordinate(longitude: 2.351, latitude: 48.851), zoom: 14)
        let path = "/tiles/14/\(tile.x)/\(tile.y).mvt"
        #expect(try await Self.curl(serve.base + path, ca: ca, headers: ["Authorization: Bearer \(token)"]).status == "200")
        let style = try await Self.curl(serve.base + "/style.json?access_token=\(token)", ca: ca)
        #expect(style.status == "200")
        let styleJSON = try #require(try JSONSerialization.jsonObject(with: Data(style.body.utf8)) as? [String: Any])
        let sources = try #require(styleJSON["sources"] as? [String: [String: Any]])
        let tiles = sources.values.compactMap { $0["tiles"] as? [String] }.flatMap { $0 }
        let template = try #require(tiles.first, "\(sources)")
        #expect(template.hasPrefix(serve.base + "/tiles/{z}/{x}/{y}.mvt?exp=") && template.contains("&g=acme&sig="), "\(template)")
        let signed = template.replacingOccurrences(of: "{z}/{x}/{y}", with: "14/\(tile.x)/\(tile.y)")
        #expect(try await Self.curl(signed, ca: ca).status == "200")
        #expect(try await Self.curl(signed.replacingOccurrences(of: "sig=", with: "sig=A"), ca: ca).status == "403")

        let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", ViewerBrowserTests.script + "signed_style_check.py",
                                                                      serve.base, ca, token, folder.path("profile")], timeout: 240)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try ViewerBrowserTests.report(run)
        #expect(report["idle"] as? Bool == true && report["secure"] as? Bool == true, "\(report)")
        #expect((report["template"] as? String ?? "").contains("&g=acme&sig="), "\(report)")
        #expect((report["loaded"] as? Int ?? 0) > 0 && (report["failedBefore"] as? [Any])?.isEmpty == true, "\(report)")
        // What MapLibre drew is acme's routes alone (feature ids compared as JavaScript holds them, as doubles).
        let acme = Set(["acme-1", "acme-2"].map { Double(ProjectedRouteSet.featureID(for: .string($0), index: 0)) })
        let rendered = Set((report["rendered"] as? [String] ?? []).compactMap(Double.init))
        #expect(!rendered.isEmpty && rendered.isSubset(of: acme), "\(report)")
        // A changed character of the signature: every tile refused, none loaded.
        let tampered = report["tamperedFailures"] as? [[String: Any]] ?? []
        #expect(!tampered.isEmpty && tampered.allSatisfy { $0["status"] as? Int == 403 }, "\(report)")
        #expect(report["tamperedLoaded"] as? Int == 0, "\(report)")
        // Past the expiry: the tiles of a new zoom refused, none loaded.
        let expired = report["expiredFailures"] as? [[String: Any]] ?? []
        #expect(!expired.isEmpty && expired.allSatisfy { $0["status"] as? Int == 403 }, "\(report)")
        #expect(report["loadedAfterExpiry"] as? Int == 0, "\(report)")
        #expect(await serve.stop() == 0)
    }
}
