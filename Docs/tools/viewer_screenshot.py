"""Data and browser steps for Docs/viewer.png (driven by viewer_screenshot.sh, which says where everything comes
from and runs the servers).

    viewer_screenshot.py prepare OSM_PBF FONT_DIR OUT_DIR
        From a small OpenStreetMap extract (read with GDAL's ogr2ogr), writes into OUT_DIR:
          basemap.geojson               streets, paths, railways and waterways as lines, each with its
                                        "class" (and "name"): the data of the basemap's `routetiles serve`
          basemap-assets/areas.geojson  water, parks and buildings as polygons, and points for their labels
          basemap-assets/fonts/NAME/0-255.pbf   SDF glyphs (Latin-1) of the fonts in FONT_DIR, for the labels
          helsinki-routes.geojson       a few routes along the streets, with name, color and duration_s
    viewer_screenshot.py style OUT_DIR BASEMAP_URL
        Writes OUT_DIR/basemap-assets/style.json, a light (Positron-like) MapLibre style over the basemap server.
    viewer_screenshot.py shoot VIEWER_URL ROUTE_ID PNG
        Opens the viewer in headless Chromium, selects ROUTE_ID, seeks its playback to 0.4 and saves PNG.

Only the standard library, numpy, Pillow and selenium are used (all there after the project's setup).
"""
import heapq
import json
import math
import os
import subprocess
import sys
import tempfile
import time

# MARK: Reading the extract


def read_osm(pbf, layer):
    """The features of one layer of the OSM driver (points, lines, multipolygons, ...) as GeoJSON features."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, layer + ".geojson")
        # Areas that the extract cut open (rings not closed) are left out, without a warning for each.
        subprocess.run(["ogr2ogr", "-q", "-f", "GeoJSON", path, pbf, layer], check=True,
                       env=dict(os.environ, OGR_GEOMETRY_ACCEPT_UNCLOSED_RING="NO", CPL_LOG="/dev/null"))
        with open(path, encoding="utf-8") as f:
            return json.load(f)["features"]


def other_tags(properties):
    """The hstore text of ogr2ogr's other_tags ("a"=>"b","c"=>"d") as a dict."""
    text = properties.get("other_tags") or ""
    tags = {}
    for pair in text[1:-1].split('","'):
        if '"=>"' in pair:
            key, value = pair.split('"=>"', 1)
            tags[key] = value
    return tags


# Street classes of the basemap, from OSM's highway=* (anything else is left out).
HIGHWAY_CLASS = {
    "motorway": "primary", "trunk": "primary", "primary": "primary", "motorway_link": "primary",
    "trunk_link": "primary", "primary_link": "primary",
    "secondary": "secondary", "secondary_link": "secondary",
    "tertiary": "tertiary", "tertiary_link": "tertiary",
    "residential": "minor", "unclassified": "minor", "living_street": "minor", "road": "minor",
    "service": "service",
    "pedestrian": "path", "footway": "path", "path": "path", "cycleway": "path", "steps": "path",
    "track": "path", "bridleway": "path", "trail": "path",
}


def line_class(properties, tags):
    """The basemap class of an OSM line, or None for what the basemap does not draw (tunnels, indoor ways, ...)."""
    if tags.get("tunnel") in ("yes", "building_passage") or tags.get("indoor") == "yes":
        return None
    if properties.get("highway") in HIGHWAY_CLASS:
        return HIGHWAY_CLASS[properties["highway"]]
    if properties.get("railway") in ("rail", "light_rail", "narrow_gauge"):
        return "rail"
    if properties.get("railway") == "tram":
        return "tram"
    if properties.get("waterway") in ("river", "stream", "canal", "drain", "ditch"):
        return "waterway"
    return None


GREEN = {("leisure", "park"), ("leisure", "garden"), ("leisure", "playground"), ("leisure", "pitch"),
         ("landuse", "grass"), ("landuse", "forest"), ("landuse", "recreation_ground"), ("landuse", "cemetery"),
         ("natural", "wood"), ("natural", "scrub"), ("natural", "heath")}


