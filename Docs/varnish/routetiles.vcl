vcl 4.1;

# Varnish in front of `routetiles serve` (Docs/OPERATIONS.md, "Behind a cache").
#
# - Tiles are cached by path alone (not by Host), so that a purge sent by a server to the cache's own address
#   reaches the object clients fetched under the public name. `.pbf` is stored as `.mvt`. A query string makes
#   another object (the viewer adds ?v=GENERATION to fetch a changed tile past every cache); a purge removes the
#   tile without one, and a ban removes them all. Raster tiles (.png, @2x.png, @3x.png) are stored as variants of their
#   vector tile's object (the same hash, told apart by x-routetiles-format through Vary), so that the purge of a
#   vector tile's path, the only one `serve --purge` sends, removes its PNGs too. Window tiles (?from=…&to=…) are passed to the origin, which
#   caches them and drops them with their tile: no purge could name every window. OGC API tiles
#   (/ogc/…/WebMercatorQuad/{z}/{row}/{col}) are asked for and stored as their /tiles/ twin, so one purge covers both;
#   WorldCRS84Quad tiles (/ogc/…/WorldCRS84Quad/…), which no purge names, go to the origin.
# - Private servers (`serve --read token`): a tile asked for with a credential (Authorization, ?access_token) is
#   passed to the origin, uncached. A signed tile URL is cached under its whole URL; a purge does not reach it (it
#   names the path alone), so it lives its max-age (5 s) and is then revalidated with the origin, which checks its
#   signature again (Docs/OPERATIONS.md, "Access control").
# - PURGE (one tile, from `serve --purge`) and BAN (every tile under a path, the purger's fallback when its queue
#   overflows) are accepted from the `purgers` ACL only: list the RouteTiles servers there.
# - A GET with `Cache-Control: no-cache` from a purger fetches the tile again from the origin and replaces the
#   cached one (`seed --follow` re-warms purged tiles so); from anyone else that header is ignored.
# - Objects are kept for an hour past their lifetime (beresp.keep), so that Varnish revalidates them with
#   If-None-Match (answered 304 when the tile is unchanged) rather than fetching them whole.
#
# Change the backend to your server, and the ACL to your servers' addresses.

backend default {
    .host = "127.0.0.1";
    .port = "8080";
}

acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(405, "Purges are not allowed from this address"));
        }
        set req.url = regsub(req.url, "\?.*$", "");
        set req.url = regsub(req.url, "\.pbf$", ".mvt");
        return (purge);
    }
    if (req.method == "BAN") {
        if (client.ip !~ purgers) {
            return (synth(405, "Bans are not allowed from this address"));
        }
        ban("obj.http.x-routetiles-url ~ ^" + regsub(req.url, "\?.*$", ""));
        return (synth(200, "Banned"));
    }
    if (req.url ~ "/ogc/(collections/routes/)?(map/)?tiles/WorldCRS84Quad/") {
        # A WorldCRS84Quad tile (EPSG:4326) covers no XYZ tile's area, so no purge names it: the origin cuts it and
        # keeps it for the routes' generation.
        return (pass);
    }
    if (req.url ~ "/ogc/(collections/routes/)?(map/)?tiles/WebMercatorQuad/[0-9]+/[0-9]+/[0-9]+(\?.*)?$") {
        # An OGC API tile is the XYZ tile of the same place ({tileMatrix}/{tileRow}/{tileCol} is {z}/{y}/{x}):
        # fetched and stored under its /tiles/ URL, so that the purge of that path removes it too.
        if (req.url ~ "/map/tiles/") {
            set req.url = regsub(req.url, "^(.*)/ogc/(collections/routes/)?map/tiles/WebMercatorQuad/([0-9]+)/([0-9]+)/([0-9]+)", "\1/tiles/\3/\5/\4.png");
        } else {
            set req.url = regsub(req.url, "^(.*)/ogc/(collections/routes/)?tiles/WebMercatorQuad/([0-9]+)/([0-9]+)/([0-9]+)", "\1/tiles/\3/\5/\4.mvt");
        }
    }
    if (req.url ~ "/tiles/[0-9]+/[0-9]+/[0-9]+(\.(mvt|pbf)|(@[23]x)?\.png)\?(.*&)?(from|to)=") {
        # A window tile: a purge names a tile's path, never its windows, so these go to the origin, whose window
        # cache drops them with the tile (Docs/OPERATIONS.md, "Behind a cache").
        return (pass);
    }
    if (req.url ~ "/tiles/[0-9]+/[0-9]+/[0-9]+(\.(mvt|pbf)|(@[23]x)?\.png)(\?.*)?$") {
        if (req.http.Authorization || req.url ~ "\?(.*&)?access_token=") {
            # A tile read with a credential (`serve --read token`): the reader's own, answered by the origin, which
            # verifies it and cuts the reader's groups. Never cached here (the origin marks it private), never
            # served to another. Signed tile URLs (?exp=…&g=…&sig=…) carry no credential and are cached by their
            # whole URL: every reader of a scope shares one per hour.
            return (pass);
        }
        set req.url = regsub(req.url, "\.pbf(\?|$)", ".mvt\1");
        # Which representation of the tile's object: mvt, png, png@2x or png@3x (see vcl_hash).
        if (req.url ~ "\.png(\?|$)") {
            set req.http.x-routetiles-format = regsub(req.url, "^.*/[0-9]+(@[23]x)?\.png.*$", "png\1");
        } else {
            set req.http.x-routetiles-format = "mvt";
        }
        if (req.http.Cache-Control ~ "no-cache" && client.ip ~ purgers) {
            set req.hash_always_miss = true;
        }
        # A cookie does not change a tile.
        unset req.http.Cookie;
    }
}

sub vcl_hash {
    if (req.url ~ "/tiles/") {
        # A raster tile hashes as its vector tile: one object, whose variants are the formats (Vary).
        hash_data(regsub(req.url, "(@[23]x)?\.png(\?|$)", ".mvt\2"));
        return (lookup);
    }
}

sub vcl_backend_response {
    # What a BAN matches on: the URL, kept on the object (and removed before delivery).
    set beresp.http.x-routetiles-url = bereq.url;
    if (bereq.url ~ "/tiles/") {
        set beresp.keep = 1h;
        if (beresp.http.Vary) {
            set beresp.http.Vary = beresp.http.Vary + ", x-routetiles-format";
        } else {
            set beresp.http.Vary = "x-routetiles-format";
        }
    }
}

sub vcl_deliver {
    unset resp.http.x-routetiles-url;
    if (resp.http.Vary) {
        set resp.http.Vary = regsub(resp.http.Vary, "(, )?x-routetiles-format", "");
        if (resp.http.Vary == "") {
            unset resp.http.Vary;
        }
    }
}
