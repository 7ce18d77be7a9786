import RouteTiles

/// A MapLibre style for the routes: for each line layer a casing (a darker, wider line) under the coloured line,
/// the colour from a route's `color` property when it has one, widths interpolated by zoom; point layers (the
/// `maneuvers` of directions, the `waypoints` of GPX) as circles. A feature whose `feature-state` has
/// `selected: true` is drawn wider with an amber casing, which is how the viewer highlights the route chosen in its
/// list. The `background` layer is the only one that is not the routes': a page that puts the routes over a basemap
/// leaves it out.
enum StyleDocument {
    static let defaultColor = "#2563eb"
    static let casingColor = "#0f172a"
    static let selectedCasingColor = "#f59e0b"
    static let pointLayers: Set<String> = [DirectionsReader.maneuversLayer, GPXReader.waypointsLayer]

    static func make(metadata: TilesetMetadata, baseURL: String) -> [String: Any] {
        var layers: [[String: Any]] = [
            ["id": "background", "type": "background", "paint": ["background-color": "#f8fafc"]],
        ]
        for layer in metadata.layers {
            if pointLayers.contains(layer.id) {
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
                "paint": ["line-color": ["case", selected, selectedCasingColor, casingColor] as [Any],
                          "line-opacity": ["case", selected, 1, 0.85] as [Any],
                          "line-width": widths([(4, 2.5), (10, 5), (14, 9), (18, 22)], selectedBy: 2.2)],
            ])
            layers.append([
                "id": "\(layer.id)-line", "type": "line", "source": "routes", "source-layer": layer.id,
                "layout": ["line-join": "round", "line-cap": "round"],
                "paint": ["line-color": colour, "line-width": widths([(4, 1.2), (10, 3), (14, 6), (18, 16)], selectedBy: 1.5)],
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

    /// `["boolean", ["feature-state", "selected"], false]`.
    private static var selected: [Any] { ["boolean", ["feature-state", "selected"], false] }

    /// `["interpolate", ["exponential", 1.5], ["zoom"], z1, w1, …]`, each width `factor` times wider for a
    /// selected feature.
    private static func widths(_ stops: [(Int, Double)], selectedBy factor: Double) -> [Any] {
        var expression: [Any] = ["interpolate", ["exponential", 1.5], ["zoom"]]
        for (zoom, width) in stops {
            expression.append(zoom)
            expression.append(["case", selected, (width * factor * 10).rounded() / 10, width] as [Any])
        }
        return expression
    }
}
