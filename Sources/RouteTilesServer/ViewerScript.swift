/// `/viewer.js`: what the viewer does, in plain JavaScript over MapLibre GL JS (no build step, no framework), so
/// that it can be read as the reference for using the tiles in a map app.
///
/// - The basemap's style is loaded first; the routes' source and layers of `/style.json` are added under its first
///   symbol layer (its labels), or over everything when the box is ticked. Without a basemap, `/style.json` is the
///   map's style as it is. A basemap that cannot be loaded gives way to the routes alone, with a notice.
/// - The list (`GET /routes`) renders only its visible rows, so 10,000 routes scroll and filter at once. Selecting a
///   route sets `feature-state` `selected` on its feature id, which the style draws wider with an amber casing.
/// - `/events` brings each change: the tiles it lists are fetched again (their URLs carry the generation, past the
///   browser's cache) and the routes it names are read again for the list. A reconnect sends `Last-Event-ID`; a
///   `resync` answer refreshes what it names, or everything.
/// - Playback moves a marker along the selected route at its duration divided by the speed (or 50 km/h when the
///   duration is not known), between positions in Web Mercator, as the tiles draw the line, turned to the bearing of
///   the segment it is on; great-circle routes are first divided along their great circles.
///
/// `window.map` is the map and `window.routetiles` the viewer's state and actions, for tools and tests.
enum ViewerScript {
    static let source = #"""
    (async function () {
      'use strict';
      const config = JSON.parse(document.getElementById('routetiles-config').textContent);
      const ROW = 44;
      const $ = (id) => document.getElementById(id);
      const viewer = {
        routes: [], byId: new Map(), byFid: new Map(), shown: [], selected: null,
        tileVersion: new Map(), allVersion: 0, generation: null, eventId: null, events: [],
        routeLayers: [], source: 'routes', basemapLoaded: false, errors: [],
      };
      window.routetiles = viewer;
      window.tileErrors = viewer.errors;

      const tilejson = await (await fetch('tiles.json')).json();
      const tileTemplate = (tilejson.tiles && tilejson.tiles[0]) || '';
      const tilePrefix = tileTemplate.split('{z}')[0];

      // Tiles that a change invalidated are asked for with the generation in their URL, past the browser's cache.
      function transformRequest(url, resourceType) {
        if (resourceType !== 'Tile' || !tilePrefix || !url.startsWith(tilePrefix)) return { url };
        const m = /(\d+)\/(\d+)\/(\d+)\.[a-z]+(?:\?|$)/.exec(url.slice(tilePrefix.length));
        if (!m) return { url };
        const version = viewer.tileVersion.get(`${m[1]}/${m[2]}/${m[3]}`) || viewer.allVersion;
        return { url: version ? url + (url.includes('?') ? '&' : '?') + 'v=' + version : url };
      }

      const map = new maplibregl.Map({
        container: 'map', style: config.basemap || 'style.json', transformRequest,
        attributionControl: config.basemap ? { compact: true } : false,
      });
      window.map = map;
      map.addControl(new maplibregl.NavigationControl());
      map.on('error', (e) => { viewer.errors.push(String((e && e.error && e.error.message) || e)); });
      const b = tilejson.bounds;
      if (b && b.length === 4 && b[0] <= b[2]) {
        map.fitBounds([[b[0], b[1]], [b[2], b[3]]], { padding: 40, animate: false, maxZoom: tilejson.maxzoom });
      }

      // MARK: Basemap and route layers

      function notice(text) {
        $('notice').textContent = text;
        $('notice').hidden = !text;
      }

      function labelLayer() {
        const route = new Set(viewer.routeLayers);
        const layer = map.getStyle().layers.find((l) => l.type === 'symbol' && !route.has(l.id));
        return layer ? layer.id : undefined;
      }

      function placeRouteLayers() {
        const before = $('over-labels').checked ? undefined : labelLayer();
        for (const id of viewer.routeLayers) if (map.getLayer(id)) map.moveLayer(id, before);
        for (const id of ['routetiles-selected-casing', 'routetiles-selected-line', 'routetiles-travelled']) {
          if (map.getLayer(id)) map.moveLayer(id, before);
        }
      }

      async function addRouteLayers() {
        const style = await (await fetch('style.json')).json();
        const taken = new Set(map.getStyle().layers.map((l) => l.id));
        for (const [id, source] of Object.entries(style.sources)) {
          const name = map.getSource(id) ? 'routetiles-' + id : id;
          map.addSource(name, source);
          if (id === 'routes') viewer.source = name;
        }
        for (const layer of style.layers) {
          if (layer.type === 'background') continue;
          const copy = Object.assign({}, layer, { source: layer.source === 'routes' ? viewer.source : layer.source });
          if (taken.has(copy.id)) copy.id = 'routetiles-' + copy.id;
          map.addLayer(copy);
          viewer.routeLayers.push(copy.id);
        }
        placeRouteLayers();
      }

      const styleReady = new Promise((resolve) => {
        if (!config.basemap) {
          map.once('style.load', () => {
            viewer.routeLayers = map.getStyle().layers.filter((l) => l.type !== 'background').map((l) => l.id);
            resolve();
          });
          return;
        }
        let settled = false;
        const fallBack = (why) => {
          if (settled) return;
          settled = true;
          notice(`The basemap (${config.basemap}) could not be loaded: ${why}. Showing the routes alone.`);
          map.once('style.load', () => {
            viewer.routeLayers = map.getStyle().layers.filter((l) => l.type !== 'background').map((l) => l.id);
            resolve();
          });
          map.setStyle('style.json');
        };
        const timer = setTimeout(() => fallBack('no answer in 10 s'), 10000);
        map.once('style.load', async () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          viewer.basemapLoaded = true;
          await addRouteLayers();
          resolve();
        });
        map.on('error', (e) => { if (!map.isStyleLoaded() && !settled) { clearTimeout(timer); fallBack(String((e.error && e.error.message) || 'error')); } });
      });
      $('over-labels').addEventListener('change', placeRouteLayers);
      if (!config.basemap) $('over-labels').parentElement.hidden = true;

      // MARK: The list

      const numberFormat = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
      function formatLength(m) {
        if (m == null) return '';
        if (m < 1000) return `${Math.round(m)} m`;
        return `${numberFormat.format(m >= 100000 ? Math.round(m / 1000) : Math.round(m / 100) / 10)} km`;
      }
      function formatDuration(s) {
        if (s == null) return '';
        if (s < 60) return `${Math.round(s)} s`;
        const minutes = Math.round(s / 60);
        if (minutes < 60) return `${minutes} min`;
        return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
      }
      const label = (r) => r.name || `${r.layer} ${r.id}`;

      function setRoutes(list) {
        viewer.routes = list;
        viewer.byId = new Map(list.map((r) => [r.id, r]));
        viewer.byFid = new Map(list.map((r) => [String(r.fid), r]));
        if (viewer.selected) {
          const again = viewer.byId.get(viewer.selected.id);
          if (again) viewer.selected = again; else select(null);
        }
        applyFilter();
      }

      function applyFilter() {
        const words = $('filter').value.trim().toLowerCase().split(/\s+/).filter(Boolean);
        viewer.shown = viewer.routes.filter((r) => {
          if (r.kind !== 'line') return false;
          const text = `${r.name || ''} ${r.id} ${r.layer}`.toLowerCase();
          return words.every((w) => text.includes(w));
        });
        const lines = viewer.routes.filter((r) => r.kind === 'line').length;
        $('count').textContent = words.length ? `${viewer.shown.length} of ${lines} routes` : `${lines} routes`;
        $('list-rows').style.height = `${viewer.shown.length * ROW}px`;
        renderRows();
      }

      function renderRows() {
        const list = $('list');
        const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 5);
        const last = Math.min(viewer.shown.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW) + 5);
        const rows = $('list-rows');
        rows.textContent = '';
        for (let i = first; i < last; i++) {
          const r = viewer.shown[i];
          const row = document.createElement('div');
          row.className = 'row' + (viewer.selected && viewer.selected.id === r.id ? ' selected' : '');
          row.style.top = `${i * ROW}px`;
          row.dataset.id = r.id;
          row.setAttribute('role', 'option');
          const swatch = document.createElement('span');
          swatch.className = 'swatch';
          swatch.style.background = r.color || '#2563eb';
          const name = document.createElement('div');
          name.className = 'name';
          name.textContent = label(r);
          const meta = document.createElement('div');
          meta.className = 'meta';
          meta.textContent = [formatLength(r.length_m), formatDuration(r.duration_s), r.name ? `id ${r.id}` : '']
            .filter(Boolean).join(' · ');
          row.append(swatch, name, meta);
          rows.appendChild(row);
        }
      }
      $('list').addEventListener('scroll', renderRows);
      $('filter').addEventListener('input', () => { $('list').scrollTop = 0; applyFilter(); });
      $('list-rows').addEventListener('click', (e) => {
        const row = e.target.closest('.row');
        if (row) select(viewer.byId.get(row.dataset.id), { fly: true });
      });

      async function loadRoutes(ids) {
        const query = ids ? '?' + ids.map((id) => 'id=' + encodeURIComponent(id)).join('&') : '';
        const response = await fetch('routes' + query, { cache: 'no-store' });
        if (!response.ok) return null;
        return (await response.json()).routes;
      }

      async function refreshRoutes(ids) {
        if (!ids || ids.length > 500) {
          const all = await loadRoutes(null);
          if (all) setRoutes(all);
          return;
        }
        if (!ids.length) return;
        const fresh = await loadRoutes(ids);
        if (!fresh) return;
        const updated = new Map(fresh.map((r) => [r.id, r]));
        const gone = new Set(ids.filter((id) => !updated.has(id)));
        const list = [];
        for (const r of viewer.routes) {
          if (gone.has(r.id)) continue;
          list.push(updated.get(r.id) || r);
          updated.delete(r.id);
        }
        for (const r of updated.values()) list.push(r);
        setRoutes(list);
      }

      // MARK: Selection

      // The selected route is highlighted through feature-state, and drawn again over the other routes (a copy of
      // its layer's casing and line, filtered to its feature id), so that no route later in the list covers it.
      function setSelected(entry, on) {
        if (!entry || !map.getSource(viewer.source)) return;
        map.setFeatureState({ source: viewer.source, sourceLayer: entry.layer, id: entry.fid }, { selected: on });
        for (const part of ['casing', 'line']) {
          const id = 'routetiles-selected-' + part;
          if (map.getLayer(id)) map.removeLayer(id);
          const base = map.getStyle().layers.find((l) => viewer.routeLayers.includes(l.id) && l['source-layer'] === entry.layer
            && l.id.endsWith('-' + part));
          if (!on || !base) continue;
          map.addLayer(Object.assign({}, base, { id, filter: ['==', ['id'], entry.fid] }));
        }
        placeRouteLayers();
      }

      function select(entry, options = {}) {
        if (viewer.selected && (!entry || viewer.selected.id !== entry.id)) {
          setSelected(viewer.selected, false);
          stopPlayback(true);
        }
        viewer.selected = entry || null;
        renderRows();
        if (!entry) { $('details').hidden = true; return; }
        setSelected(entry, true);
        showDetails(entry);
        if (options.fly && entry.bbox) {
          const [w, s, e, n] = entry.bbox;
          map.fitBounds([[w, s], [e, n]], { padding: 60, maxZoom: 16, duration: options.duration ?? 800 });
        }
        if (options.scroll) {
          const index = viewer.shown.findIndex((r) => r.id === entry.id);
          if (index >= 0) {
            const list = $('list');
            if (index * ROW < list.scrollTop || (index + 1) * ROW > list.scrollTop + list.clientHeight) {
              list.scrollTop = Math.max(0, index * ROW - list.clientHeight / 2);
            }
            renderRows();
          }
        }
      }
      viewer.select = (id, options) => select(viewer.byId.get(String(id)), options);

      function showDetails(entry) {
        $('details').hidden = false;
        $('details-name').textContent = label(entry);
        $('details-meta').textContent = [`id ${entry.id}`, entry.layer, formatLength(entry.length_m),
          formatDuration(entry.duration_s), `${entry.points} points`].filter(Boolean).join(' · ');
        const steps = $('steps');
        steps.textContent = '';
        for (const step of entry.steps || []) {
          const li = document.createElement('li');
          const what = step.instruction || step.name || `${step.type || 'step'} ${step.modifier || ''}`;
          li.textContent = what;
          const meta = document.createElement('div');
          meta.className = 'meta';
          meta.textContent = [formatLength(step.distance_m), formatDuration(step.duration_s)].filter(Boolean).join(' · ');
          li.appendChild(meta);
          li.addEventListener('click', () => {
            for (const other of steps.children) other.classList.remove('current');
            li.classList.add('current');
            if (step.location) map.flyTo({ center: step.location, zoom: Math.max(map.getZoom(), 16), duration: 600 });
          });
          steps.appendChild(li);
        }
        $('position').value = 0;
        $('position-label').textContent = '';
      }

      map.on('click', (e) => {
        const layers = viewer.routeLayers.filter((id) => map.getLayer(id) && (id.endsWith('-line') || id.endsWith('-points')));
        const features = map.queryRenderedFeatures(e.point, { layers });
        if (!features.length) return;
        const f = features[0];
        const entry = viewer.byFid.get(String(f.id));
        if (entry && entry.kind === 'line') { select(entry, { scroll: true }); return; }
        const table = document.createElement('table');
        table.className = 'props';
        for (const [k, v] of [['layer', f.sourceLayer], ['id', f.id]].concat(Object.entries(f.properties))) {
          const tr = table.insertRow();
          tr.insertCell().textContent = k;
          tr.insertCell().textContent = String(v);
        }
        new maplibregl.Popup().setLngLat(e.lngLat).setDOMContent(table).addTo(map);
      });
      map.on('mousemove', (e) => {
        const layers = viewer.routeLayers.filter((id) => map.getLayer(id) && id.endsWith('-line'));
        map.getCanvas().style.cursor = layers.length && map.queryRenderedFeatures(e.point, { layers }).length ? 'pointer' : '';
      });

      // MARK: Live

      function reloadTiles(keys) {
        const cache = map.style && map.style.sourceCaches && map.style.sourceCaches[viewer.source];
        if (!cache || typeof cache._reloadTile !== 'function' || !cache._tiles) {
          const source = map.getSource(viewer.source);
          if (source && source.setTiles && source.tiles) source.setTiles(source.tiles.slice());
          return;
        }
        // Tiles out of view are dropped; those in view are loaded again as MapLibre loads an expired tile (from the
        // network, which a 'reloading' tile is not: that only parses the data it has again).
        if (cache._cache && cache._cache.reset) cache._cache.reset();
        for (const id in cache._tiles) {
          const c = cache._tiles[id].tileID.canonical;
          if (!keys || keys.has(`${c.z}/${c.x}/${c.y}`)) cache._reloadTile(id, 'expired');
        }
      }

      function status(text, kind) {
        $('status').textContent = text;
        $('status').className = 'status ' + (kind || '');
      }

      function listen() {
        const stream = new EventSource('events');
        viewer.stream = stream;
        stream.onopen = () => status('live', 'live');
        stream.onerror = () => status(stream.readyState === EventSource.CLOSED ? 'offline' : 'reconnecting', 'down');
        stream.addEventListener('hello', (e) => {
          const data = JSON.parse(e.data);
          viewer.events.push({ type: 'hello', sequence: data.sequence });
          const first = viewer.eventId === null;
          viewer.eventId = data.sequence;
          viewer.generation = data.generation;
          if (first) refreshRoutes(null);
        });
        stream.addEventListener('resync', (e) => {
          const data = JSON.parse(e.data);
          viewer.events.push({ type: 'resync', sequence: data.sequence });
          viewer.eventId = data.sequence;
          viewer.generation = data.generation;
          viewer.allVersion = `${data.sequence}r`;
          viewer.tileVersion.clear();
          reloadTiles(null);
          refreshRoutes(data.ids);
        });
        stream.addEventListener('change', (e) => {
          const data = JSON.parse(e.data);
          viewer.events.push({ type: 'change', sequence: data.sequence, ids: data.ids });
          viewer.eventId = data.sequence;
          viewer.generation = data.generation;
          if (viewer.tileVersion.size > 50000) {
            viewer.tileVersion.clear();
            viewer.allVersion = data.generation;
            reloadTiles(null);
          } else {
            for (const t of data.tiles) viewer.tileVersion.set(t, data.generation);
            reloadTiles(new Set(data.tiles));
          }
          refreshRoutes(data.ids).then(async () => {
            // The selected route changed (a track that grew): playback goes on along its new geometry.
            const entry = viewer.selected;
            if (!entry || !data.ids.includes(entry.id) || !playback.geometry) return;
            playback.geometry = await loadGeometry(entry);
            drawPlayback();
          });
        });
      }

      // MARK: Playback

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
        const feature = await (await fetch('routes/' + encodeURIComponent(entry.id), { cache: 'no-store' })).json();
        const g = feature.geometry;
        let parts = g.type === 'LineString' ? [g.coordinates] : g.coordinates;
        const geodesic = feature.properties && feature.properties.geodesic === true;
        const lngLats = [];
        const metres = [];
        let total = 0;
        for (let part of parts) {
          if (geodesic) {
            const dense = [];
            for (let i = 0; i + 1 < part.length; i++) dense.push(...greatCircle(part[i], part[i + 1]));
            dense.push(part[part.length - 1]);
            part = dense;
          }
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
        return { id: entry.id, lngLats, points: lngLats.map(mercator), metres, total };
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
        const at = positionAt(g, playback.fraction);
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
        const duration = viewer.selected && viewer.selected.duration_s;
        $('position-label').textContent = formatLength(at.metres) + ' of ' + formatLength(g.total)
          + (duration ? ` · ${formatDuration(duration * playback.fraction)}` : '');
      }

      async function ensureGeometry() {
        const entry = viewer.selected;
        if (!entry) return null;
        if (!playback.geometry || playback.geometry.id !== entry.id) playback.geometry = await loadGeometry(entry);
        return playback.geometry;
      }

      function secondsForRoute() {
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
        if (playback.fraction >= 1) { stopPlayback(false); return; }
        requestAnimationFrame(frame);
      }

      async function play() {
        if (!(await ensureGeometry())) return;
        if (playback.fraction >= 1) playback.fraction = 0;
        playback.playing = true;
        playback.last = performance.now();
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
          if (playback.marker) playback.marker.remove();
          if (map.getLayer('routetiles-travelled')) map.removeLayer('routetiles-travelled');
          if (map.getSource('routetiles-travelled')) map.removeSource('routetiles-travelled');
        }
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

      // MARK: Start

      await styleReady;
      viewer.ready = true;
      if (config.live) {
        // Read now, and again once /events has said where it starts, so that no change falls between the two.
        refreshRoutes(null);
        listen();
      } else {
        $('filter').hidden = true;
        $('list').hidden = true;
        $('count').textContent = 'A finished tileset: click a route for its properties.';
        status('static', '');
      }
    })();
    """#
}
