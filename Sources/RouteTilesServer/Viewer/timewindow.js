// The time window and speed colouring, for routes with times.
//
// The tiles of a route with times are cut in time pieces whose features carry `start_t` and `end_t` (Unix
// seconds), and the position layer's points `fix_time` (Docs/FORMATS.md, "Time in the tiles"). A preset (the last
// 15 minutes, the last hour, today) is a filter on those on every route layer, set again every 30 s as the clock
// moves; a custom range asks the server for window tiles (`?from=…&to=…`), whose lines start and end exactly at
// the range's bounds. While a window is set, routes without times are hidden (window tiles leave them out), and
// lines fade with age: a piece that ended at the window's start is drawn at a quarter of its opacity, one that
// ends at its end at full. With `--speed-classes`, the tiles' `speed` (km/h) colours the lines when the box is
// ticked.
/* exported createTimeWindow */

function createTimeWindow(viewer, mapView, tilejson) {
  const $ = (id) => document.getElementById(id);
  const { map } = mapView;
  const tileTemplate = (tilejson.tiles && tilejson.tiles[0]) || '';
  const fieldsOf = new Map((tilejson.vector_layers || []).map((l) => [l.id, new Set(Object.keys(l.fields || {}))]));
  const has = (field) => [...fieldsOf.values()].some((f) => f.has(field));
  const state = { preset: 'all', from: null, to: null, speed: false };
  viewer.timeWindow = state;
  // Each layer's filter and paint as the style gave them, before any window.
  const original = new Map();

  function routeLayers() {
    return viewer.routeLayers.map((id) => map.getLayer(id)).filter(Boolean);
  }

  function originalOf(layer) {
    if (!original.has(layer.id)) {
      original.set(layer.id, {
        filter: map.getFilter(layer.id),
        opacity: layer.type === 'line' ? map.getPaintProperty(layer.id, 'line-opacity') : undefined,
        color: layer.type === 'line' ? map.getPaintProperty(layer.id, 'line-color') : undefined,
      });
    }
    return original.get(layer.id);
  }

  // The window in Unix seconds, [from, to] (to null: up to now); null for all time. Presets are floored to the
  // minute, so that the filters change once a minute at most.
  function range() {
    const now = Math.floor(Date.now() / 60000) * 60;
    switch (state.preset) {
    case '15m': return [now - 900, null];
    case '1h': return [now - 3600, null];
    case 'today': {
      const midnight = new Date();
      midnight.setHours(0, 0, 0, 0);
      return [midnight.getTime() / 1000, null];
    }
    case 'custom': return state.from != null && state.to != null ? [state.from, state.to] : null;
    default: return null;
    }
  }

  function timeFilter(layer, window) {
    // A style layer of the map names its source layer `sourceLayer`.
    const fields = fieldsOf.get(layer.sourceLayer || layer['source-layer']) || new Set();
    const [from, to] = window;
    if (fields.has('fix_time')) {
      const f = ['all', ['has', 'fix_time'], ['>=', ['get', 'fix_time'], from]];
      if (to != null) f.push(['<=', ['get', 'fix_time'], to]);
      return f;
    }
    if (!fields.has('end_t')) return false;
    const f = ['all', ['has', 'end_t'], ['>', ['get', 'end_t'], from]];
    if (to != null) f.push(['<', ['get', 'start_t'], to]);
    return f;
  }

  function apply() {
    const window = range();
    const end = window ? (window[1] != null ? window[1] : Date.now() / 1000) : 0;
    for (const layer of routeLayers()) {
      const base = originalOf(layer);
      let filter = base.filter || null;
      if (window) {
        const time = timeFilter(layer, window);
        filter = base.filter ? ['all', base.filter, time] : time;
      }
      map.setFilter(layer.id, filter);
      if (layer.type !== 'line') continue;
      let opacity = base.opacity;
      if (window && end > window[0]) {
        const fade = ['interpolate', ['linear'], ['coalesce', ['get', 'end_t'], end], window[0], 0.25, end, 1];
        opacity = base.opacity == null ? fade : ['*', base.opacity, fade];
      }
      map.setPaintProperty(layer.id, 'line-opacity', opacity);
      const isLine = layer.id.endsWith('-line') || layer.id === 'routetiles-selected-line';
      const speed = ['step', ['coalesce', ['get', 'speed'], -1], '#94a3b8',
        0, '#dc2626', 10, '#f97316', 30, '#eab308', 50, '#22c55e', 80, '#0ea5e9', 120, '#6366f1'];
      map.setPaintProperty(layer.id, 'line-color', state.speed && isLine ? speed : base.color);
    }
    // A custom range is drawn from window tiles, exact at its bounds; otherwise the default tiles.
    const source = map.getSource(viewer.source);
    if (source && source.setTiles && tileTemplate) {
      const custom = state.preset === 'custom' && window;
      const joiner = tileTemplate.includes('?') ? '&' : '?';
      const url = custom ? `${tileTemplate}${joiner}from=${iso(window[0])}&to=${iso(window[1])}` : tileTemplate;
      if (!source.tiles || source.tiles[0] !== url) source.setTiles([url]);
    }
    viewer.timeWindowApplied = (viewer.timeWindowApplied || 0) + 1;
  }

  function iso(seconds) {
    return new Date(seconds * 1000).toISOString();
  }

  // The datetime-local inputs hold local times without a zone; Date reads them as such.
  function readCustom() {
    const from = Date.parse($('window-from').value), to = Date.parse($('window-to').value);
    state.from = Number.isFinite(from) ? from / 1000 : null;
    state.to = Number.isFinite(to) ? to / 1000 : null;
  }

  function setWindow(preset, from, to) {
    state.preset = preset;
    if (preset === 'custom' && from != null && to != null) {
      state.from = from;
      state.to = to;
    }
    $('window').value = preset;
    $('window-custom').hidden = preset !== 'custom';
    apply();
  }
  viewer.setTimeWindow = setWindow;
  viewer.setSpeedColours = (on) => { state.speed = on; $('speed-colours').checked = on; apply(); };

  if (!has('start_t') && !has('fix_time')) {
    $('time-controls').hidden = true;
    return { apply };
  }
  $('speed-toggle').hidden = !has('speed');
  $('window').addEventListener('change', () => {
    if ($('window').value === 'custom') readCustom();
    setWindow($('window').value);
  });
  for (const id of ['window-from', 'window-to']) {
    $(id).addEventListener('change', () => { readCustom(); apply(); });
  }
  $('speed-colours').addEventListener('change', () => { state.speed = $('speed-colours').checked; apply(); });
  // Presets follow the clock.
  setInterval(() => { if (state.preset !== 'all' && state.preset !== 'custom') apply(); }, 30000);
  return { apply };
}
