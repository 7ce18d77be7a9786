import Foundation

/// The page at `/`: the routes over a basemap in MapLibre GL JS, a list of the routes, live updates from
/// `/events`, and playback along a route. The markup is `Viewer/index.html`, whose slots this fills; the behaviour
/// is `/viewer.js` and the look `/viewer.css` (`ViewerFiles`).
///
/// What the page needs from the server arrives in a JSON block (`#routetiles-config`): the basemap's style URL (or
/// null) and whether the routes can change (the list, `/events` and playback need a live server).
enum ViewerPage {
    /// - Parameter baseHref: the page's base path when the endpoints are mounted under a prefix (`<base href>`), so
    ///   that the relative URLs of the page and its script (`viewer.js`, `tiles.json`, `routes`, `events`) resolve
    ///   under it whether the page was asked for with a trailing slash or not.
    static func html(mapLibreURL: String, title: String, basemap: String?, live: Bool, baseHref: String? = nil) -> String {
        var base = mapLibreURL
        while base.hasSuffix("/") { base.removeLast() }
        let config = Config(title: title, basemap: basemap, live: live)
        let json = (try? JSONBody.bytes(config)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return ViewerFiles.page.filled([
            "base": baseHref.map { "<base href=\"\(escape($0))\">\n" } ?? "",
            "title": escape(title),
            "maplibre": escape(base),
            "config": scriptSafe(json),
        ])
    }

    /// The page's `#routetiles-config`: the title, the basemap's style URL (null for none) and whether the routes
    /// can change.
    struct Config: Encodable {
        var title: String
        var basemap: String?
        var live: Bool

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            try container.encode(basemap, forKey: .basemap)  // null, not absent: the script tests for null
            try container.encode(live, forKey: .live)
        }

        enum CodingKeys: String, CodingKey { case title, basemap, live }
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// JSON that cannot end the `<script>` element it sits in.
    static func scriptSafe(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c")
    }
}
