import Foundation
import RouteTiles
@testable import RouteTilesPostgres
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `--store postgres://…` read as libpq reads such URLs, and refused with a message that names what is wrong.
@Suite(.serialized) struct PostgresStoreURLTests {
    /// Docs/FORMATS.md prints the set-up script for the default names; it must be the one the store runs.
    @Test func theDocumentedSetUpScriptIsTheOneRun() throws {
        let formats = try String(contentsOf: PackageFolder.root.appendingPathComponent("Docs/FORMATS.md"), encoding: .utf8)
        let start = try #require(formats.range(of: "```sql\nCREATE EXTENSION"))
        let end = try #require(formats.range(of: "```", range: start.upperBound..<formats.endIndex))
        let documented = String(formats[formats.index(start.lowerBound, offsetBy: 7)..<end.lowerBound])
        #expect(documented == PostgresRouteSchema().setupScript)
    }

    @Test func readsBothSchemesWithTheirOptions() throws {
        let url = try PostgresStoreURL("postgresql://tiles:s%40cret@db.example:6543/gis?sslmode=require&connect_timeout=3&application_name=edge&schema=live&table=tracks")
        #expect(url.host == "db.example" && url.port == 6543 && url.user == "tiles" && url.password == "s@cret")
        #expect(url.database == "gis" && url.sslMode == "require" && url.connectTimeout == .seconds(3))
        #expect(url.applicationName == "edge" && url.schema == "live" && url.table == "tracks")
        #expect(url.displayName == "postgres://tiles@db.example:6543/gis")
        let plain = try PostgresStoreURL("postgres://tiles@127.0.0.1/gis")
        #expect(plain.port == 5432 && plain.sslMode == "prefer" && plain.schema == nil)
    }

    @Test func refusesWhatItDoesNotKnowWithoutShowingThePassword() {
        for (text, expected) in [
            ("postgres://u:hunter2@h/db?sslmode=sometimes", "unknown sslmode 'sometimes'"),
            ("postgres://u@h/db?pool=9", "unknown URL option 'pool'"),
            ("postgres://u@h/db?connect_timeout=0", "connect_timeout must be a positive number"),
            ("mysql://u:hunter2@h/db", "not a postgres://"),
        ] {
            do {
                _ = try PostgresStoreURL(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
                #expect(!"\(error)".contains("hunter2"))
            }
        }
    }

    /// As libpq: a URL without a password takes PGPASSWORD's, which keeps it out of the process list.
    @Test func takesThePasswordFromPGPASSWORD() throws {
        setenv("PGPASSWORD", "from-env", 1)
        defer { unsetenv("PGPASSWORD") }
        #expect(try PostgresStoreURL("postgres://u@h/db").password == "from-env")
        #expect(try PostgresStoreURL("postgres://u:given@h/db").password == "given")
    }
}
