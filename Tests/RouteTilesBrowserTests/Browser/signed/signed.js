// A page as a site that embeds a private RouteTiles map writes it: the style is fetched once with the reader's
// token in its URL (no header is set anywhere), and every tile then comes by the signed URLs the style names.
// What happened is kept in window.check for signed_style_check.py.
/* global maplibregl */
'use strict';

window.check = { loaded: [], failed: [] };
const token = decodeURIComponent(location.hash.slice(1));
const map = new maplibregl.Map({
  container: 'map',
  style: `${location.origin}/style.json?access_token=${encodeURIComponent(token)}`,
  center: [2.3525, 48.8512],
  zoom: 14,
});
window.map = map;
map.on('sourcedata', (event) => {
  if (event.tile) {
    window.check.loaded.push({ source: event.sourceId, tile: String(event.tile.tileID?.canonical ?? '') });
  }
});
map.on('error', (event) => {
  const error = event.error || {};
  window.check.failed.push({ source: event.sourceId || null, status: error.status || null, url: error.url || null,
    message: String(error.message || error) });
});
