#!/usr/bin/env python3
"""WAL bytes per fix for four layouts of a SQLite store's appended positions (issue 22): the store's schema 3 as it
is, and three alternatives, so that a change of schema is chosen by measurement. Not the store's code: the same
tables and statements, driven from Python's sqlite3 (the system SQLite), on tmpfs, without checkpoints.

    Benchmarks/scripts/tail_layouts.py [routes]        (default 10,000 routes of 500 positions)

Layouts:
  current        route_changes (AUTOINCREMENT, points) + route_tails (points again) + index (route_id, seq)
  noindex        the same without the index on route_tails
  changes-only   the append rows of route_changes are the tails: points stored once, no AUTOINCREMENT, no index
  changes+index  changes-only with a partial index (route_id, seq) over the append rows

Each fix appends one position to a random route; commits of 1 and of 100 fixes, after warm-up commits, so that the
tables are past their first pages as on a running server.
"""
import os, random, sqlite3, struct, sys, time

def run(layout, per_commit, commits, warm, routes):
    path = '/dev/shm/routetiles-tail-layouts.db'
    for suffix in ('', '-wal', '-shm'):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute('PRAGMA journal_mode=WAL')
    db.execute('PRAGMA wal_autocheckpoint=0')
    separate_tails = layout in ('current', 'noindex')
    auto = 'AUTOINCREMENT' if separate_tails else ''
    db.execute('CREATE TABLE routes (id TEXT PRIMARY KEY, geom BLOB NOT NULL, version INTEGER NOT NULL)')
    db.execute(f'CREATE TABLE route_changes (seq INTEGER PRIMARY KEY {auto}, route_id TEXT NOT NULL, op TEXT NOT NULL,'
               ' base_version INTEGER, points BLOB, changed_at REAL NOT NULL)')
    if separate_tails:
        db.execute('CREATE TABLE route_tails (seq INTEGER PRIMARY KEY, route_id TEXT NOT NULL, points BLOB NOT NULL,'
                   ' fixed_at REAL NOT NULL)')
        if layout == 'current':
            db.execute('CREATE INDEX route_tails_route ON route_tails (route_id, seq)')
    if layout == 'changes+index':
        db.execute("CREATE INDEX route_changes_tail ON route_changes (route_id, seq) WHERE op = 'append'")
    line = os.urandom(500 * 16)
    db.execute('BEGIN')
    for i in range(routes):
        db.execute('INSERT INTO routes VALUES (?, ?, 0)', (f'veh-{i}', line))
    db.execute('COMMIT')
    db.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    rnd = random.Random(1)

    def commit(n):
        db.execute('BEGIN')
        for _ in range(n):
            key = f'veh-{rnd.randrange(routes)}'
            # A one-position MultiPoint in WKB, as the store writes an append.
            wkb = (b'\x01\x04\x00\x00\x00\x01\x00\x00\x00\x01\x01\x00\x00\x00'
                   + struct.pack('<dd', rnd.uniform(8.4, 8.6), rnd.uniform(47.3, 47.4)))
            now = time.time()
            cur = db.execute('INSERT INTO route_changes (route_id, op, base_version, points, changed_at)'
                             ' VALUES (?, ?, ?, ?, ?)', (key, 'append', 0, wkb, now))
            if separate_tails:
                db.execute('INSERT INTO route_tails (route_id, seq, points, fixed_at) VALUES (?, ?, ?, ?)',
                           (key, cur.lastrowid, wkb, now))
        db.execute('COMMIT')

    for _ in range(warm):
        commit(per_commit)
    db.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    for _ in range(commits):
        commit(per_commit)
    wal = os.path.getsize(path + '-wal')
    db.close()
    for suffix in ('', '-wal', '-shm'):
        os.remove(path + suffix) if os.path.exists(path + suffix) else None
    return wal / (commits * per_commit)

routes = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
print(f'{routes} routes of 500 positions; WAL bytes per fix (before checkpoints, which write each page once more)')
for per_commit, commits, warm in ((1, 2000, 2000), (100, 300, 100)):
    for layout in ('current', 'noindex', 'changes-only', 'changes+index'):
        print(f'{per_commit:>4} fixes a commit  {layout:<14} {run(layout, per_commit, commits, warm, routes):8.0f}')
