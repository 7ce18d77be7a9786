/// The SQL of a PostgreSQL route store: the routes table other programs write, the change feed, and the trigger
/// that records every change, from RouteTiles or from plain SQL, in the same transaction.
///
/// `PostgresRouteStore` runs `setup` at start-up; it is idempotent (`IF NOT EXISTS`, `CREATE OR REPLACE`), and
/// Docs/FORMATS.md prints it for the default names to run by hand.
///
/// Schema 5: a route's tail is its append rows in the feed newer than its version (schema 4's `<table>_tails` is
/// folded into the lines and dropped), a trigger keeps those rows through a prune of the feed, and
/// `<table>_changes_pruned` records what a prune deleted. Schema 6 keeps times as the lines' M and beside the feed's
/// appended points; schema 7 adds `trimmed`.
package struct PostgresRouteSchema: Sendable {
    package let schema: String
    package let table: String

    package init(schema: String = "public", table: String = "routes") {
        self.schema = schema
        self.table = table
    }

    /// `"schema"."table"`, quoted.
    package var routes: String { Self.quote(schema) + "." + Self.quote(table) }
    package var changes: String { Self.quote(schema) + "." + Self.quote(table + "_changes") }
    /// The imports from files (`RouteImportRecord`): what content each file held, and the version it left.
    package var imports: String { Self.quote(schema) + "." + Self.quote(table + "_imports") }
    /// Schema 4's table of the positions appended to each route since its line was last written; schema 5 folds it
    /// into the lines and drops it (a tail is now the feed's append rows newer than the route's version).
    var legacyTails: String { Self.quote(schema) + "." + Self.quote(table + "_tails") }
    /// `extend(line, flat)`: the line with the positions of a flat longitude, latitude array added to its last part.
    package var extendFunction: String { Self.quote(schema) + "." + Self.quote(table + "_extend") }
    var keepTailsFunction: String { Self.quote(schema) + "." + Self.quote(table + "_keep_tails") }
    var keepTailsTrigger: String { Self.quote(table + "_keep_tails") }
    /// One row: the newest sequence number a prune deleted (`through`). A reader that has read less than that may
    /// have missed changes and loads everything again; holes alone cannot tell, since a rolled-back writer leaves
    /// one and a prune keeps the rows still in a tail.
    package var pruned: String { Self.quote(schema) + "." + Self.quote(table + "_changes_pruned") }
    var notePruneFunction: String { Self.quote(schema) + "." + Self.quote(table + "_note_prune") }
    var notePruneTrigger: String { Self.quote(table + "_note_prune") }
    var truncateChangesTrigger: String { Self.quote(table + "_changes_refuse_truncate") }
    var sequence: String { Self.quote(schema) + "." + Self.quote(table + "_changes_seq") }
    var function: String { Self.quote(schema) + "." + Self.quote(table + "_record_change") }
    var trigger: String { Self.quote(table + "_record_change") }
    var lockFunction: String { Self.quote(schema) + "." + Self.quote(table + "_lock_writers") }
    var lockTrigger: String { Self.quote(table + "_lock_writers") }
    var truncateFunction: String { Self.quote(schema) + "." + Self.quote(table + "_refuse_truncate") }
    var truncateTrigger: String { Self.quote(table + "_refuse_truncate") }

    /// The version of what `setupStatements` create, written as the comment of the changes table: a server that
    /// finds it there runs no DDL, so that a role that may only read and write the tables can run servers once
    /// an owner has set the store up.
    package static let version = 7
    package var versionComment: String { "RouteTiles route store, schema \(Self.version)" }

    /// The NOTIFY channel every route store uses; the payload names the table (`schema.table`).
    package static let channel = "routetiles_changes"
    /// The payload of this store's notifications.
    package var payload: String { schema + "." + table }

    /// The advisory lock that serialises the writers of this table (transaction-scoped): its two keys.
    var lockKeys: String { "1381258323, hashtext(\(Self.literal("routetiles:" + payload)))" }

    /// An SQL identifier, quoted.
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// An SQL string literal.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Creates what is missing, one statement each, run in one transaction.
    package var setupStatements: [String] {
        [
            """
            CREATE EXTENSION IF NOT EXISTS postgis
            """,
            """
            CREATE SCHEMA IF NOT EXISTS \(Self.quote(schema))
            """,
            """
            CREATE TABLE IF NOT EXISTS \(routes) (
                id text PRIMARY KEY,
                properties jsonb NOT NULL DEFAULT '{}'::jsonb,
                geom geometry NOT NULL CONSTRAINT routes_geom_srid CHECK (ST_SRID(geom) = 4326),
                layer text,
                kind text CHECK (kind IN ('line', 'point')),
                geodesic boolean NOT NULL DEFAULT false,
                version bigint NOT NULL DEFAULT 0,
                created_seq bigint NOT NULL DEFAULT 0,
                fixed_at timestamptz,
                trimmed bigint NOT NULL DEFAULT 0
            )
            """,
            """
            ALTER TABLE \(routes) ADD COLUMN IF NOT EXISTS fixed_at timestamptz
            """,
            // Schema 7: how many positions retention trimmed from the start of the line (`Route.trimmed`), which
            // places its simplification blocks. Other programs may leave it as it is.
            """
            ALTER TABLE \(routes) ADD COLUMN IF NOT EXISTS trimmed bigint NOT NULL DEFAULT 0
            """,
            // Schema 6: a route's times are its geometry's M (Unix seconds), which `geometry(Geometry, 4326)` refuses
            // ("Geometry has M dimension but column does not"). The column takes any geometry of SRID 4326 instead:
            // dropping a type modifier changes the catalog only, not the rows.
            """
            DO $routetiles$ BEGIN
                IF (SELECT atttypmod FROM pg_attribute
                    WHERE attrelid = \(Self.literal(routes))::regclass AND attname = 'geom') <> -1 THEN
                    ALTER TABLE \(routes) ALTER COLUMN geom TYPE geometry;
                    ALTER TABLE \(routes) ADD CONSTRAINT routes_geom_srid CHECK (ST_SRID(geom) = 4326);
                END IF;
            END $routetiles$
            """,
            // Lines out of the row: PostGIS keeps a geometry in its row (storage MAIN) as long as the row fits a
            // page, and an UPDATE of any other column then writes the whole geometry again: an append, which sets
            // `version` and `fixed_at`, wrote about 8 kB of WAL for a 500-position track. Stored EXTERNAL, a line
            // of more than about 2 kB sits in the TOAST table, which such an UPDATE does not touch. Rows written
            // before keep their place until their geometry is written again (a fold, a put).
            """
            DO $routetiles$ BEGIN
                IF (SELECT attstorage FROM pg_attribute
                    WHERE attrelid = \(Self.literal(routes))::regclass AND attname = 'geom') <> 'e' THEN
                    ALTER TABLE \(routes) ALTER COLUMN geom SET STORAGE EXTERNAL;
                END IF;
            END $routetiles$
            """,
            """
            CREATE TABLE IF NOT EXISTS \(changes) (
                seq bigint PRIMARY KEY,
                route_id text NOT NULL,
                op text NOT NULL CHECK (op IN ('insert', 'update', 'delete', 'append')),
                base_version bigint,
                points double precision[],
                changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """,
            // Schema 6: the times of an append's points (Unix seconds, one per point) when its route has times.
            """
            ALTER TABLE \(changes) ADD COLUMN IF NOT EXISTS times double precision[]
            """,
            """
            CREATE TABLE IF NOT EXISTS \(imports) (
                id text PRIMARY KEY,
                content_hash text NOT NULL,
                version bigint NOT NULL,
                imported_at timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """,
            """
            CREATE OR REPLACE FUNCTION \(extendFunction)(line geometry, flat double precision[]) RETURNS geometry
            LANGUAGE sql IMMUTABLE AS $routetiles$
                SELECT CASE
                    WHEN cardinality(flat) IS NULL OR cardinality(flat) < 2 THEN line
                    WHEN GeometryType(line) = 'LINESTRING' THEN ST_MakeLine(ARRAY[line, a.points])
                    ELSE ST_Collect(ARRAY(
                        SELECT CASE WHEN d.path[1] = ST_NumGeometries(line) THEN ST_MakeLine(ARRAY[d.geom, a.points]) ELSE d.geom END
                        FROM ST_Dump(line) d ORDER BY d.path[1]))
                END
                FROM (SELECT ST_SetSRID(ST_Collect(ARRAY(
                        SELECT ST_MakePoint(flat[i], flat[i + 1]) FROM generate_series(1, cardinality(flat) - 1, 2) AS i ORDER BY i)),
                    ST_SRID(line)) AS points) a
            $routetiles$
            """,
            // A line with times (M) extended by points and their times; without times, as the function above.
            """
            CREATE OR REPLACE FUNCTION \(extendFunction)(line geometry, flat double precision[], times double precision[])
            RETURNS geometry LANGUAGE sql IMMUTABLE AS $routetiles$
                SELECT CASE
                    WHEN times IS NULL THEN \(extendFunction)(line, flat)
                    WHEN cardinality(flat) IS NULL OR cardinality(flat) < 2 THEN line
                    WHEN ST_GeometryType(line) = 'ST_LineString' THEN ST_MakeLine(ARRAY[line, a.points])
                    ELSE ST_Collect(ARRAY(
                        SELECT CASE WHEN d.path[1] = ST_NumGeometries(line) THEN ST_MakeLine(ARRAY[d.geom, a.points]) ELSE d.geom END
                        FROM ST_Dump(line) d ORDER BY d.path[1]))
                END
                FROM (SELECT ST_SetSRID(ST_Collect(ARRAY(
                        SELECT ST_MakePointM(flat[i], flat[i + 1], times[(i + 1) / 2])
                        FROM generate_series(1, cardinality(flat) - 1, 2) AS i ORDER BY i)),
                    ST_SRID(line)) AS points) a
            $routetiles$
            """,
            // Schema 4 kept appended positions in a table of their own: they are written into their lines, and the
            // table dropped. Its versions already counted them (`version` was the last append's), so the routes
            // read the same, and the trigger records nothing (`routetiles.fold`).
            """
            DO $routetiles$ BEGIN
                IF to_regclass(\(Self.literal(legacyTails))) IS NOT NULL THEN
                    PERFORM set_config('routetiles.fold', 'on', true);
                    UPDATE \(routes) r SET geom = \(extendFunction)(r.geom, t.flat)
                    FROM (SELECT t.route_id, array_agg(u.p ORDER BY t.seq, u.o) AS flat FROM \(legacyTails) t
                          CROSS JOIN LATERAL unnest(t.points) WITH ORDINALITY AS u(p, o) GROUP BY t.route_id) t
                    WHERE r.id = t.route_id;
                    PERFORM set_config('routetiles.fold', 'off', true);
                    DROP TABLE \(legacyTails);
                END IF;
            END $routetiles$
            """,
            """
            CREATE SEQUENCE IF NOT EXISTS \(sequence) OWNED BY \(changes).seq
            """,
            """
            CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $routetiles$
            DECLARE
                s bigint;
                created boolean := TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND OLD.id IS DISTINCT FROM NEW.id);
                tail double precision[];
                tail_times double precision[];
                fix timestamptz;
            BEGIN
                -- RouteTiles folding a route's tail into its line: the route reads the same, so nothing is recorded.
                IF TG_OP = 'UPDATE' AND current_setting('routetiles.fold', true) = 'on' THEN
                    RETURN NEW;
                END IF;
                -- One writer at a time, until it commits: sequence numbers commit in order, so a reader that reads
                -- past the newest it sees skips none.
                PERFORM pg_advisory_xact_lock(\(lockKeys));
                -- Another program's UPDATE: the new version leaves the route's tail (its append rows newer than the
                -- row's version) behind. A new line replaces what was appended to the old one; an UPDATE that keeps
                -- the line (properties, layer) has the tail written into it first. RouteTiles' own writes replace
                -- the line whole (`routetiles.own`).
                IF TG_OP = 'UPDATE' AND current_setting('routetiles.own', true) IS DISTINCT FROM 'on' THEN
                    IF NEW.geom IS DISTINCT FROM OLD.geom THEN
                        NEW.fixed_at := NULL;
                    ELSE
                        SELECT array_agg(u.p ORDER BY c.seq, u.o), array_agg(u.t ORDER BY c.seq, u.o) FILTER (WHERE u.t IS NOT NULL),
                            max(c.changed_at) INTO tail, tail_times, fix
                        FROM \(changes) c CROSS JOIN LATERAL unnest(c.points, c.times) WITH ORDINALITY AS u(p, t, o)
                        WHERE c.seq > OLD.version AND c.route_id = OLD.id AND c.op = 'append' AND u.p IS NOT NULL;
                        IF tail IS NOT NULL THEN
                            NEW.geom := \(extendFunction)(OLD.geom, tail, tail_times);
                            NEW.fixed_at := fix;
                        END IF;
                    END IF;
                END IF;
                IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.id IS DISTINCT FROM NEW.id) THEN
                    s := nextval(\(Self.literal(sequence)));
                    INSERT INTO \(changes) (seq, route_id, op) VALUES (s, OLD.id, 'delete');
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    -- A geometry without an SRID takes the table's, as the typed column of schema 5 gave it.
                    IF ST_SRID(NEW.geom) = 0 THEN
                        NEW.geom := ST_SetSRID(NEW.geom, 4326);
                    END IF;
                    s := nextval(\(Self.literal(sequence)));
                    INSERT INTO \(changes) (seq, route_id, op)
                        VALUES (s, NEW.id, CASE WHEN created THEN 'insert' ELSE 'update' END);
                    NEW.version := s;
                    NEW.created_seq := CASE WHEN created THEN s ELSE OLD.created_seq END;
                END IF;
                PERFORM pg_notify(\(Self.literal(Self.channel)), \(Self.literal(payload)));
                IF TG_OP = 'DELETE' THEN
                    RETURN OLD;
                END IF;
                RETURN NEW;
            END
            $routetiles$
            """,
            """
            CREATE OR REPLACE TRIGGER \(trigger) BEFORE INSERT OR UPDATE OR DELETE ON \(routes)
                FOR EACH ROW EXECUTE FUNCTION \(function)()
            """,
            """
            -- The writers' lock, taken before a statement locks any row. A row trigger runs after its row is
            -- locked: a statement that took the lock there could hold a row that RouteTiles, holding the lock,
            -- waits for, and the two would deadlock.
            CREATE OR REPLACE FUNCTION \(lockFunction)() RETURNS trigger LANGUAGE plpgsql AS $routetiles$
            BEGIN
                PERFORM pg_advisory_xact_lock(\(lockKeys));
                RETURN NULL;
            END
            $routetiles$
            """,
            """
            CREATE OR REPLACE TRIGGER \(lockTrigger) BEFORE INSERT OR UPDATE OR DELETE ON \(routes)
                FOR EACH STATEMENT EXECUTE FUNCTION \(lockFunction)()
            """,
            """
            -- TRUNCATE fires no row trigger, so it would empty the table behind the feed's back.
            CREATE OR REPLACE FUNCTION \(truncateFunction)() RETURNS trigger LANGUAGE plpgsql AS $routetiles$
            BEGIN
                RAISE EXCEPTION 'TRUNCATE of % bypasses the RouteTiles change feed; use DELETE', TG_TABLE_NAME;
            END
            $routetiles$
            """,
            """
            CREATE OR REPLACE TRIGGER \(truncateTrigger) BEFORE TRUNCATE ON \(routes)
                FOR EACH STATEMENT EXECUTE FUNCTION \(truncateFunction)()
            """,
            """
            CREATE OR REPLACE TRIGGER \(truncateChangesTrigger) BEFORE TRUNCATE ON \(changes)
                FOR EACH STATEMENT EXECUTE FUNCTION \(truncateFunction)()
            """,
            """
            -- A route's tail is its append rows in the feed newer than its version: a prune of old changes
            -- (`DELETE FROM <table>_changes WHERE changed_at < …`) leaves those rows, the route needs them.
            CREATE OR REPLACE FUNCTION \(keepTailsFunction)() RETURNS trigger LANGUAGE plpgsql AS $routetiles$
            BEGIN
                IF EXISTS (SELECT FROM \(routes) WHERE id = OLD.route_id AND version < OLD.seq) THEN
                    RETURN NULL;
                END IF;
                RETURN OLD;
            END
            $routetiles$
            """,
            """
            CREATE OR REPLACE TRIGGER \(keepTailsTrigger) BEFORE DELETE ON \(changes)
                FOR EACH ROW WHEN (OLD.op = 'append') EXECUTE FUNCTION \(keepTailsFunction)()
            """,
            """
            CREATE TABLE IF NOT EXISTS \(pruned) (through bigint NOT NULL)
            """,
            """
            INSERT INTO \(pruned) (through) SELECT 0 WHERE NOT EXISTS (SELECT FROM \(pruned))
            """,
            """
            CREATE OR REPLACE FUNCTION \(notePruneFunction)() RETURNS trigger LANGUAGE plpgsql AS $routetiles$
            BEGIN
                UPDATE \(pruned) SET through = d.through FROM (SELECT MAX(seq) AS through FROM deleted) d
                WHERE d.through > \(pruned).through;
                RETURN NULL;
            END
            $routetiles$
            """,
            """
            CREATE OR REPLACE TRIGGER \(notePruneTrigger) AFTER DELETE ON \(changes)
                REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION \(notePruneFunction)()
            """,
            """
            COMMENT ON TABLE \(changes) IS \(Self.literal(versionComment))
            """,
        ]
    }

    /// The same as one script, for `psql -f`.
    package var setupScript: String { setupStatements.map { $0 + ";\n" }.joined() }
}
