import Foundation
import RouteTiles

/// A MapLibre style for the routes, made from `RouteLook` as the raster tiles are: for each line layer a casing (a
/// darker, wider line) under the coloured line, the colour from a route's `color` property when it has one, widths
/// interpolated by zoom, merged lines coloured by `count`; the `density` layer as a heatmap, hidden
/// until shown; point layers (the `maneuvers` of directions, the `waypoints` of GPX) as circles. A feature whose `feature-state` has
/// `selected: true` is drawn wider with an amber casing, which is how the viewer highlights the route chosen in its
/// list. The `background` layer is the only one that is not the routes': a page that puts the routes over a basemap
/// leaves it out.
enum StyleDocument {
    static let look = RouteLook.standard
    static let defaultColor = look.lineColor.hex
    static let casingColor = look.casingColor.hex
    static let selectedCasingColor = look.selectedCasingColor.hex
    static let pointLayers = look.pointLayers

    /// The image the heading marker of the position layer draws (`headingLayer`): clients add it themselves
    /// (`map.addImage`, as the viewer does on `styleimagemissing`), since the style has no sprite.
    static let headingImage = "routetiles-heading"

    /// - Parameter tileQuery: for a reader of private tiles, the signed URL parameters: the source then names the
    ///   signed tile URLs itself, since the client fetches `tiles.json` without a credential.
    static func make(metadata: TilesetMetadata, baseURL: String, positionLayer: String? = nil,
                     tileQuery: String? = nil) -> JSONLiteral {
        var layers: [JSONLiteral] = [
            ["id": "background", "type": "background", "paint": ["background-color": .string(look.background.hex)]],
        ]
        for layer in metadata.layers {
            if layer.id == positionLayer {
                layers += positionLayers(layer.id)
                continue
            }
            if layer.id == DensityGrid.layerName {
                layers.append(heatLayer(layer, tilesetMaxZoom: metadata.maxZoom))
                continue
            }
            if pointLayers.contains(layer.id) {
                layers.append([
                    "id": "\(layer.id)-points", "type": "circle", "source": "routes", "source-layer": .string(layer.id),
                    "minzoom": number(look.pointMinZoom),
                    "paint": ["circle-radius": interpolate(look.pointRadius),
                              "circle-color": .string(look.pointFill.hex), "circle-stroke-color": .string(casingColor),
                              "circle-stroke-width": number(look.pointStrokeWidth)],
                ])
                continue
            }
            let colour: JSONLiteral = ["coalesce", ["to-color", ["get", "color"], countColor], countColor]
            layers.append([
                "id": "\(layer.id)-casing", "type": "line", "source": "routes", "source-layer": .string(layer.id),
                "layout": ["line-join": "round", "line-cap": "round"],
                "paint": ["line-color": ["case", selected, .string(selectedCasingColor), .string(casingColor)],
                          "line-opacity": ["case", selected, number(look.selectedCasingColor.alpha), number(look.casingColor.alpha)],
                          "line-width": widths(look.casingWidth, selectedBy: look.selectedCasingFactor)],
            ])
            layers.append([
                "id": "\(layer.id)-line", "type": "line", "source": "routes", "source-layer": .string(layer.id),
                "layout": ["line-join": "round", "line-cap": "round"],
                "paint": ["line-color": colour, "line-width": widths(look.lineWidth, selectedBy: look.selectedLineFactor)],
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
                "paint": ["circle-radius": interpolate(look.positionRadius),
                          "circle-color": ["case", selected, .string(selectedCasingColor), .string(casingColor)],
                          "circle-stroke-color": .string(look.positionRing.hex),
                          "circle-stroke-width": number(look.positionRingWidth)],
            ],
            [
                "id": "\(id)-heading", "type": "symbol", "source": "routes", "source-layer": .string(id),
                "minzoom": number(look.headingMinZoom),
                "filter": ["has", "bearing"],
                "layout": ["icon-image": .string(headingImage), "icon-rotate": ["get", "bearing"],
                           "icon-rotation-alignment": "map", "icon-allow-overlap": true, "icon-ignore-placement": true,
                           "icon-size": interpolate(look.headingSize)],
            ],
        ]
    }

    /// The `density` layer as a heatmap, hidden until a client shows it (the viewer's heat toggle sets its
    /// `visibility`): each cell weighs by the logarithm of its count, so that a port and a lone track both show.
    private static func heatLayer(_ layer: VectorLayerInfo, tilesetMaxZoom: Int) -> JSONLiteral {
        let deepest = min(layer.maxZoom ?? tilesetMaxZoom, tilesetMaxZoom)
        return [
            "id": "\(layer.id)-heat", "type": "heatmap", "source": "routes", "source-layer": .string(layer.id),
            "maxzoom": .integer(deepest + 1),
            "layout": ["visibility": "none"],
            "paint": [
                "heatmap-weight": ["min", 1, ["/", ["ln", ["+", 1, ["get", "count"]]], 8]],
                "heatmap-radius": ["interpolate", ["linear"], ["zoom"], 0, 6, .integer(deepest + 1), 16],
                "heatmap-intensity": ["interpolate", ["linear"], ["zoom"], 0, 1, .integer(deepest + 1), 2],
                "heatmap-opacity": 0.8,
            ],
        ]
    }

    /// The colour of a line by its `count` (on the merged lines of a tile fitted to its byte budget; 1 elsewhere):
    /// `RouteLook.countColor` as an expression, the line colour at 1.
    static var countColor: JSONLiteral {
        ["interpolate", ["linear"], ["log2", ["max", 1, ["coalesce", ["get", "count"], 1]]],
         0, ["to-color", .string(defaultColor)], number(log2(look.busiestCount)), ["to-color", .string(look.busiestColor.hex)]]
    }

    /// `["boolean", ["feature-state", "selected"], false]`.
    private static var selected: JSONLiteral { ["boolean", ["feature-state", "selected"], false] }

    /// `["interpolate", ["exponential", base], ["zoom"], z1, w1, …]`, each width `factor` times wider for a
    /// selected feature.
    private static func widths(_ stops: ZoomStops, selectedBy factor: Double) -> JSONLiteral {
        var expression: [JSONLiteral] = ["interpolate", ["exponential", number(stops.base)], ["zoom"]]
        for stop in stops.stops {
            expression.append(number(stop.zoom))
            expression.append(["case", selected, .number((stop.value * factor * 10).rounded() / 10), .number(stop.value)])
        }
        return .array(expression)
    }

    /// `["interpolate", ["linear"], ["zoom"], z1, v1, …]` (or exponential, for stops with a base other than 1).
    private static func interpolate(_ stops: ZoomStops) -> JSONLiteral {
        var expression: [JSONLiteral] = ["interpolate", stops.base == 1 ? ["linear"] : ["exponential", number(stops.base)], ["zoom"]]
        for stop in stops.stops {
            expression.append(number(stop.zoom))
            expression.append(number(stop.value))
        }
        return .array(expression)
    }

    /// A whole number as an integer (as the style was first written), any other as a number.
    private static func number(_ value: Double) -> JSONLiteral {
        value == value.rounded() && abs(value) < 1e15 ? .integer(Int(value)) : .number(value)
    }
}
