import Foundation
import Testing

/// The viewer in a real browser: headless Chromium (Debian's `chromium` and `chromium-driver`, driven by Python's
/// selenium) loads the page with MapLibre GL JS 5.3.0 from the PyPI package `maplibre`, served through `--assets`.
@Suite struct ViewerBrowserTests {
    static var mapLibreFolder: String? {
        let r = try? ExternalTool.python("import maplibre, os; print(os.path.join(os.path.dirname(maplibre.__file__), 'srcjs'))")
        guard let r, r.status == 0 else { return nil }
        let folder = r.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.fileExists(atPath: folder + "/maplibre-gl.js") ? folder : nil
    }

    static var browserAvailable: Bool {
        ExternalTool.available("chromium") && ExternalTool.available("chromedriver") && ExternalTool.pythonHas("selenium")
            && ExternalTool.pythonHas("PIL") && mapLibreFolder != nil
    }

    @Test(.enabled(if: ExternalTool.required(browserAvailable), "needs chromium, chromedriver, selenium, pillow, maplibre"))
    func theViewerDrawsTheRoutesWithNoFailedTile() async throws {
        let assets = try #require(Self.mapLibreFolder)
        let serve = try ServeProcessTests.ServeProcess(["Tiles/samples/paris-runs.geojson", "--assets", assets,
                                                        "--maplibre-url", "/assets"])
        let folder = try TemporaryFolder()
        let script = ExternalTool.packageRoot.path + "/Tests/RouteTilesTests/Browser/viewer_check.py"
        let run = try await ExternalTool.runDetached("/usr/bin/env", ["python3", script, serve.base + "/", folder.path("viewer.png")], timeout: 180)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any], "\(run.text)")
        #expect(report["ready"] as? Bool == true)
        #expect((report["renderedRouteFeatures"] as? Int ?? 0) > 0)
        #expect((report["mapErrors"] as? [Any])?.isEmpty == true, "\(report)")
        // Route ink: at least a few thousand pixels of the 1000×700 view are drawn by the routes.
        #expect((report["inkPixels"] as? Int ?? 0) > 3000, "\(report)")
        #expect((report["zoom"] as? Double ?? 0) > 10, "the map is fitted to the Paris routes")

        // The server saw tile requests and answered none of them with an error.
        let (status, metrics) = try await ServeProcessTests().get(serve.base + "/metrics")
        #expect(status == 200)
        let text = String(decoding: metrics, as: UTF8.self)
        let statuses = text.split(separator: "\n").filter { $0.hasPrefix("routetiles_http_requests_total{") }
        #expect(statuses.contains { $0.contains("status=\"200\"") })
        for line in statuses {
            #expect(["200", "204", "304"].contains { line.contains("status=\"\($0)\"") }, "\(line)")
        }
        #expect(serve.stop() == 0)
    }
}
