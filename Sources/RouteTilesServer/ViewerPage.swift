/// The page at `/`: MapLibre GL JS showing the routes with the server's style, fitted to their bounds; clicking a
/// route shows its properties. The map is kept in `window.map` so tools and tests can ask it what it rendered.
enum ViewerPage {
    static func html(mapLibreURL: String, title: String) -> String {
        var base = mapLibreURL
        while base.hasSuffix("/") { base.removeLast() }
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) · RouteTiles</title>
        <link rel="stylesheet" href="\(escape(base))/maplibre-gl.css">
        <script src="\(escape(base))/maplibre-gl.js"></script>
        <style>
          html, body, #map { margin: 0; height: 100%; }
          .props { font: 12px/1.4 system-ui, sans-serif; border-collapse: collapse; }
          .props td { padding: 1px 6px; border-bottom: 1px solid #e2e8f0; vertical-align: top; }
          .props td:first-child { color: #475569; }
        </style>
        </head>
        <body>
        <div id="map"></div>
        <script>
          (async function () {
            const tilejson = await (await fetch('tiles.json')).json();
            const map = new maplibregl.Map({ container: 'map', style: 'style.json', attributionControl: false });
            window.map = map;
            window.tileErrors = [];
            map.on('error', (e) => { window.tileErrors.push(String((e && e.error && e.error.message) || e)); });
            map.addControl(new maplibregl.NavigationControl());
            const b = tilejson.bounds;
            if (b && b.length === 4 && b[0] <= b[2]) {
              map.fitBounds([[b[0], b[1]], [b[2], b[3]]], { padding: 40, animate: false, maxZoom: tilejson.maxzoom });
            }
            const clickable = () => map.getStyle().layers.filter((l) => l.id.endsWith('-line') || l.id.endsWith('-points')).map((l) => l.id);
            map.on('click', (e) => {
              const features = map.queryRenderedFeatures(e.point, { layers: clickable() });
              if (!features.length) return;
              const table = document.createElement('table');
              table.className = 'props';
              const f = features[0];
              const rows = [['layer', f.sourceLayer], ['id', f.id]].concat(Object.entries(f.properties));
              for (const [k, v] of rows) {
                const tr = table.insertRow();
                tr.insertCell().textContent = k;
                tr.insertCell().textContent = String(v);
              }
              new maplibregl.Popup().setLngLat(e.lngLat).setDOMContent(table).addTo(map);
            });
            map.on('mouseenter', 'routes-line', () => { map.getCanvas().style.cursor = 'pointer'; });
            map.on('mouseleave', 'routes-line', () => { map.getCanvas().style.cursor = ''; });
          })();
        </script>
        </body>
        </html>

        """
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
