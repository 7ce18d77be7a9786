// The viewer: the routes over a basemap in MapLibre GL JS, a list of the routes, live updates from `events` and
// playback along a route. Plain JavaScript, no build step, no framework, so that it reads as the reference for
// using the tiles in a map app. The server serves this folder's scripts as one `viewer.js`, in the order
// format.js, credential.js, map.js, timewindow.js, playback.js, list.js, live.js, main.js, inside one function
// (ViewerFiles.swift).
//
// `window.map` is the map and `window.routetiles` the viewer's state and actions, for tools and tests.
/* global createCredential, createMapView, createPlayback, createRouteList, createLiveUpdates, createTimeWindow */

async function startViewer() {
  const config = JSON.parse(document.getElementById('routetiles-config').textContent);
  const $ = (id) => document.getElementById(id);
  const viewer = {
    routes: [], byId: new Map(), byFid: new Map(), shown: [], selected: null,
    tileVersion: new Map(), allVersion: 0, generation: null, eventId: null, events: [],
    routeLayers: [], source: 'routes', basemapLoaded: false, errors: [],
  };
  window.routetiles = viewer;
  window.tileErrors = viewer.errors;
  viewer.credential = createCredential();

  // A private server answers 401 without a credential (or with one that expired): ask for one.
  const answer = await viewer.credential.fetch('tiles.json');
  if (answer.status === 401 || answer.status === 403) {
    const problem = await answer.json().catch(() => ({}));
    if (viewer.credential.token) viewer.credential.forget();
    viewer.credential.ask(problem.error || 'This server\'s routes are private.');
    return;
  }
  const tilejson = await answer.json();
  const mapView = createMapView(config, viewer, tilejson);
  const playback = createPlayback(viewer, mapView);
  const list = createRouteList(viewer, mapView, playback);
  const live = createLiveUpdates(viewer, mapView, list, playback);

  await mapView.styleReady;
  createTimeWindow(viewer, mapView, tilejson);
  viewer.ready = true;
  if (config.live) {
    // Read now, and again once `events` has said where it starts, so that no change falls between the two.
    list.refreshRoutes(null);
    live.listen();
  } else {
    $('filter').hidden = true;
    $('list').hidden = true;
    $('count').textContent = 'A finished tileset: click a route for its properties.';
    live.status('static', '');
  }
}

startViewer();
