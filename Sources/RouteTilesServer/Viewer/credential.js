// Private servers (`serve --read token`): the viewer sends a credential with each request to this server.
//
// The credential comes from the page's fragment (`#access_token=…`, which browsers never send to a server and which
// the viewer removes from the address bar at once, so that a copied link does not carry it), else from this tab's
// session storage, else from the form the viewer shows when the server answers 401. Requests to other origins
// (the basemap) never carry it. Tiles come with signed URLs from `tiles.json` and `style.json`; `events` takes
// the token as `access_token`, since EventSource cannot set headers.
/* exported createCredential */

function createCredential() {
  const key = 'routetiles-access-token';
  let token = null;
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get('access_token')) {
    token = fragment.get('access_token');
    sessionStorage.setItem(key, token);
    fragment.delete('access_token');
    const rest = fragment.toString();
    history.replaceState(null, '', location.pathname + location.search + (rest ? '#' + rest : ''));
  } else {
    token = sessionStorage.getItem(key);
  }

  const sameOrigin = (url) => new URL(url, location.href).origin === location.origin;
  const headers = (extra) => Object.assign({}, extra || {}, token ? { Authorization: 'Bearer ' + token } : {});

  return {
    get token() { return token; },
    // `fetch` with the credential, for this server's URLs.
    fetch(url, options) {
      const init = Object.assign({}, options || {});
      if (sameOrigin(url)) init.headers = headers(init.headers);
      return fetch(url, init);
    },
    // MapLibre's `transformRequest` part: the header on this server's requests.
    headersFor(url) { return token && sameOrigin(url) ? headers() : undefined; },
    // The URL of `events`, with the token as a parameter.
    eventsURL(path) { return token ? path + '?access_token=' + encodeURIComponent(token) : path; },
    // Asks for a token (after a 401), keeps it for this tab, and starts again.
    ask(message) {
      const form = document.getElementById('credential');
      document.getElementById('credential-message').textContent = message || '';
      form.hidden = false;
      form.onsubmit = (event) => {
        event.preventDefault();
        const given = document.getElementById('credential-token').value.trim();
        if (!given) return;
        sessionStorage.setItem(key, given);
        location.reload();
      };
    },
    forget() { sessionStorage.removeItem(key); token = null; },
  };
}
