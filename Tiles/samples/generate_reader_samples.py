#!/usr/bin/env python3
"""Regenerates the reader samples (polylines, directions responses, GPX, NDJSON); deterministic.
Run from this folder: python3 generate_reader_samples.py"""
import json
import math
import random

rng = random.Random(303)


def walk(lon, lat, n, step_m, turn=0.15):
    heading = rng.uniform(0, 2 * math.pi)
    pts = []
    for _ in range(n):
        pts.append((round(lon, 6), round(lat, 6)))
        heading += rng.gauss(0, turn)
        lat += math.sin(heading) * step_m / 111_320
        lon += math.cos(heading) * step_m / (111_320 * math.cos(math.radians(lat)))
    return pts


def encode(points, precision=5):
    """Encoded Polyline Algorithm Format; points are (lon, lat)."""
    scale = 10 ** precision
    out, plat, plon = [], 0, 0
    for lon, lat in points:
        ilat, ilon = round(lat * scale), round(lon * scale)
        for delta in (ilat - plat, ilon - plon):
            v = ~(delta << 1) if delta < 0 else delta << 1
            while v >= 0x20:
                out.append(chr((0x20 | (v & 0x1F)) + 63))
                v >>= 5
            out.append(chr(v + 63))
        plat, plon = ilat, ilon
    return ''.join(out)


def bearing(a, b):
    (lon1, lat1), (lon2, lat2) = a, b
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return round((math.degrees(math.atan2(y, x)) + 360) % 360)


def steps_of(line, count):
    cut = sorted(rng.sample(range(1, len(line) - 1), count - 1))
    bounds = [0] + cut + [len(line) - 1]
    return [(bounds[i], bounds[i + 1]) for i in range(count)]


STREETS = ['Bahnhofstrasse', 'Limmatquai', 'Seestrasse', 'Universitätstrasse', 'Rämistrasse', 'Langstrasse']
TURNS = [('turn', 'left'), ('turn', 'right'), ('turn', 'slight right'), ('continue', 'straight'), ('turn', 'sharp left')]

# Polylines: the Google documentation example, and three walks in Zurich, one with an id.
with open('zurich-walks.polyline', 'w') as f:
    f.write('google-example\t_p~iF~ps|U_ulLnnqC_mqNvxq`@\n')
    for i in range(3):
        f.write(encode(walk(8.54 + i * 0.01, 47.37, 300, 10)) + '\n')

# Google Directions API: two alternatives, one leg each.
routes = []
for r in range(2):
    line = walk(8.53, 47.36 + r * 0.002, 200, 15)
    steps = []
    for k, (a, b) in enumerate(steps_of(line, 5)):
        seg = line[a:b + 1]
        step = {'distance': {'text': '', 'value': 15 * (b - a)}, 'duration': {'text': '', 'value': 2 * (b - a)},
                'start_location': {'lat': seg[0][1], 'lng': seg[0][0]},
                'end_location': {'lat': seg[-1][1], 'lng': seg[-1][0]},
                'html_instructions': 'Head <b>east</b> on <b>%s</b>' % STREETS[k] if k == 0
                else 'Turn <b>%s</b> onto <b>%s</b>' % (TURNS[k][1], STREETS[k]),
                'polyline': {'points': encode(seg)}, 'travel_mode': 'DRIVING'}
        if k > 0:
            step['maneuver'] = 'turn-' + TURNS[k][1].replace(' ', '-') if TURNS[k][0] == 'turn' else 'straight'
        steps.append(step)
    routes.append({'summary': STREETS[r], 'overview_polyline': {'points': encode(line)},
                   'legs': [{'distance': {'text': '', 'value': 15 * 199}, 'duration': {'text': '', 'value': 398},
                             'steps': steps}],
                   'warnings': [], 'waypoint_order': []})
with open('zurich-google-directions.json', 'w') as f:
    json.dump({'geocoded_waypoints': [], 'routes': routes, 'status': 'OK'}, f, indent=1, ensure_ascii=False)

# OSRM route service, geometries=polyline6, steps=true.
line = walk(8.55, 47.38, 250, 12)
steps = []
for k, (a, b) in enumerate(steps_of(line, 6)):
    seg = line[a:b + 1]
    kind = 'depart' if k == 0 else ('arrive' if k == 5 else TURNS[k % 5][0])
    maneuver = {'location': list(seg[0]), 'bearing_before': 0 if k == 0 else bearing(line[a - 1], line[a]),
                'bearing_after': bearing(seg[0], seg[1]), 'type': kind}
    if kind not in ('depart', 'arrive'):
        maneuver['modifier'] = TURNS[k % 5][1]
    steps.append({'geometry': encode(seg, 6), 'name': STREETS[k % 6], 'mode': 'driving',
                  'distance': 12.0 * (b - a), 'duration': 1.5 * (b - a), 'weight': 1.5 * (b - a),
                  'maneuver': maneuver, 'intersections': []})
last = line[-1]
steps.append({'geometry': encode([last, last], 6), 'name': STREETS[0], 'mode': 'driving', 'distance': 0,
              'duration': 0, 'weight': 0,
              'maneuver': {'location': list(last), 'bearing_before': bearing(line[-2], last), 'bearing_after': 0,
                           'type': 'arrive'}, 'intersections': []})
