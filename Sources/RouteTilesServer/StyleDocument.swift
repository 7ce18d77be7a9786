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

    /// The image the heading marker of the position layer draws (`headingLayer`): clients add it themselves
    /// (`map.addImage`, as the viewer does on `styleimagemissing`), since the style has no sprite.
    static let headingImage = "routetiles-heading"

    /// - Parameter tileQuery: for a reader of private tiles, the signed URL parameters: the source then names the
    ///   signed tile URLs itself, since the client fetches `tiles.json` without a credential.
    static func make(metadata: TilesetMetadata, baseURL: String, positionLayer: String? = nil,
                     tileQuery: String? = nil) -> JSONLiteral {
        var layers: [JSONLiteral] = [
            ["id": "background", "type": "background", "paint": ["background-color": "#f8fafc"]],
        ]
        for layer in metadata.layers {
            if layer.id == positionLayer {
                layers += positionLayers(layer.id)
                continue
            }
            if pointLayers.contains(layer.id) {
                layers.append([
                    "id": "\(layer.id)-points", "type": "circle", "source": "routes", "source-layer": .string(layer.id),
                    "minzoom": 12,
                    "paint": ["circle-radius": ["interpolate", ["linear"], ["zoom"], 12, 2, 18, 7],
                              "circle-color": "#ffffff", "circle-stroke-color": .string(casingColor), "circle-stroke-width": 1.5],
                ])
                continue
            }
            let colour: JSONLiteral = ["coalesce", ["to-color", ["get", "color"], .string(defaultColor)], .string(defaultColor)]
            layers.append([
                "id": "\(layer.id)-casing", "type": "line", "source": "routes", "source-layer": .string(layer.id),
                "layout": ["line-join": "round", "line-cap": "round"],
                "paint": ["line-color": ["case", selected, .string(selectedCasingColor), .string(casingColor)],
                          "line-opacity": ["case", selected, 1, 0.85],
                          "line-width": widths([(4, 2.5), (10, 5), (14, 9), (18, 22)], selectedBy: 2.2)],
            ])
            layers.append([
                "id": "\(layer.id)-line", "type": "line", "source": "routes", "source-layer": .string(layer.id),
                "layout": ["line-join": "round", "line-cap": "round"],
                "paint": ["line-color": colour, "line-width": widths([(4, 1.2), (10, 3), (14, 6), (18, 16)], selectedBy: 1.5)],
            ])
        }
        return [
            "version": 8,
            "name": .string(metadata.name.isEmpty ? "routes" : metadata.name),
            "center": .array(metadata.center.prefix(2).map(JSONLiteral.number)),
            "zoom": .number(metadata.center.count > 2 ? metadata.center[2] : Double(metadata.minZoom)),
            "sources": ["routes": source(metadata: metadata, baseURL: baseURL, tileQuery: tileQuery)],
            "layers": .array(layers),
        ]
    }

    /// The routes' source: `tiles.json`'s URL, or with `tileQuery` the signed tile URLs and what `tiles.json` tells.
    private static func source(metadata: TilesetMetadata, baseURL: String, tileQuery: String?) -> JSONLiteral {
        guard let tileQuery else { return ["type": "vector", "url": .string(baseURL + "/tiles.json")] }
        return [
            "type": "vector", "tiles": [.string(baseURL + "/tiles/{z}/{x}/{y}.mvt?" + tileQuery)],
            "minzoom": .number(Double(metadata.minZoom)), "maxzoom": .number(Double(metadata.maxZoom)),
            "bounds": .array(metadata.bounds.map(JSONLiteral.number)),
        ]
    }

    /// Where each live route is now: a dot at every zoom, and from zoom 10 an arrow turned to its bearing (an
    /// image the client provides, `headingImage`).
    private static func positionLayers(_ id: String) -> [JSONLiteral] {
        [
            [
                "id": "\(id)-dot", "type": "circle", "source": "routes", "source-layer": .string(id),
                "paint": ["circle-radius": ["interpolate", ["linear"], ["zoom"], 4, 3, 14, 7],
                          "circle-color": ["case", selected, .string(selectedCasingColor), .string(casingColor)],
                          "circle-stroke-color": "#ffffff", "circle-stroke-width": 2],
            ],
            [
                "id": "\(id)-heading", "type": "symbol", "source": "routes", "source-layer": .string(id), "minzoom": 10,
                "filter": ["has", "bearing"],
                "layout": ["icon-image": .string(headingImage), "icon-rotate": ["get", "bearing"],
                           "icon-rotation-alignment": "map", "icon-allow-overlap": true, "icon-ignore-placement": true,
                           "icon-size": ["interpolate", ["linear"], ["zoom"], 10, 0.6, 16, 1]],
            ],
        ]
    }

    /// `["boolean", ["feature-state", "selected"], false]`.
    private static var selected: JSONLiteral { ["boolean", ["feature-state", "selected"], false] }

    /// `["interpolate", ["exponential", 1.5], ["zoom"], z1, w1, …]`, each width `factor` times wider for a
    /// selected feature.
    private static func widths(_ stops: [(Int, Double)], selectedBy factor: Double) -> JSONLiteral {
        var expression: [JSONLiteral] = ["interpolate", ["exponential", 1.5], ["zoom"]]
        for (zoom, width) in stops {
            expression.append(.integer(zoom))
            expression.append(["case", selected, .number((width * factor * 10).rounded() / 10), .number(width)])
        }
        return .array(expression)
    }
}