def area_class(properties, tags):
    """The class of an OSM area drawn as a filled polygon: water, park or building (else None)."""
    if (properties.get("natural") == "water" or properties.get("landuse") in ("basin", "reservoir", "pond")
            or tags.get("water")):
        return "water"
    if any(properties.get(key) == value for key, value in GREEN):
        return "park"
    if properties.get("building"):
        return "building"
    return None


# MARK: Basemap data


def basemap_lines(lines):
    """The lines of the basemap: [{"type": "Feature", "properties": {"class", "name"?}, "geometry"}]. (The
    coastlines become the water's polygons instead, in basemap_areas.)"""
    features = []
    for f in lines:
        p = f["properties"]
        cls = line_class(p, other_tags(p))
        if cls is None or not f.get("geometry"):
            continue
        properties = {"class": cls}
        if p.get("name"):
            properties["name"] = p["name"]
        features.append({"type": "Feature", "properties": properties, "geometry": f["geometry"]})
    return features


def polygon_centroid(ring):
    """Area-weighted centroid of a ring (lon/lat taken as planar, fine at this scale), and its area."""
    area = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(ring, ring[1:]):
        cross = x0 * y1 - x1 * y0
        area += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    if abs(area) < 1e-15:
        return ring[0], 0.0
    return [cx / (3 * area), cy / (3 * area)], abs(area) / 2


def basemap_areas(polygons, lines):
    """Water, parks and buildings as polygons; the sea closed from the coastlines; label points of named water
    and parks (the largest few)."""
    features = []
    labels = []
    for f in polygons:
        p = f["properties"]
        cls = area_class(p, other_tags(p))
        g = f.get("geometry")
        if cls is None or not g or g["type"] not in ("Polygon", "MultiPolygon"):
            continue
        features.append({"type": "Feature", "properties": {"class": cls}, "geometry": g})
        if p.get("name") and cls in ("water", "park"):
            outer = g["coordinates"][0] if g["type"] == "Polygon" else max(
                (poly[0] for poly in g["coordinates"]), key=lambda r: polygon_centroid(r)[1])
            centre, area = polygon_centroid(outer)
            labels.append((area, {"type": "Feature", "properties": {"class": cls, "name": p["name"]},
                                  "geometry": {"type": "Point", "coordinates": centre}}))
    # The sea: the extract's coastline ways each start and end at its eastern edge (the water on their right), so
    # each one closed by a straight line along that edge outlines a piece of the bay.
    for f in lines:
        if other_tags(f["properties"]).get("natural") == "coastline" and f.get("geometry"):
            ring = f["geometry"]["coordinates"]
            features.append({"type": "Feature", "properties": {"class": "water"},
                             "geometry": {"type": "Polygon", "coordinates": [ring + [ring[0]]]}})
    labels.sort(key=lambda item: -item[0])
    features += [feature for _, feature in labels[:8]]
    return features


# MARK: Routes along the streets

# Per travel mode: the cost of a metre on each OSM highway=* value (missing: not allowed), whether one-way streets
# count, and the speed in metres per second (for duration_s).
MODES = {
    "run": {"costs": {"path": 0.7, "footway": 0.75, "cycleway": 0.8, "pedestrian": 0.85, "track": 0.8,
                      "trail": 0.8, "living_street": 1.0, "residential": 1.0, "unclassified": 1.0, "service": 1.2,
                      "tertiary": 1.3, "secondary": 1.6, "primary": 2.0, "steps": 3.0},
            "oneway": False, "speed": 1000 / 330.0},
    "walk": {"costs": {"pedestrian": 0.7, "footway": 0.8, "path": 0.9, "living_street": 0.9, "residential": 1.0,
                       "unclassified": 1.0, "service": 1.1, "cycleway": 1.3, "tertiary": 1.1, "secondary": 1.2,
                       "primary": 1.4, "steps": 1.2, "track": 1.0, "trail": 1.0},
             "oneway": False, "speed": 1.3},
    "bike": {"costs": {"cycleway": 0.6, "residential": 1.0, "unclassified": 1.0, "living_street": 1.1,
                       "tertiary": 1.1, "secondary": 1.3, "primary": 1.6, "service": 1.4, "path": 1.5,
                       "footway": 2.5, "pedestrian": 2.0, "track": 1.5},
             "oneway": True, "speed": 4.6},
    "drive": {"costs": {"primary": 0.8, "primary_link": 0.8, "secondary": 0.9, "secondary_link": 0.9,
                        "tertiary": 1.0, "tertiary_link": 1.0, "residential": 1.3, "unclassified": 1.3,
                        "living_street": 2.0, "service": 2.5},
              "oneway": True, "speed": 6.0},
}


