// The list of routes, the selected route and its details.
//
// The list (`GET /routes`) renders only its visible rows, so 10,000 routes scroll and filter at once. A route with
// a `last_time` says when it was last seen. Selecting a
// route sets `feature-state` `selected` on its feature id, which the style draws wider with an amber casing.
/* global formatLength, formatDuration, formatAge */
/* exported createRouteList */

function createRouteList(viewer, mapView, playback) {
  const $ = (id) => document.getElementById(id);
  const { map, showSelected } = mapView;
  const ROW = 44;
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
      const seen = r.last_time ? `seen ${formatAge(r.last_time)}` : '';
      meta.textContent = [formatLength(r.length_m), formatDuration(r.duration_s), seen, r.name ? `id ${r.id}` : '']
        .filter(Boolean).join(' · ');
      if (r.last_time) meta.title = `last seen ${r.last_time}`;
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
    const response = await viewer.credential.fetch('routes' + query, { cache: 'no-store' });
    if (!response.ok) return null;
    return (await response.json()).routes;
  }

  // Reads the routes that `ids` names again (all of them when null or more than 500) and updates the list.
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

  function select(entry, options = {}) {
    if (viewer.selected && (!entry || viewer.selected.id !== entry.id)) {
      showSelected(viewer.selected, false);
      playback.stop(true);
    }
    viewer.selected = entry || null;
    renderRows();
    if (!entry) { $('details').hidden = true; return; }
    showSelected(entry, true);
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
      formatDuration(entry.duration_s), `${entry.points} points`,
      entry.last_time ? `last seen ${formatAge(entry.last_time)} (${entry.last_time})` : ''].filter(Boolean).join(' · ');
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

  // A click on a line selects its route in the list; on anything else, it shows the feature's properties.
  map.on('click', (e) => {
    const layers = viewer.routeLayers.filter((id) => map.getLayer(id)
      && (id.endsWith('-line') || id.endsWith('-points') || id.endsWith('-dot')));
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

  return { refreshRoutes };
}
