import Foundation
import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The viewer's files (Sources/RouteTilesServer/Viewer) are what the server serves: every script of the folder, in
/// `ViewerFiles.scripts`' order, as `/viewer.js`; the stylesheet as `/viewer.css`; the page with its slots filled.
@Suite struct ViewerFilesTests {
    static let folder = PackageFolder.root.appendingPathComponent("Sources/RouteTilesServer/Viewer")

    static func onDisk(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: folder.appendingPathComponent(name).path).map(Array.init)
    }

    @Test func everyScriptOfTheFolderIsServedOnceAsTheFolderHasIt() async throws {
        let scripts = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasSuffix(".js") }
        #expect(ViewerFiles.scripts.map(\.name).sorted() == scripts.sorted(), "a script of the folder is not served")
        #expect(ViewerFiles.scripts.last?.name == "main.js", "main.js starts the viewer: it comes last")
        for file in ViewerFiles.scripts {
            #expect(file.bytes == Self.onDisk(file.name), "\(file.name): the embedded copy is not the file (rebuild)")
        }
        try await TestServer.with(.routes(ServerRouteListTests.degrees, options: TestServer.options())) { server in
            let script = try await server.get("/viewer.js", gzip: false)
            #expect(script.status == 200 && script.body == ViewerFiles.script)
            var searchFrom = script.text.startIndex
            for file in ViewerFiles.scripts {
                let text = String(decoding: file.bytes, as: UTF8.self)
                let found = try #require(script.text.range(of: text, range: searchFrom..<script.text.endIndex),
                                         "\(file.name) is missing or out of order")
                searchFrom = found.upperBound
            }
            #expect(script.text.hasPrefix("// The RouteTiles viewer: format.js, credential.js, map.js"))
            #expect(script.text.hasSuffix("startViewer();\n\n})();\n"))
            let stylesheet = try await server.get("/viewer.css", gzip: false)
            #expect(stylesheet.status == 200 && stylesheet.body == Self.onDisk("viewer.css"))
        }
    }

    @Test func thePageIsTheFolderMarkupWithItsSlotsFilledOnce() throws {
        let template = String(decoding: try #require(Self.onDisk("index.html")), as: UTF8.self)
        #expect(PageTemplate(template).slots == ["base", "title", "maplibre", "maplibre", "config", "title"])

        // A value is never read for slots: a title that holds one stays as it was typed, escaped.
        let title = "Runs <{{config}}> & \"more\""
        let root = ViewerPage.html(mapLibreURL: "https://cdn.example/maplibre/", title: title,
                                   basemap: "https://b.example/s?x=</script>", live: true)
        let escapedTitle = "Runs &lt;{{config}}&gt; &amp; &quot;more&quot;"
        #expect(root.contains("""
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escapedTitle) · RouteTiles</title>
            <link rel="stylesheet" href="https://cdn.example/maplibre/maplibre-gl.css">
            """), "\(root)")
        #expect(root.contains("<h1>\(escapedTitle)</h1>"))
        #expect(root.contains(#"<script src="https://cdn.example/maplibre/maplibre-gl.js"></script>"#))
        #expect(root.contains(#""basemap":"https://b.example/s?x=\u003c/script>","live":true"#))
        #expect(!root.contains("<base "))
        #expect(root.components(separatedBy: "{{").count == 4, "the title's braces alone: in <title>, <h1>, the config")

        let mounted = ViewerPage.html(mapLibreURL: "/assets", title: "t", basemap: nil, live: false,
                                      baseHref: "/tiles/")
        #expect(mounted.contains("""
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <base href="/tiles/">
            <title>t · RouteTiles</title>
            <link rel="stylesheet" href="/assets/maplibre-gl.css">
            """), "\(mounted)")
        #expect(mounted.contains(#"id="routetiles-config">{"basemap":null,"live":false,"title":"t"}</script>"#))
        #expect(!mounted.contains("{{") && mounted.hasSuffix("<script src=\"viewer.js\"></script>\n</body>\n</html>\n"))
    }

    @Test func aTemplateLeavesASlotWithoutAValueAsWritten() {
        let template = PageTemplate("a {{x}} b {{y}} c {{ unclosed")
        #expect(template.slots == ["x", "y"])
        #expect(template.filled(["x": "{{y}}"]) == "a {{y}} b {{y}} c {{ unclosed")
    }
}
