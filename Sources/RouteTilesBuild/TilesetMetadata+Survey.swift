import Foundation
@_spi(Columns) import RouteTilesGeo
@_spi(Columns) import RouteTilesModel
import RouteTilesTiling

extension TilesetMetadata {
    /// What a tileset's metadata says of its routes (the fields of each layer, the bounds, the centre), gathered
    /// route by route in input order. A build that never holds every route at once, such as one shard of a sharded
    /// build, still writes the metadata of the whole tileset by passing each route here as it is read.
    package struct Survey: Sendable {
        let options: TilingOptions
        private var fields: [String: String] = [:]
        private var otherLayers: [String: [String: String]] = [:]
        private var layerOrder: [String] = []
        private var mapBounds = MapRect.empty
        /// The east-west extent, which may cross the antimeridian: mapBounds' x would put Tokyo–San Francisco
        /// flights (139.7°E to 237.6°E) with Los Angeles–Sydney ones (−118.4°E to −208.8°E) in a box wider than
        /// the world.
        private var arc = CoveringArc()
        private var south = Double.infinity, north = -Double.infinity
        /// Some line route has times, and the options cut them in time pieces.
        private var timed = false

        package init(options: TilingOptions) {
            self.options = options
            if options.routeLength { fields["length_m"] = "Number" }
            if options.lineMetrics {
                for key in ["start_m", "end_m", "mapbox_clip_start", "mapbox_clip_end"] { fields[key] = "Number" }
            }
        }

        /// Adds every route of `set`.
        package mutating func add(_ set: ProjectedRouteSet) {
            for route in set.routeInfos {
                addFields(of: route.properties, layer: set.layers[route.layer], isPoint: route.isPoint,
                          hasTimes: route.hasTimes)
            }
            mapBounds.formUnion(set.bounds)
            if set.lineCount == 1 {
                arc.add(minX: set.bounds.minX, maxX: set.bounds.maxX)
            } else {
                for line in 0..<set.lineCount {
                    var minX = Double.infinity, maxX = -Double.infinity
                    for i in set.lineStarts[line]..<set.lineStarts[line + 1] {
                        minX = min(minX, set.xs[i])
                        maxX = max(maxX, set.xs[i])
                    }
                    arc.add(minX: minX, maxX: maxX)
                }
            }
            if let b = set.geographicBounds {
                south = min(south, b.south)
                north = max(north, b.north)
            }
        }

        /// Adds one route drawn as `lines` (see `ProjectedRouteSet.drawnLines`); a route without lines adds nothing,
        /// as it adds nothing to a route set. `eachPosition` gets every position projected, for a caller that needs
        /// the map points too and should not project them again.
        package mutating func add(_ route: Route, lines: [[Coordinate]], eachPosition: (MapPoint) -> Void = { _ in }) {
            guard !lines.isEmpty else { return }
            addFields(of: route.properties, layer: route.layer, isPoint: route.kind == .point,
                      hasTimes: route.times != nil && route.timeProblem() == nil)
            for line in lines {
                var minX = Double.infinity, maxX = -Double.infinity
                for c in line {
                    let p = WebMercator.project(c)
                    eachPosition(p)
                    mapBounds.formUnion(p)
                    minX = min(minX, p.x)
                    maxX = max(maxX, p.x)
                    south = min(south, c.latitude)
                    north = max(north, c.latitude)
                }
                arc.add(minX: minX, maxX: maxX)
            }
        }

        private mutating func addFields(of properties: [Property], layer: String?, isPoint: Bool, hasTimes: Bool) {
            let name = layer ?? options.layerName
            var layerFields = name == options.layerName ? fields : otherLayers[name] ?? [:]
            if name != options.layerName, otherLayers[name] == nil {
                layerOrder.append(name)
                if !isPoint && options.routeLength { layerFields["length_m"] = "Number" }
            }
            for property in properties where !RouteTiler.reservedKeys.contains(property.key) {
                let type = property.value.fieldType
                if let known = layerFields[property.key], known != type {
                    layerFields[property.key] = "Mixed"
                } else {
                    layerFields[property.key] = type
                }
            }
            if hasTimes, !isPoint, options.timePieces {
                layerFields["start_t"] = "Number"
                layerFields["end_t"] = "Number"
                if options.speedClasses != nil { layerFields["speed"] = "Number" }
                timed = true
            }
            if name == options.layerName { fields = layerFields } else { otherLayers[name] = layerFields }
        }

        /// The metadata of the routes added, named `name`.
        ///
        /// The bounds never wrap (TileJSON 3.0.0, 3.5: bounds "MUST NOT 'wrap' around the ante-meridian"): routes
        /// whose shortest extent crosses ±180° get west −180 and east 180. The centre is the middle of that shortest
        /// extent (in the Pacific for transpacific routes), at the zoom where the extent spans about one tile.
        package func metadata(name: String) -> TilesetMetadata {
            let world = WebMercator.worldSize
            let extent = arc.arc
            var b = ProjectedRouteSet.geographicBounds(of: mapBounds, south: south, north: north)
                ?? WebMercator.worldBounds
            if let extent {
                let crosses = extent.east > world
                b.west = crosses ? -180 : WebMercator.unproject(MapPoint(x: extent.west, y: 0)).longitude
                b.east = crosses ? 180 : WebMercator.unproject(MapPoint(x: extent.east, y: 0)).longitude
            }
            let bounds = b.array.map { ($0 * 1e6).rounded() / 1e6 }
            // The zoom at which the routes' extent spans about one tile, within the tileset's zooms.
            let span = max(extent.map { $0.east - $0.west } ?? 0, mapBounds.maxY - mapBounds.minY)
            let fit = span > 0 ? Int(log2(world / span).rounded(.down)) : options.maxZoom
            let zoom = min(max(fit, options.minZoom), options.maxZoom)
            let centre: [Double]
            if let extent, !mapBounds.isEmpty {
                let mid = WebMercator.unproject(MapPoint(x: (extent.west + extent.east) / 2,
                                                         y: (mapBounds.minY + mapBounds.maxY) / 2))
                var lon = mid.longitude.truncatingRemainder(dividingBy: 360)
                if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
                centre = [(lon * 1e6).rounded() / 1e6, (mid.latitude * 1e6).rounded() / 1e6, Double(zoom)]
            } else {
                centre = [0, 0, Double(zoom)]
            }
            var layers = [VectorLayerInfo(id: options.layerName, fields: fields)]
                + layerOrder.map { VectorLayerInfo(id: $0, fields: otherLayers[$0] ?? [:]) }
            if let zoom = options.densityMaxZoom, zoom >= options.minZoom, !mapBounds.isEmpty,
               !layers.contains(where: { $0.id == DensityGrid.layerName }) {
                layers.append(VectorLayerInfo(id: DensityGrid.layerName, fields: ["count": "Number"],
                                              maxZoom: zoom < options.maxZoom ? zoom : nil))
            }
            if let name = options.positionLayer {
                if let index = layers.firstIndex(where: { $0.id == name }) {
                    layers[index].fields.merge(LivePosition.fields) { own, _ in own }
                } else {
                    layers.append(VectorLayerInfo(id: name, fields: LivePosition.fields))
                }
            }
            var metadata = TilesetMetadata(name: name, layers: layers, minZoom: options.minZoom,
                                           maxZoom: options.maxZoom, bounds: bounds, center: centre)
            if timed { metadata.timePieces = TimePieces.table(minZoom: options.minZoom, maxZoom: options.maxZoom) }
            if options.maxTileBytes > 0 { metadata.tileBudget = TileBudgetReport(maxBytes: options.maxTileBytes) }
            return metadata
        }
    }
}
