// Playback: a marker moved along the selected route.
//
// A route with times (`coordTimes` in `GET /routes/{id}`) is played at its recorded pace: the marker is where the
// track was at the clock's time, which runs at the chosen speed (×1, ×10, ×60, …) from the first position's time to
// the last's, and the clock shows it. Otherwise the marker moves at the route's duration divided by the speed (or
// 50 km/h when the duration is not known). Either way it moves between positions in Web Mercator, as the tiles draw
// the line, turned to the bearing of the segment it is on; great-circle routes are first divided along their
// great circles.
/* global formatLength, formatDuration, formatClock */
/* exported createPlayback */

function createPlayback(viewer, mapView) {
  const $ = (id) => document.getElementById(id);
  const { map, placeRouteLayers } = mapView;
  const playback = { geometry: null, fraction: 0, playing: false, last: 0, marker: null, routeId: null };
  viewer.playback = playback;

  function mercator(lngLat) {
    const m = maplibregl.MercatorCoordinate.fromLngLat({ lng: lngLat[0], lat: lngLat[1] });
    return [m.x, m.y];
  }

  // Points along the great circle from a to b, every ~50 km, b excluded.
  function greatCircle(a, b) {
    const rad = Math.PI / 180;
    const toVector = (p) => [Math.cos(p[1] * rad) * Math.cos(p[0] * rad), Math.cos(p[1] * rad) * Math.sin(p[0] * rad), Math.sin(p[1] * rad)];
    const u = toVector(a), v = toVector(b);
    const angle = Math.acos(Math.min(1, Math.max(-1, u[0] * v[0] + u[1] * v[1] + u[2] * v[2])));
    const pieces = Math.max(1, Math.ceil(angle * 6371 / 50));
    const points = [a];
    if (angle < 1e-9) return points;
    let lon = a[0];
    for (let i = 1; i < pieces; i++) {
      const t = i / pieces;
      const s = Math.sin(angle);
      const k1 = Math.sin((1 - t) * angle) / s, k2 = Math.sin(t * angle) / s;
      const x = k1 * u[0] + k2 * v[0], y = k1 * u[1] + k2 * v[1], z = k1 * u[2] + k2 * v[2];
      let next = Math.atan2(y, x) / rad;
      while (next - lon > 180) next -= 360;
      while (next - lon < -180) next += 360;
      lon = next;
      points.push([next, Math.atan2(z, Math.hypot(x, y)) / rad]);
    }
    return points;
  }

  // The route as one path of Web Mercator points (parts joined), with the length in metres up to each point.
  async function loadGeometry(entry) {
    const feature = await (await viewer.credential.fetch('routes/' + encodeURIComponent(entry.id), { cache: 'no-store' })).json();
    const g = feature.geometry;
    let parts = g.type === 'LineString' ? [g.coordinates] : g.coordinates;
    const geodesic = feature.properties && feature.properties.geodesic === true;
    const coordTimes = feature.properties && Array.isArray(feature.properties.coordTimes)
      ? feature.properties.coordTimes.map((t) => Date.parse(t)) : null;
    const timed = coordTimes && coordTimes.every(Number.isFinite) ? coordTimes : null;
    const lngLats = [];
    const metres = [];
    const times = [];
    let total = 0;
    let position = 0;
    for (let part of parts) {
      // Each position's time; a great circle's added points take times in proportion along their segment.
      let partTimes = timed ? timed.slice(position, position + part.length) : null;
      position += part.length;
      if (geodesic) {
        const dense = [];
        const denseTimes = [];
        for (let i = 0; i + 1 < part.length; i++) {
          const arc = greatCircle(part[i], part[i + 1]);
          dense.push(...arc);
          if (partTimes) {
            for (let k = 0; k < arc.length; k++) denseTimes.push(partTimes[i] + (partTimes[i + 1] - partTimes[i]) * k / arc.length);
          }
        }
        dense.push(part[part.length - 1]);
        if (partTimes) denseTimes.push(partTimes[partTimes.length - 1]);
        part = dense;
        partTimes = partTimes ? denseTimes : null;
      }
      if (partTimes) times.push(...partTimes);
      // Longitudes unwrapped, so that a path across the antimeridian stays continuous.
      let previous = null;
      for (const c of part) {
        let p = [c[0], c[1]];
        if (previous) {
          while (p[0] - previous[0] > 180) p[0] -= 360;
          while (p[0] - previous[0] < -180) p[0] += 360;
          const d = maplibregl.LngLat.convert(previous).distanceTo(maplibregl.LngLat.convert([p[0], p[1]]));
          total += d;
        }
        lngLats.push(p);
        metres.push(total);
        previous = p;
      }
    }
    const recorded = timed && times.length === lngLats.length && times.length >= 2 && times[times.length - 1] > times[0];
    return { id: entry.id, lngLats, points: lngLats.map(mercator), metres, total, times: recorded ? times : null };
  }

  // `fraction` of a timed route's span as a fraction of its length: where the track was at that time, between the
  // positions recorded before and after it.
  function fractionOfLengthAt(geometry, fraction) {
    const { times, metres, total } = geometry;
    const target = times[0] + Math.min(1, Math.max(0, fraction)) * (times[times.length - 1] - times[0]);
    let lo = 0, hi = times.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= target) lo = mid; else hi = mid;
    }
    const span = times[hi] - times[lo];
    const t = span > 0 ? Math.min(1, Math.max(0, (target - times[lo]) / span)) : 0;
    return total > 0 ? (metres[lo] + (metres[hi] - metres[lo]) * t) / total : 0;
  }

  // Where the marker is at `fraction` of the length: the point, the segment it is on, its bearing.
  function positionAt(geometry, fraction) {
    const { points, metres, total } = geometry;
    const target = Math.min(1, Math.max(0, fraction)) * total;
    let lo = 0, hi = metres.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (metres[mid] <= target) lo = mid; else hi = mid;
    }
    // A zero-length segment (a repeated position, the joint of two parts) has no direction: take the next one.
    let i = Math.min(lo, points.length - 2);
    while (i + 1 < points.length - 1 && points[i][0] === points[i + 1][0] && points[i][1] === points[i + 1][1]) i++;
    const a = points[i], bPoint = points[i + 1];
    const span = metres[i + 1] - metres[i];
    const t = span > 0 ? Math.min(1, Math.max(0, (target - metres[i]) / span)) : 0;
    const x = a[0] + (bPoint[0] - a[0]) * t, y = a[1] + (bPoint[1] - a[1]) * t;
    // Mercator y grows southward; the bearing is clockwise from north, as on the map.
    const bearing = (Math.atan2(bPoint[0] - a[0], -(bPoint[1] - a[1])) * 180 / Math.PI + 360) % 360;
    const lngLat = new maplibregl.MercatorCoordinate(x, y, 0).toLngLat();
    return { lngLat: [lngLat.lng, lngLat.lat], segment: i, bearing, metres: target };
  }

  function markerElement() {
    const el = document.createElement('div');
    el.className = 'playback-marker';
    el.innerHTML = '<svg viewBox="0 0 26 26" width="26" height="26" aria-hidden="true">'
      + '<circle cx="13" cy="13" r="11" fill="#ffffff" stroke="#0f172a" stroke-width="2"/>'
      + '<path d="M13 4 L19 19 L13 15.5 L7 19 Z" fill="#db2777"/></svg>';
    return el;
  }

  function drawPlayback() {
    const g = playback.geometry;
    if (!g) return;
    const at = positionAt(g, g.times ? fractionOfLengthAt(g, playback.fraction) : playback.fraction);
    if (g.times) at.time = g.times[0] + playback.fraction * (g.times[g.times.length - 1] - g.times[0]);
    playback.at = at;
    if (!playback.marker) {
      playback.marker = new maplibregl.Marker({ element: markerElement(), rotationAlignment: 'map', pitchAlignment: 'map' });
    }
    playback.marker.setLngLat(at.lngLat).setRotation(at.bearing).addTo(map);
    const travelled = g.lngLats.slice(0, at.segment + 1).concat([at.lngLat]);
    const data = { type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: travelled } };
    const source = map.getSource('routetiles-travelled');
    if (source) {
      source.setData(data);
    } else {
      map.addSource('routetiles-travelled', { type: 'geojson', data });
      map.addLayer({ id: 'routetiles-travelled', type: 'line', source: 'routetiles-travelled',
        layout: { 'line-join': 'round', 'line-cap': 'round' },
        paint: { 'line-color': '#475569', 'line-width': ['interpolate', ['exponential', 1.5], ['zoom'], 4, 2, 10, 4, 14, 7, 18, 18] } });
      placeRouteLayers();
    }
    $('position').value = Math.round(playback.fraction * 1000);
    const duration = g.times ? secondsForRoute() : viewer.selected && viewer.selected.duration_s;
    $('position-label').textContent = formatLength(at.metres) + ' of ' + formatLength(g.total)
      + (duration ? ` · ${formatDuration(duration * playback.fraction)}` : '');
    $('clock').hidden = at.time == null;
    if (at.time != null) $('clock').textContent = formatClock(at.time);
  }

  async function ensureGeometry() {
    const entry = viewer.selected;
    if (!entry) return null;
    if (playback.geometry && playback.geometry.id === entry.id) return playback.geometry;
    return adoptGeometry(entry, await loadGeometry(entry));
  }

  // Takes a geometry loaded for `entry` when `entry` is still the selected route: another route may have been
  // selected while it loaded, and its geometry is not that one's. Checked and set in one synchronous step.
  function adoptGeometry(entry, geometry) {
    if (viewer.selected !== entry) return null;
    playback.geometry = geometry;
    return geometry;
  }

  // How long playback at ×1 takes: a timed route's recorded span, else its duration, else its length at 50 km/h.
  function secondsForRoute() {
    const g = playback.geometry;
    if (g && g.times) return (g.times[g.times.length - 1] - g.times[0]) / 1000;
    const entry = viewer.selected;
    if (entry && entry.duration_s > 0) return entry.duration_s;
    return ((playback.geometry && playback.geometry.total) || 1) / (50 / 3.6);
  }

  function frame(now) {
    if (!playback.playing) return;
    const elapsed = (now - playback.last) / 1000;
    playback.last = now;
    const speed = Number($('speed').value) || 1;
    playback.fraction = Math.min(1, playback.fraction + elapsed * speed / secondsForRoute());
    drawPlayback();
    if (playback.fraction >= 1) {
      playback.endedAt = now;
      stopPlayback(false);
      return;
    }
    requestAnimationFrame(frame);
  }

  async function play() {
    if (!(await ensureGeometry())) return;
    if (playback.fraction >= 1) playback.fraction = 0;
    playback.playing = true;
    playback.last = performance.now();
    // When this run began and (in `frame`) reached the end, for whoever measures playback's pace.
    playback.startedAt = playback.last;
    playback.startFraction = playback.fraction;
    playback.endedAt = null;
    $('play').textContent = 'Pause';
    drawPlayback();
    requestAnimationFrame(frame);
  }

  function stopPlayback(clear) {
    playback.playing = false;
    $('play').textContent = 'Play';
    if (clear) {
      playback.fraction = 0;
      playback.geometry = null;
      $('clock').hidden = true;
      if (playback.marker) playback.marker.remove();
      if (map.getLayer('routetiles-travelled')) map.removeLayer('routetiles-travelled');
      if (map.getSource('routetiles-travelled')) map.removeSource('routetiles-travelled');
    }
  }

  // The selected route changed (a track that grew): playback goes on along its new geometry.
  async function routesChanged(ids) {
    const entry = viewer.selected;
    if (!entry || !ids.includes(entry.id) || !playback.geometry) return;
    const geometry = await loadGeometry(entry);
    // A stop while it loaded wins (playback has no geometry then), and so does another selection.
    if (playback.geometry && adoptGeometry(entry, geometry)) drawPlayback();
  }

  viewer.play = play;
  viewer.pause = () => stopPlayback(false);
  viewer.seek = async (fraction) => {
    if (!(await ensureGeometry())) return null;
    playback.fraction = Math.min(1, Math.max(0, fraction));
    drawPlayback();
    return playback.at;
  };

  $('play').addEventListener('click', () => { if (playback.playing) stopPlayback(false); else play(); });
  $('position').addEventListener('input', () => { viewer.seek(Number($('position').value) / 1000); });

  return { stop: stopPlayback, routesChanged };
}
