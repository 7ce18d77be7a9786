// The map, the basemap and the routes' layers.
//
// The basemap's style is loaded first; the routes' source and layers of `style.json` are added under its first
// symbol layer (its labels), or over everything when the box is ticked. Without a basemap, `style.json` is the
// map's style as it is. A basemap that cannot be loaded gives way to the routes alone, with a notice.
/* exported createMapView */

// The box the first view fits, from `tiles.json`: its bounds, taken the short way across ±180°. TileJSON bounds
// never wrap, so routes that cross the antimeridian (transpacific flights) come with west −180 and east 180, and
// RouteTiles puts the centre in the middle of their shortest extent, at the zoom where that extent spans about one
// tile: the box is then that tile's width around the centre, which MapLibre takes with an east past 180°. Bounds
// whose west lies east of their east (from another server) reach across ±180° too. Null without usable bounds.
function firstView(tilejson) {
  const b = tilejson.bounds;
  if (!Array.isArray(b) || b.length !== 4 || !b.every(Number.isFinite)) return null;
  const [west, south, east, north] = b;
  if (west > east) return [[west, south], [east + 360, north]];
  const c = tilejson.center;
  const wholeWidth = west <= -180 && east >= 180;
  if (wholeWidth && Array.isArray(c) && c.length === 3 && c.every(Number.isFinite)) {
    const half = 180 / Math.pow(2, Math.max(0, c[2]));
    return [[c[0] - half, south], [c[0] + half, north]];
  }
  return [[west, south], [east, north]];
}

function createMapView(config, viewer, tilejson) {
  const $ = (id) => document.getElementById(id);
  const tileTemplate = (tilejson.tiles && tilejson.tiles[0]) || '';
  const tilePrefix = tileTemplate.split('{z}')[0];

  // Tiles that a change invalidated are asked for with the generation in their URL, past the browser's cache.
  // This server's requests carry the credential, if there is one (credential.js).
  function transformRequest(url, resourceType) {
    const headers = viewer.credential.headersFor(url);
    if (resourceType !== 'Tile' || !tilePrefix || !url.startsWith(tilePrefix)) return { url, headers };
    const m = /(\d+)\/(\d+)\/(\d+)(?:@[23]x)?\.[a-z]+(?:\?|$)/.exec(url.slice(tilePrefix.length));
    if (!m) return { url, headers };
    const version = viewer.tileVersion.get(`${m[1]}/${m[2]}/${m[3]}`) || viewer.allVersion;
    return { url: version ? url + (url.includes('?') ? '&' : '?') + 'v=' + version : url, headers };
  }

  const map = new maplibregl.Map({
    container: 'map', style: config.basemap || 'style.json', transformRequest,
    attributionControl: config.basemap ? { compact: true } : false,
  });
  window.map = map;
  map.addControl(new maplibregl.NavigationControl());
  map.on('error', (e) => { viewer.errors.push(String((e && e.error && e.error.message) || e)); });
  const view = firstView(tilejson);
  if (view) map.fitBounds(view, { padding: 40, animate: false, maxZoom: tilejson.maxzoom });

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
    for (const id of ['routetiles-raster', 'routetiles-selected-casing', 'routetiles-selected-line', 'routetiles-travelled']) {
      if (map.getLayer(id)) map.moveLayer(id, before);
    }
  }

  async function addRouteLayers() {
    const style = await (await viewer.credential.fetch('style.json')).json();
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

  // Raster tiles instead of the vector layers: the server's PNGs of the same tiles (`/tiles/{z}/{x}/{y}.png`, at
  // @2x on screens of that density), which is what MapKit or Leaflet would show, drawn in the vector layers' place.
  function showRaster(on) {
    for (const id of viewer.routeLayers) {
      if (!map.getLayer(id)) continue;
      const heat = map.getLayer(id).type === 'heatmap';
      map.setLayoutProperty(id, 'visibility', on || (heat && !viewer.heat) ? 'none' : 'visible');
    }
    if (on && !map.getSource('routetiles-raster')) {
      const ending = window.devicePixelRatio >= 2 ? '@2x.png' : '.png';
      map.addSource('routetiles-raster', {
        type: 'raster', tileSize: 256, minzoom: tilejson.minzoom, maxzoom: tilejson.maxzoom,
        tiles: [tileTemplate.replace(/\.mvt(\?|$)/, ending + '$1')],
      });
      map.addLayer({ id: 'routetiles-raster', type: 'raster', source: 'routetiles-raster',
        paint: { 'raster-fade-duration': 0 } }, $('over-labels').checked ? undefined : labelLayer());
    }
    if (map.getLayer('routetiles-raster')) map.setLayoutProperty('routetiles-raster', 'visibility', on ? 'visible' : 'none');
    viewer.raster = on;
  }
  $('draw-raster').addEventListener('change', () => showRaster($('draw-raster').checked));

  // The heat of the positions: style.json's heatmap layer of the density layer, hidden until asked for; the toggle
  // shows where the style has one.
  function heatLayers() {
    return viewer.routeLayers.filter((id) => map.getLayer(id) && map.getLayer(id).type === 'heatmap');
  }
  function showHeat(on) {
    viewer.heat = on;
    for (const id of heatLayers()) map.setLayoutProperty(id, 'visibility', on && !viewer.raster ? 'visible' : 'none');
  }
  $('draw-heat').addEventListener('change', () => showHeat($('draw-heat').checked));
  styleReady.then(() => { $('heat-toggle').hidden = heatLayers().length === 0; });
  if (!config.basemap) $('over-labels').parentElement.hidden = true;

  // The heading marker of live routes' current positions: style.json names the image, and having no sprite, the
  // page draws it: an arrow pointing north, which the layer turns to each position's bearing.
  map.on('styleimagemissing', (e) => {
    if (e.id !== 'routetiles-heading' || map.hasImage(e.id)) return;
    const size = 48;
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const g = canvas.getContext('2d');
    g.beginPath();
    g.moveTo(size / 2, 3);
    g.lineTo(size - 10, size - 8);
    g.lineTo(size / 2, size - 17);
    g.lineTo(10, size - 8);
    g.closePath();
    g.fillStyle = '#f59e0b';
    g.strokeStyle = '#0f172a';
    g.lineWidth = 3;
    g.fill();
    g.stroke();
    map.addImage(e.id, g.getImageData(0, 0, size, size), { pixelRatio: 2 });
  });

  // The selected route is highlighted through feature-state, and drawn again over the other routes (a copy of
  // its layer's casing and line, filtered to its feature id), so that no route later in the list covers it.
  function showSelected(entry, on) {
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

  return { map, styleReady, placeRouteLayers, showSelected, showRaster };
}
