/// The SQL of a PostgreSQL route store: the routes table other programs write, the change feed, and the trigger
/// that records every change, from RouteTiles or from plain SQL, in the same transaction.
///
/// `PostgresRouteStore` runs `setup` at start-up; it is idempotent (`IF NOT EXISTS`, `CREATE OR REPLACE`), and
/// Docs/FORMATS.md prints it for the default names to run by hand.
public struct PostgresRouteSchema: Sendable {
    public let schema: String
    public let table: String

    public init(schema: String = "public", table: String = "routes") {
        self.schema = schema
        self.table = table
    }

    /// `"schema"."table"`, quoted.
    public var routes: String { Self.quote(schema) + "." + Self.quote(table) }
    public var changes: String { Self.quote(schema) + "." + Self.quote(table + "_changes") }
    /// The imports from files (`RouteImportRecord`): what content each file held, and the version it left.
    public var imports: String { Self.quote(schema) + "." + Self.quote(table + "_imports") }
    /// The positions appended to each route since its line was last written, one row per append
    /// (`AppendedTails`): an append writes what it adds, not the route's whole line again.
    public var tails: String { Self.quote(schema) + "." + Self.quote(table + "_tails") }
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
    public static let version = 4
    public var versionComment: String { "RouteTiles route store, schema \(Self.version)" }

    /// The NOTIFY channel every route store uses; the payload names the table (`schema.table`).
    public static let channel = "routetiles_changes"
    /// The payload of this store's notifications.
    public var payload: String { schema + "." + table }

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
    public var setupStatements: [String] {
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
                geom geometry(Geometry, 4326) NOT NULL,
                layer text,
                kind text CHECK (kind IN ('line', 'point')),
                geodesic boolean NOT NULL DEFAULT false,
                version bigint NOT NULL DEFAULT 0,
                created_seq bigint NOT NULL DEFAULT 0,
                fixed_at timestamptz
            )
            """,
            """
            ALTER TABLE \(routes) ADD COLUMN IF NOT EXISTS fixed_at timestamptz
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
            """
            CREATE TABLE IF NOT EXISTS \(imports) (
                id text PRIMARY KEY,
                content_hash text NOT NULL,
                version bigint NOT NULL,
                imported_at timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """,
            """
            CREATE TABLE IF NOT EXISTS \(tails) (
                route_id text NOT NULL REFERENCES \(routes) (id) ON UPDATE CASCADE ON DELETE CASCADE,
                seq bigint NOT NULL,
                points double precision[] NOT NULL,
                PRIMARY KEY (route_id, seq)
            )
            """,
            """
            CREATE SEQUENCE IF NOT EXISTS \(sequence) OWNED BY \(changes).seq
            """,
            """
            CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $routetiles$
            DECLARE
                s bigint;
                created boolean := TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND OLD.id IS DISTINCT FROM NEW.id);
            BEGIN
                -- RouteTiles folding a route's tail into its line: the route reads the same, so nothing is recorded.
                IF TG_OP = 'UPDATE' AND current_setting('routetiles.fold', true) = 'on' THEN
                    RETURN NEW;
                END IF;
                -- One writer at a time, until it commits: sequence numbers commit in order, so a reader that reads
                -- past the newest it sees skips none.
                PERFORM pg_advisory_xact_lock(\(lockKeys));
                -- A line written by another program replaces what was appended to the old one (RouteTiles' own
                -- writes empty the tail themselves).
                IF TG_OP = 'UPDATE' AND current_setting('routetiles.own', true) IS DISTINCT FROM 'on'
                   AND NEW.geom IS DISTINCT FROM OLD.geom THEN
                    DELETE FROM \(tails) WHERE route_id = OLD.id;
                    NEW.fixed_at := NULL;
                END IF;
                IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.id IS DISTINCT FROM NEW.id) THEN
                    s := nextval(\(Self.literal(sequence)));
                    INSERT INTO \(changes) (seq, route_id, op) VALUES (s, OLD.id, 'delete');
                END IF;
                IF TG_OP <> 'DELETE' THEN
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
            COMMENT ON TABLE \(changes) IS \(Self.literal(versionComment))
            """,
        ]
    }

    /// The same as one script, for `psql -f`.
    public var setupScript: String { setupStatements.map { $0 + ";\n" }.joined() }
}
