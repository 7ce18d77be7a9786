import Foundation

/// The page at `/`: the routes over a basemap in MapLibre GL JS, a list of the routes, live updates from
/// `/events`, and playback along a route. The markup is here; the behaviour is `/viewer.js` (`ViewerScript`) and
/// the look `/viewer.css` (`ViewerStylesheet`).
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
        let config: [String: Any] = ["title": title, "basemap": basemap.map { $0 as Any } ?? NSNull(), "live": live]
        let json = (try? JSONSerialization.data(withJSONObject: config, options: [.sortedKeys, .withoutEscapingSlashes]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(baseHref.map { "<base href=\"\(escape($0))\">\n" } ?? "")<title>\(escape(title)) · RouteTiles</title>
        <link rel="stylesheet" href="\(escape(base))/maplibre-gl.css">
        <link rel="stylesheet" href="viewer.css">
        <script src="\(escape(base))/maplibre-gl.js"></script>
        <script type="application/json" id="routetiles-config">\(scriptSafe(json))</script>
        </head>
        <body>
        <div id="app">
          <aside id="panel">
            <header>
              <h1>\(escape(title))</h1>
              <span id="status" class="status" title="updates from /events"></span>
            </header>
            <input id="filter" type="search" placeholder="Filter routes by name or id" autocomplete="off" spellcheck="false">
            <div id="count" class="count"></div>
            <div id="list" role="listbox" aria-label="Routes"><div id="list-rows"></div></div>
            <section id="details" hidden>
              <h2 id="details-name"></h2>
              <div id="details-meta" class="meta"></div>
              <div class="playback">
                <button id="play" type="button">Play</button>
                <label>Speed <select id="speed">
                  <option value="1">1×</option><option value="10">10×</option><option value="60" selected>60×</option>
                  <option value="600">600×</option><option value="3600">3600×</option>
                </select></label>
                <input id="position" type="range" min="0" max="1000" value="0" step="1" aria-label="Position along the route">
                <div id="position-label" class="meta"></div>
              </div>
              <ol id="steps"></ol>
            </section>
            <label class="toggle"><input type="checkbox" id="over-labels"> Routes over the basemap's labels</label>
            <div id="notice" class="notice" hidden></div>
          </aside>
          <div id="map"></div>
        </div>
        <script src="viewer.js"></script>
        </body>
        </html>

        """
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