def distance(a, b):
    """Metres between two lon/lat points (equirectangular: exact enough over a few hundred metres)."""
    k = math.cos(math.radians((a[1] + b[1]) / 2))
    return 6371008.8 * math.radians(math.hypot((b[0] - a[0]) * k, b[1] - a[1]))


class StreetGraph:
    """The street network of one travel mode: OSM ways split at every vertex, nodes keyed by position (ways that
    meet share a node, so they share its exact position)."""

    def __init__(self, lines, mode):
        spec = MODES[mode]
        self.edges = {}
        self.vertices = set()  # the extract's own vertices (not the ones added every 10 m)
        for f in lines:
            p = f["properties"]
            g = f.get("geometry")
            tags = other_tags(p)
            cost = spec["costs"].get(p.get("highway"))
            if cost is None or not g or g["type"] != "LineString":
                continue
            if tags.get("tunnel") == "yes" or tags.get("indoor") == "yes" or tags.get("area") == "yes":
                continue
            if mode in ("bike", "drive") and tags.get("access") in ("no", "private"):
                continue
            oneway = spec["oneway"] and (tags.get("oneway") in ("yes", "1", "-1")
                                         or tags.get("junction") == "roundabout")
            if mode == "bike" and tags.get("oneway:bicycle") == "no":
                oneway = False
            points = [tuple(c) for c in g["coordinates"]]
            self.vertices.update(points)
            if tags.get("oneway") == "-1":
                points.reverse()
            # Long straight segments get intermediate nodes every 10 m or so, so that a waypoint snaps to a node
            # near it rather than to the far end of a segment.
            dense = [points[0]]
            for a, b in zip(points, points[1:]):
                pieces = max(1, int(distance(a, b) // 10))
                dense += [(a[0] + (b[0] - a[0]) * i / pieces, a[1] + (b[1] - a[1]) * i / pieces)
                          for i in range(1, pieces)] + [b]
            points = dense
            for a, b in zip(points, points[1:]):
                weight = distance(a, b) * cost
                self.edges.setdefault(a, []).append((b, weight))
                if not oneway:
                    self.edges.setdefault(b, []).append((a, weight))

        # Waypoints snap to the largest strongly connected piece of the network (where every node reaches every
        # other one, one-way streets included), not to a footway the extract cut off or a one-way street out of it.
        self.main = max(self.strongly_connected(), key=len)

    def strongly_connected(self):
        """The strongly connected components (Kosaraju's algorithm, iterative): a list of sets of nodes."""
        forward, backward = {}, {}
        for a, targets in self.edges.items():
            for b, _ in targets:
                forward.setdefault(a, []).append(b)
                backward.setdefault(b, []).append(a)
        nodes = set(forward) | set(backward)
        order, seen = [], set()
        for root in nodes:
            if root in seen:
                continue
            seen.add(root)
            stack = [(root, iter(forward.get(root, ())))]
            while stack:
                node, children = stack[-1]
                for child in children:
                    if child not in seen:
                        seen.add(child)
                        stack.append((child, iter(forward.get(child, ()))))
                        break
                else:
                    stack.pop()
                    order.append(node)
        components, assigned = [], set()
        for root in reversed(order):
            if root in assigned:
                continue
            component, stack = {root}, [root]
            assigned.add(root)
            while stack:
                for other in backward.get(stack.pop(), ()):
                    if other not in assigned:
                        assigned.add(other)
                        component.add(other)
                        stack.append(other)
            components.append(component)
        return components

    def nearest(self, point):
        return min(self.main, key=lambda node: distance(node, point))

    def path(self, start, end):
        """The cheapest path from node start to node end (Dijkstra), as a list of nodes."""
        best = {start: 0.0}
        previous = {}
        queue = [(0.0, start)]
        while queue:
            cost, node = heapq.heappop(queue)
            if node == end:
                break
            if cost > best[node]:
                continue
            for other, weight in self.edges.get(node, ()):
                if cost + weight < best.get(other, math.inf):
                    best[other] = cost + weight
                    previous[other] = node
                    heapq.heappush(queue, (cost + weight, other))
        if end not in best:
            raise ValueError(f"no path from {start} to {end}")
        nodes = [end]
        while nodes[-1] != start:
            nodes.append(previous[nodes[-1]])
        return nodes[::-1]

    def route(self, waypoints):
        """The path through the waypoints (lon/lat, each snapped to its nearest node), in order."""
        nodes = [self.nearest(w) for w in waypoints]
        line = [nodes[0]]
        for a, b in zip(nodes, nodes[1:]):
            for node in self.path(a, b)[1:]:
                # A waypoint a little off the way makes an out-and-back spur: walking back drops it.
                if len(line) >= 2 and node == line[-2]:
                    line.pop()
                else:
                    line.append(node)
        return [list(c) for i, c in enumerate(line) if c in self.vertices or i in (0, len(line) - 1)]


# The routes of the screenshot, in central Helsinki: (id, name, colour, mode, waypoints as lon/lat). The first is
# the one the screenshot selects: a loop compact enough that its fitted view stays inside the extract.
ROUTES = [
    ("kaisaniemi-run", "Morning run · Kaisaniemi park", "#e11d48", "run",
     [(24.9432, 60.1722), (24.9420, 60.1745), (24.9413, 60.1762), (24.9440, 60.1764), (24.9470, 60.1761),
      (24.9495, 60.1755), (24.9497, 60.1747), (24.9480, 60.1740), (24.9450, 60.1739), (24.9438, 60.1731),
      (24.9439, 60.1722), (24.9432, 60.1722)]),
    ("hakaniemi-bike", "Bike commute · Hakaniemi → Kamppi", "#2563eb", "bike",
     [(24.9512, 60.1786), (24.9504, 60.1758), (24.9480, 60.1725), (24.9465, 60.1715),
      (24.9395, 60.1703), (24.9360, 60.1690)]),
    ("esplanadi-van", "Delivery van · Esplanadi stops", "#d97706", "drive",
     [(24.9370, 60.1650), (24.9410, 60.1668), (24.9448, 60.1678), (24.9505, 60.1680), (24.9515, 60.1700),
      (24.9470, 60.1695)]),
    ("toolonlahti-walk", "City walk · Senate Square → Töölönlahti", "#16a34a", "walk",
     [(24.9515, 60.1692), (24.9470, 60.1697), (24.9435, 60.1703), (24.9405, 60.1722), (24.9395, 60.1755),
      (24.9385, 60.1775)]),
    ("esplanadi-evening", "Evening walk · Esplanadi park", "#7c3aed", "walk",
     [(24.9500, 60.1681), (24.9420, 60.1674), (24.9410, 60.1668), (24.9460, 60.1670), (24.9505, 60.1673)]),
    ("toolonlahti-dog", "Dog walk · Töölönlahti park", "#0d9488", "walk",
     [(24.9380, 60.1727), (24.9372, 60.1745), (24.9365, 60.1765), (24.9385, 60.1768), (24.9392, 60.1745),
      (24.9380, 60.1727)]),
    ("kamppi-lunch", "Lunch walk · Kamppi → Erottaja", "#0891b2", "walk",
     [(24.9365, 60.1690), (24.9395, 60.1675), (24.9425, 60.1662), (24.9445, 60.1668)]),
    ("bulevardi-bike", "Bike · Bulevardi → Kruununhaka", "#a16207", "bike",
     [(24.9370, 60.1650), (24.9440, 60.1668), (24.9505, 60.1700), (24.9520, 60.1745), (24.9525, 60.1760)]),
    ("mannerheimintie-jog", "Lunch jog · Mannerheimintie", "#65a30d", "run",
     [(24.9355, 60.1715), (24.9395, 60.1680), (24.9420, 60.1668), (24.9390, 60.1655), (24.9360, 60.1670)]),
]


def routes(lines):
    """ROUTES as GeoJSON features: each routed through its waypoints, with its length at its mode's speed as
    duration_s."""
    graphs = {}
    features = []
    for route_id, name, color, mode, waypoints in ROUTES:
        graph = graphs.setdefault(mode, StreetGraph(lines, mode))
        line = graph.route(waypoints)
        metres = sum(distance(a, b) for a, b in zip(line, line[1:]))
        features.append({"type": "Feature", "id": route_id,
                         "properties": {"name": name, "color": color, "mode": mode,
                                        "duration_s": round(metres / MODES[mode]["speed"])},
                         "geometry": {"type": "LineString", "coordinates": line}})
        print(f"route {route_id}: {metres:.0f} m, {len(line)} points", file=sys.stderr)
    return features


# MARK: Glyphs for the labels

SDF_SIZE, SDF_BUFFER, SDF_RADIUS, SDF_CUTOFF, OVERSAMPLE = 24, 3, 8.0, 0.25, 4


def varint(n):
    """A non-negative int as a protobuf varint."""
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, value):
    """One protobuf field: an int as a varint (the caller zigzags sint32 values), bytes or str length-delimited."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    data = value.encode() if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(data)) + data


def zigzag(n):
    """A sint32 value as protobuf encodes it."""
    return (n << 1) ^ (n >> 31)


def glyph_sdf(font, char):
    """One glyph as MapLibre reads it: the signed distance field ((width+6) x (height+6) bytes, 24 px, radius 8,
    cutoff 0.25, as TinySDF and fontnik make them) and its metrics. The glyph is drawn OVERSAMPLE times larger and
    each SDF pixel takes the distance to the nearest edge of that drawing."""
    import numpy as np
    from PIL import Image, ImageDraw

    s = OVERSAMPLE
    advance = round(font.getlength(char) / s)
    x0, y0, x1, y1 = font.getbbox(char, anchor="ls")
    if x1 <= x0 or y1 <= y0:
        return {"id": ord(char), "width": 0, "height": 0, "left": 0, "top": -27, "advance": advance, "bitmap": b""}
    left, ascent = math.floor(x0 / s), math.ceil(-y0 / s)
    width, height = math.ceil(x1 / s) - left, ascent + math.ceil(y1 / s)
    b = SDF_BUFFER
    image = Image.new("L", ((width + 2 * b) * s, (height + 2 * b) * s), 0)
    ImageDraw.Draw(image).text(((b - left) * s, (b + ascent) * s), char, font=font, fill=255, anchor="ls")
    ink = np.asarray(image) > 127
    # Edge pixels: ink next to no ink, and no ink next to ink.
    padded = np.pad(ink, 1)
    neighbours = [padded[1:-1, :-2], padded[1:-1, 2:], padded[:-2, 1:-1], padded[2:, 1:-1]]
    inner_edge = ink & ~np.logical_and.reduce(neighbours)
    outer_edge = ~ink & np.logical_or.reduce(neighbours)
    # SDF pixel centres in the large drawing.
    ys, xs = np.mgrid[0:height + 2 * b, 0:width + 2 * b]
    cx, cy = (xs + 0.5) * s - 0.5, (ys + 0.5) * s - 0.5
    inside = ink[cy.astype(int), cx.astype(int)]

    def nearest(edge):
        ey, ex = np.nonzero(edge)
        d2 = (cx.reshape(-1, 1) - ex) ** 2 + (cy.reshape(-1, 1) - ey) ** 2
        return np.sqrt(d2.min(axis=1)).reshape(cx.shape)

    # Positive outside the glyph, negative inside, in 24 px pixels (the edge lies half a pixel past either side).
    signed = np.where(inside, -(nearest(outer_edge) - 0.5), nearest(inner_edge) - 0.5) / s
    values = np.clip(np.round(255 - 255 * (signed / SDF_RADIUS + SDF_CUTOFF)), 0, 255).astype(np.uint8)
    # `top` as MapLibre reads it is the glyph's ascent above the baseline less about 27 (the glyphs it draws
    # itself with TinySDF use ascent - 27.5), which centres the text on a line label.
    return {"id": ord(char), "width": width, "height": height, "left": left, "top": ascent - 27,
            "advance": advance, "bitmap": values.tobytes()}


def write_glyphs(font_path, stack, folder):
    """FOLDER/STACK/0-255.pbf: the glyphs of Latin-1 (enough for Finnish and Swedish street names)."""
    from PIL import ImageFont

    font = ImageFont.truetype(font_path, SDF_SIZE * OVERSAMPLE)
    glyphs = b""
    for code in range(32, 256):
        if 127 <= code < 160:
            continue
        g = glyph_sdf(font, chr(code))
        message = (field(1, g["id"]) + (field(2, g["bitmap"]) if g["bitmap"] else b"") + field(3, g["width"])
                   + field(4, g["height"]) + field(5, zigzag(g["left"])) + field(6, zigzag(g["top"]))
                   + field(7, g["advance"]))
        glyphs += field(3, message)
    os.makedirs(os.path.join(folder, stack), exist_ok=True)
    with open(os.path.join(folder, stack, "0-255.pbf"), "wb") as f:
        f.write(field(1, field(1, stack) + field(2, "0-255") + glyphs))


# MARK: The style

FONTS = {"roboto-regular": "Roboto-Regular.ttf", "roboto-medium": "Roboto-Medium.ttf",
         "roboto-italic": "Roboto-Italic.ttf"}


def zoom_width(*stops):
    """A line width that grows exponentially with zoom: zoom_width((13, 0.5), (18, 20))."""
    expression = ["interpolate", ["exponential", 1.6], ["zoom"]]
    for zoom, width in stops:
        expression += [zoom, width]
    return expression


def class_width(widths, default):
    """A street width by class that grows exponentially with zoom: `widths` maps a class to its (width at z12,
    width at z18). The zoom interpolation has to be the outermost expression, so the match on the class sits in
    each of its stops."""
    def at(i):
        expression = ["match", ["get", "class"]]
        for cls, pair in widths.items():
            expression += [cls, pair[i]]
        return expression + [default[i]]
    return ["interpolate", ["exponential", 1.6], ["zoom"], 12, at(0), 18, at(1)]


def style(base):
    """A light basemap in the manner of Positron: pale land, white streets with grey casings, blue-grey water,
    muted green parks, and grey labels. `base` is the basemap server's URL."""
    def street(*classes):
        return ["in", ["get", "class"], ["literal", list(classes)]]

    major = street("primary", "secondary", "tertiary")
    layers = [
        {"id": "land", "type": "background", "paint": {"background-color": "#f2f1ee"}},
        {"id": "park", "type": "fill", "source": "areas", "filter": ["==", ["get", "class"], "park"],
         "paint": {"fill-color": "#dfe8d5"}},
        {"id": "water", "type": "fill", "source": "areas", "filter": ["==", ["get", "class"], "water"],
         "paint": {"fill-color": "#bfd3e2"}},
        {"id": "waterway", "type": "line", "source": "basemap", "source-layer": "basemap",
         "filter": ["==", ["get", "class"], "waterway"],
         "paint": {"line-color": "#bfd3e2", "line-width": zoom_width((13, 1), (18, 4))}},
        {"id": "building", "type": "fill", "source": "areas", "filter": ["==", ["get", "class"], "building"],
         "minzoom": 14, "paint": {"fill-color": "#e6e4df", "fill-outline-color": "#d6d3cc"}},
        {"id": "path", "type": "line", "source": "basemap", "source-layer": "basemap",
         "filter": ["==", ["get", "class"], "path"],
         "paint": {"line-color": "#d2cfc8", "line-width": zoom_width((14, 0.5), (18, 1.6)),
                   "line-dasharray": [3, 1.5]}},
        {"id": "street-casing", "type": "line", "source": "basemap", "source-layer": "basemap",
         "filter": street("primary", "secondary", "tertiary", "minor", "service"),
         "layout": {"line-join": "round", "line-cap": "round"},
         "paint": {"line-color": "#d9d6d0",
                   "line-width": class_width({"primary": (1.5, 30), "secondary": (1.2, 26), "tertiary": (1, 22),
                                              "minor": (0.6, 17)}, (0.3, 9))}},
        {"id": "street", "type": "line", "source": "basemap", "source-layer": "basemap",
         "filter": street("primary", "secondary", "tertiary", "minor", "service"),
         "layout": {"line-join": "round", "line-cap": "round"},
         "paint": {"line-color": ["case", major, "#ffffff", "#fbfaf8"],
                   "line-width": class_width({"primary": (1, 27), "secondary": (0.8, 23), "tertiary": (0.6, 19),
                                              "minor": (0.3, 14)}, (0.15, 7))}},
        {"id": "rail", "type": "line", "source": "basemap", "source-layer": "basemap",
         "filter": ["==", ["get", "class"], "rail"],
         "paint": {"line-color": "#cfccc5", "line-width": zoom_width((13, 0.6), (18, 2))}},
        {"id": "tram", "type": "line", "source": "basemap", "source-layer": "basemap",
         "filter": ["==", ["get", "class"], "tram"],
         "paint": {"line-color": "#c4c0b8", "line-width": zoom_width((14, 0.4), (18, 1.2))}},
        # Labels: the viewer draws the routes under the first symbol layer, as over a Positron basemap.
        {"id": "water-label", "type": "symbol", "source": "areas",
         "filter": ["all", ["==", ["get", "class"], "water"], ["has", "name"]],
         "layout": {"text-field": ["get", "name"], "text-font": ["roboto-italic"], "text-size": 13},
         "paint": {"text-color": "#6f8ba3", "text-halo-color": "rgba(255,255,255,0.6)", "text-halo-width": 1}},
        {"id": "park-label", "type": "symbol", "source": "areas",
         "filter": ["all", ["==", ["get", "class"], "park"], ["has", "name"]], "minzoom": 14,
         "layout": {"text-field": ["get", "name"], "text-font": ["roboto-italic"], "text-size": 12,
                    "text-max-width": 8},
         "paint": {"text-color": "#7c9270", "text-halo-color": "rgba(255,255,255,0.7)", "text-halo-width": 1}},
        {"id": "street-label", "type": "symbol", "source": "basemap", "source-layer": "basemap",
         "filter": ["all", street("primary", "secondary", "tertiary", "minor"), ["has", "name"]],
         "layout": {"symbol-placement": "line", "text-field": ["get", "name"],
                    "text-font": ["case", major, ["literal", ["roboto-medium"]], ["literal", ["roboto-regular"]]],
                    "text-size": ["interpolate", ["linear"], ["zoom"], 14, 10, 17, 13],
                    "text-letter-spacing": 0.02, "symbol-spacing": 320},
         "paint": {"text-color": "#77746e", "text-halo-color": "#ffffff", "text-halo-width": 1.4}},
    ]
    return {
        "version": 8, "name": "Light basemap (OpenStreetMap, central Helsinki)",
        "glyphs": base + "/assets/fonts/{fontstack}/{range}.pbf",
        "sources": {
            "basemap": {"type": "vector", "url": base + "/tiles.json",
                        "attribution": "© OpenStreetMap contributors"},
            "areas": {"type": "geojson", "data": base + "/assets/areas.geojson"},
        },
        "layers": layers,
    }


# MARK: The screenshot


def shoot(url, route_id, png):
    """Loads the viewer at 1280 x 800 (as Chromium runs in the viewer's browser tests), waits for the routes and the
    basemap, selects the route (the map fitted to it), seeks its playback to 40 %, waits for the map to be idle
    and saves the screenshot; prints the view's zoom and centre and any map errors."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    # As the viewer's browser tests run it: WebGL through SwiftShader, no GPU.
    for flag in ["--headless=new", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-sandbox",
                 "--disable-dev-shm-usage", "--window-size=1280,800", "--no-first-run", "--disable-gpu-sandbox",
                 "--hide-scrollbars", "--force-device-scale-factor=1"]:
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    js = driver.execute_script

    def wait_for(script, seconds):
        deadline = time.time() + seconds
        while not js("return " + script):
            if time.time() > deadline:
                state = js("const notice = document.getElementById('notice');"
                           "return {errors: window.routetiles && window.routetiles.errors,"
                           " notice: notice && notice.textContent};")
                raise TimeoutError(f"{script}: not true after {seconds} s; the page: {json.dumps(state)}")
            time.sleep(0.1)

    def settle():
        wait_for("(() => { const m = window.map; return m && m.isStyleLoaded() && m.loaded() && m.areTilesLoaded()"
                 " && !m.isMoving(); })()", 90)
        time.sleep(0.5)

    try:
        driver.set_page_load_timeout(60)
        # The inner size is what the page gets; make it 1280 x 800 whatever the window's frame takes.
        driver.get(url)
        inner = js("return [window.innerWidth, window.innerHeight];")
        driver.set_window_size(1280 + 1280 - inner[0], 800 + 800 - inner[1])
        wait_for("window.routetiles && window.routetiles.ready && window.routetiles.routes.length > 0", 90)
        wait_for("window.routetiles.basemapLoaded", 30)
        settle()
        js("window.routetiles.select(arguments[0], {fly: true, duration: 0});", route_id)
        settle()
        driver.execute_async_script("window.routetiles.seek(0.4).then(arguments[arguments.length - 1]);")
        settle()
        errors = js("return window.routetiles.errors;")
        if errors:
            print("map errors: " + "; ".join(errors), file=sys.stderr)
        driver.save_screenshot(png)
        print(json.dumps({"size": js("return [window.innerWidth, window.innerHeight];"),
                          "zoom": js("return window.map.getZoom();"),
                          "center": js("return window.map.getCenter().toArray();"),
                          "errors": errors}))
    finally:
        driver.quit()


def main():
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "prepare":
        pbf, font_dir, out = arguments
        lines = read_osm(pbf, "lines")
        polygons = read_osm(pbf, "multipolygons")
        assets = os.path.join(out, "basemap-assets")
        os.makedirs(assets, exist_ok=True)
        collections = {
            os.path.join(out, "basemap.geojson"): basemap_lines(lines),
            os.path.join(assets, "areas.geojson"): basemap_areas(polygons, lines),
            os.path.join(out, "helsinki-routes.geojson"): routes(lines),
        }
        for path, features in collections.items():
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"type": "FeatureCollection", "features": features}, f, ensure_ascii=False)
        for stack, name in FONTS.items():
            write_glyphs(os.path.join(font_dir, name), stack, os.path.join(assets, "fonts"))
    elif command == "style":
        out, base = arguments
        with open(os.path.join(out, "basemap-assets", "style.json"), "w", encoding="utf-8") as f:
            json.dump(style(base.rstrip("/")), f, ensure_ascii=False, indent=1)
    elif command == "shoot":
        shoot(*arguments)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
