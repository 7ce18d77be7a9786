"""The great circle between two places, as generated routes draw a flight: shared by generate_routes.py and
Tiles/samples/generate_samples.py."""
import math


def great_circle(a, b, n):
    """`n` points (n >= 2) from `a` to `b` (each (longitude, latitude) in degrees) along the great circle, evenly
    spaced, unrounded; longitudes wrapped into ±180° (the reader unwraps a jump across the antimeridian)."""
    (lon1, lat1), (lon2, lat2) = a, b
    p1, p2 = (math.radians(lat1), math.radians(lon1)), (math.radians(lat2), math.radians(lon2))
    d = 2 * math.asin(math.sqrt(math.sin((p2[0] - p1[0]) / 2) ** 2
                                + math.cos(p1[0]) * math.cos(p2[0]) * math.sin((p2[1] - p1[1]) / 2) ** 2))
    points = []
    for i in range(n):
        f = i / (n - 1)
        x1 = math.sin((1 - f) * d) / math.sin(d)
        x2 = math.sin(f * d) / math.sin(d)
        x = x1 * math.cos(p1[0]) * math.cos(p1[1]) + x2 * math.cos(p2[0]) * math.cos(p2[1])
        y = x1 * math.cos(p1[0]) * math.sin(p1[1]) + x2 * math.cos(p2[0]) * math.sin(p2[1])
        z = x1 * math.sin(p1[0]) + x2 * math.sin(p2[0])
        points.append((math.degrees(math.atan2(y, x)), math.degrees(math.atan2(z, math.hypot(x, y)))))
    return points