osrm = {'code': 'Ok', 'routes': [{'geometry': encode(line, 6), 'distance': 12.0 * 249, 'duration': 1.5 * 249,
                                  'weight_name': 'routability', 'weight': 1.5 * 249,
                                  'legs': [{'summary': 'Seestrasse, Limmatquai', 'distance': 12.0 * 249,
                                            'duration': 1.5 * 249, 'weight': 1.5 * 249, 'steps': steps}]}],
        'waypoints': [{'name': STREETS[0], 'location': list(line[0]), 'distance': 1.2, 'hint': ''},
                      {'name': STREETS[0], 'location': list(last), 'distance': 0.8, 'hint': ''}]}
with open('zurich-osrm-route.json', 'w') as f:
    json.dump(osrm, f, indent=1, ensure_ascii=False)

# Valhalla route, units kilometres, shape at precision 6, maneuvers indexing into it.
line = walk(8.52, 47.39, 220, 14)
types = [(1, 'Drive east on %s.'), (10, 'Turn right onto %s.'), (15, 'Turn left onto %s.'),
         (9, 'Bear right onto %s.'), (4, 'You have arrived at your destination.')]
maneuvers = []
for k, (a, b) in enumerate(steps_of(line, 4)):
    code, text = types[k]
    maneuvers.append({'type': code, 'instruction': text % STREETS[k] if '%s' in text else text,
                      'street_names': [STREETS[k]], 'time': 2.0 * (b - a), 'length': 0.014 * (b - a),
                      'begin_shape_index': a, 'end_shape_index': b, 'travel_mode': 'drive'})
maneuvers.append({'type': 4, 'instruction': 'You have arrived at your destination.', 'time': 0, 'length': 0,
                  'begin_shape_index': len(line) - 1, 'end_shape_index': len(line) - 1, 'travel_mode': 'drive'})
valhalla = {'trip': {'locations': [{'type': 'break', 'lat': line[0][1], 'lon': line[0][0]},
                                   {'type': 'break', 'lat': line[-1][1], 'lon': line[-1][0]}],
                     'legs': [{'maneuvers': maneuvers, 'summary': {'length': 0.014 * 219, 'time': 2.0 * 219},
                               'shape': encode(line, 6)}],
                     'summary': {'length': 0.014 * 219, 'time': 2.0 * 219}, 'status_message': 'Found route between points',
                     'status': 0, 'units': 'kilometers', 'language': 'en-US'}}
with open('zurich-valhalla-route.json', 'w') as f:
    json.dump(valhalla, f, indent=1, ensure_ascii=False)

# GPX 1.1: two tracks (the second in two segments, with times) and one planned route.
def trkpts(points, start_minute=None, indent='   '):
    out = []
    for i, (lon, lat) in enumerate(points):
        time = ''
        if start_minute is not None:
            total = start_minute * 60 + i * 5
            time = '<time>2026-06-01T%02d:%02d:%02dZ</time>' % (7 + total // 3600, total // 60 % 60, total % 60)
        out.append('%s<trkpt lat="%s" lon="%s"><ele>%d</ele>%s</trkpt>' % (indent, lat, lon, 400 + i % 30, time))
    return '\n'.join(out)

gpx = ['<?xml version="1.0" encoding="UTF-8"?>',
       '<gpx version="1.1" creator="generate_reader_samples.py" xmlns="http://www.topografix.com/GPX/1/1">',
       ' <metadata><name>Uetliberg hikes</name></metadata>',
       ' <wpt lat="47.3494" lon="8.4918"><name>Uto Kulm</name></wpt>',
       ' <trk><name>Uetliberg &amp; back</name><desc>Saturday hike</desc><type>hiking</type><trkseg>',
       trkpts(walk(8.49, 47.35, 240, 9), 0), ' </trkseg></trk>',
       ' <trk><name>Sihlwald</name><type>running</type><trkseg>', trkpts(walk(8.55, 47.26, 150, 10), 30),
       ' </trkseg><!-- GPS lost --><trkseg>', trkpts(walk(8.56, 47.25, 150, 10), 50), ' </trkseg></trk>',
       ' <rte><name>Planned: Felsenegg</name>']
gpx += ['  <rtept lat="%s" lon="%s"/>' % (lat, lon) for lon, lat in walk(8.50, 47.32, 40, 60)]
gpx += [' </rte>', '</gpx>', '']
with open('uetliberg-hikes.gpx', 'w') as f:
    f.write('\n'.join(gpx))

# Newline-delimited GeoJSON: one Feature per line.
with open('delivery-vans.ndjson', 'w') as f:
    for i in range(8):
        feature = {'type': 'Feature', 'id': 100 + i,
                   'properties': {'van': 'V%02d' % i, 'stops': rng.randint(5, 30)},
                   'geometry': {'type': 'LineString', 'coordinates': [list(p) for p in walk(8.5 + 0.01 * i, 47.4, 200, 20)]}}
        f.write(json.dumps(feature, separators=(',', ':')) + '\n')
