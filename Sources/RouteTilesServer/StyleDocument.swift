import RouteTiles

/// A MapLibre style for the routes: for each line layer a casing (a darker, wider line) under the coloured line,
/// the colour from a route's `color` property when it has one, widths interpolated by zoom; point layers (such as
/// `maneuvers`) as circles.
enum StyleDocument {
    static let defaultColor = "#2563eb"
    static let casingColor = "#0f172a"

    static func make(metadata: TilesetMetadata, baseURL: String) -> [String: Any] {
        var layers: [[String: Any]] = [
            ["id": "background", "type": "background", "paint": ["background-color": "#f8fafc"]],
        ]
        for layer in metadata.layers {
            if layer.id == "maneuvers" {
                layers.append([
                    "id": "\(layer.id)-points", "type": "circle", "source": "routes", "source-layer": layer.id,
                    "minzoom": 12,
                    "paint": ["circle-radius": ["interpolate", ["linear"], ["zoom"], 12, 2, 18, 7],
                              "circle-color": "#ffffff", "circle-stroke-color": casingColor, "circle-stroke-width": 1.5],
                ])
                continue
            }
            let colour: [Any] = ["coalesce", ["to-color", ["get", "color"], defaultColor], defaultColor]
            layers.append([
                "id": "\(layer.id)-casing", "type": "line", "source": "routes", "source-layer": layer.id,
                "layout": ["line-join": "round", "line-cap": "round"],
                "paint": ["line-color": casingColor, "line-opacity": 0.85,
                          "line-width": widths([(4, 2.5), (10, 5), (14, 9), (18, 22)])],
            ])
            layers.append([
                "id": "\(layer.id)-line", "type": "line", "source": "routes", "source-layer": layer.id,
                "layout": ["line-join": "round", "line-cap": "round"],
                "paint": ["line-color": colour, "line-width": widths([(4, 1.2), (10, 3), (14, 6), (18, 16)])],
            ])
        }
        return [
            "version": 8,
            "name": metadata.name.isEmpty ? "routes" : metadata.name,
            "center": Array(metadata.center.prefix(2)),
            "zoom": metadata.center.count > 2 ? metadata.center[2] : Double(metadata.minZoom),
            "sources": ["routes": ["type": "vector", "url": baseURL + "/tiles.json"]],
            "layers": layers,
        ]
    }

    /// `["interpolate", ["exponential", 1.5], ["zoom"], z1, w1, …]`.
    private static func widths(_ stops: [(Int, Double)]) -> [Any] {
        var expression: [Any] = ["interpolate", ["exponential", 1.5], ["zoom"]]
        for (zoom, width) in stops {
            expression.append(zoom)
            expression.append(width)
        }
        return expression
    }
}
