// Live updates over `events`.
//
// Each change brings the tiles it lists, which are fetched again (their URLs carry the generation, past the
// browser's cache; see `transformRequest` in map.js), and the routes it names, which are read again for the list.
// A reconnect sends `Last-Event-ID`; a `resync` answer refreshes what it names, or everything. A reader limited to
// some groups gets no generation or sequence (they count every group's changes) and opaque event ids: the event's
// id then versions the tiles it names.
/* exported createLiveUpdates */

function createLiveUpdates(viewer, mapView, list, playback) {
  const $ = (id) => document.getElementById(id);
  const { map } = mapView;

  // The routes' vector source, and the raster one when the PNG tiles have been shown (map.js, showRaster).
  function reloadTiles(keys) {
    for (const name of [viewer.source, 'routetiles-raster']) if (map.getSource(name)) reloadSource(name, keys);
  }

  function reloadSource(name, keys) {
    const cache = map.style && map.style.sourceCaches && map.style.sourceCaches[name];
    if (!cache || typeof cache._reloadTile !== 'function' || !cache._tiles) {
      const source = map.getSource(name);
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
    const stream = new EventSource(viewer.credential.eventsURL('events'));
    viewer.stream = stream;
    stream.onopen = () => status('live', 'live');
    stream.onerror = () => status(stream.readyState === EventSource.CLOSED ? 'offline' : 'reconnecting', 'down');
    // The generation where the server gives one, else the event's (opaque) id.
    const versionOf = (e, data) => (data.generation === undefined ? e.lastEventId : data.generation);
    // The sequence where the server gives one, else the event's (opaque) id.
    const idOf = (e, data) => (data.sequence === undefined ? e.lastEventId : data.sequence);
    stream.addEventListener('hello', (e) => {
      const data = JSON.parse(e.data);
      viewer.events.push({ type: 'hello', sequence: data.sequence });
      const first = viewer.eventId === null;
      viewer.eventId = idOf(e, data);
      viewer.generation = versionOf(e, data);
      if (first) list.refreshRoutes(null);
    });
    stream.addEventListener('resync', (e) => {
      const data = JSON.parse(e.data);
      viewer.events.push({ type: 'resync', sequence: data.sequence });
      viewer.eventId = idOf(e, data);
      viewer.generation = versionOf(e, data);
      viewer.allVersion = `${idOf(e, data)}r`;
      viewer.tileVersion.clear();
      reloadTiles(null);
      list.refreshRoutes(data.ids);
    });
    stream.addEventListener('change', (e) => {
      const data = JSON.parse(e.data);
      viewer.events.push({ type: 'change', sequence: data.sequence, ids: data.ids });
      viewer.eventId = idOf(e, data);
      viewer.generation = versionOf(e, data);
      if (viewer.tileVersion.size > 50000) {
        viewer.tileVersion.clear();
        viewer.allVersion = viewer.generation;
        reloadTiles(null);
      } else {
        for (const t of data.tiles) viewer.tileVersion.set(t, viewer.generation);
        reloadTiles(new Set(data.tiles));
      }
      list.refreshRoutes(data.ids).then(() => playback.routesChanged(data.ids));
    });
  }

  return { listen, status };
}
