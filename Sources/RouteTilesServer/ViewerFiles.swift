/// The viewer's files (`Viewer/`: the page, its scripts and its stylesheet), as the server serves them.
///
/// They are embedded in the binary at build time (SwiftPM's `embedInCode` resource rule, `PackageResources`), not
/// copied into a resource bundle beside it: on Linux a bundle is a folder next to the executable, and a binary
/// copied without it could not find its files. So `routetiles` stays one file that needs nothing beside it.
enum ViewerFiles {
    /// The scripts, in the order they are joined into `/viewer.js`: each declares what the ones after it use, and
    /// `main.js`, last, starts the viewer.
    static let scripts: [(name: String, bytes: [UInt8])] = [
        ("format.js", PackageResources.format_js),
        ("credential.js", PackageResources.credential_js),
        ("map.js", PackageResources.map_js),
        ("timewindow.js", PackageResources.timewindow_js),
        ("playback.js", PackageResources.playback_js),
        ("list.js", PackageResources.list_js),
        ("live.js", PackageResources.live_js),
        ("main.js", PackageResources.main_js),
    ]

    /// `/viewer.js`: the scripts joined in one function, so that what they declare stays out of `window`.
    static let script: [UInt8] = {
        var out = Array("""
            // The RouteTiles viewer: \(scripts.map(\.name).joined(separator: ", ")) of Sources/RouteTilesServer/Viewer.
            (function () {
            'use strict';

            """.utf8)
        for file in scripts {
            out += Array("\n// \(file.name)\n\n".utf8)
            out += file.bytes
        }
        out += Array("\n})();\n".utf8)
        return out
    }()

    /// `/viewer.css`.
    static let stylesheet: [UInt8] = PackageResources.viewer_css

    /// The page at `/`, with its slots (`ViewerPage`).
    static let page = PageTemplate(String(decoding: PackageResources.index_html, as: UTF8.self))
}
