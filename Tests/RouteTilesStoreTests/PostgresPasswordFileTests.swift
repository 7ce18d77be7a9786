import Foundation
@testable import RouteTilesPostgres
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The password file (`PGPASSFILE`, `~/.pgpass`) read as libpq reads it: wildcards, escapes, the first match, the
/// permissions that make it ignored, and its place after the URL's password and `PGPASSWORD`.
@Suite struct PostgresPasswordFileTests {
    @Test func aStarFieldMatchesAnythingAndTheFirstMatchWins() {
        let file = PostgresPasswordFile(text: """
            # comments and short lines are skipped
            db.example:5432:gis
            db.example:5432:gis:tiles:exact
            db.example:*:*:tiles:any-port-or-database
            *:*:*:*:fallback
            *:*:*:tiles:never-reached
            """)
        #expect(file.password(host: "db.example", port: 5432, database: "gis", user: "tiles") == "exact")
        #expect(file.password(host: "db.example", port: 6543, database: "other", user: "tiles") == "any-port-or-database")
        #expect(file.password(host: "elsewhere", port: 5432, database: "gis", user: "tiles") == "fallback")
        #expect(PostgresPasswordFile(text: "a:1:b:c:d").password(host: "a", port: 2, database: "b", user: "c") == nil)
    }

    @Test func backslashEscapesColonsAndBackslashesInEveryField() {
        let file = PostgresPasswordFile(text: #"""
            fe80\:\:1:5432:my\:db:us\\er:pa\:ss\\word
            \*:5432:gis:tiles:only-a-host-named-star
            h:5432:gis:tiles:pass:ignored after a fifth colon
            """#)
        #expect(file.password(host: "fe80::1", port: 5432, database: "my:db", user: #"us\er"#) == #"pa:ss\word"#)
        // An escaped star is a host named "*", not a wildcard.
        #expect(file.password(host: "db", port: 5432, database: "gis", user: "tiles") == nil)
        #expect(file.password(host: "*", port: 5432, database: "gis", user: "tiles") == "only-a-host-named-star")
        #expect(file.password(host: "h", port: 5432, database: "gis", user: "tiles") == "pass")
    }

    @Test func windowsLineEndsAndBlankLinesAreRead() {
        let file = PostgresPasswordFile(text: "\r\nh:5432:gis:tiles:secret\r\n\n")
        #expect(file.password(host: "h", port: 5432, database: "gis", user: "tiles") == "secret")
    }

    /// As libpq: a file that its group or others may read is ignored with a warning; a missing one says nothing.
    @Test func aFileOthersMayReadIsIgnoredWithAWarning() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("pgpass")
        try Data("*:*:*:*:secret\n".utf8).write(to: URL(fileURLWithPath: path))
        let environment = ["PGPASSFILE": path]
        func lookUp() -> PostgresPasswordFile.LookUp {
            PostgresPasswordFile.lookUp(host: "h", port: 5432, database: "gis", user: "tiles", environment: environment)
        }
        #expect(chmod(path, 0o600) == 0)
        #expect(lookUp() == PostgresPasswordFile.LookUp(password: "secret", warning: nil))
        for mode: mode_t in [0o640, 0o604, 0o620] {
            #expect(chmod(path, mode) == 0)
            let found = lookUp()
            #expect(found.password == nil, "mode \(String(mode, radix: 8))")
            #expect(found.warning?.contains(path) == true && found.warning?.contains("group or world access") == true,
                    "\(String(describing: found.warning))")
        }
        let missing = PostgresPasswordFile.lookUp(host: "h", port: 5432, database: "gis", user: "tiles",
                                                  environment: ["PGPASSFILE": folder.path("none")])
        #expect(missing == PostgresPasswordFile.LookUp())
        let directory = PostgresPasswordFile.lookUp(host: "h", port: 5432, database: "gis", user: "tiles",
                                                    environment: ["PGPASSFILE": folder.url.path])
        #expect(directory.password == nil && directory.warning?.contains("not a plain file") == true)
    }

    @Test func withoutPGPASSFILEItIsDotPgpassInHome() {
        #expect(PostgresPasswordFile.path(environment: ["HOME": "/home/tiles"]) == "/home/tiles/.pgpass")
        #expect(PostgresPasswordFile.path(environment: ["HOME": "/home/tiles", "PGPASSFILE": "/run/pgpass"]) == "/run/pgpass")
    }

    /// The URL's password first, then PGPASSWORD, then the file; the file is matched with libpq's defaults (host
    /// "localhost" when the URL names none, the database named after the user when the URL names none).
    @Test func theURLThenPGPASSWORDThenTheFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("pgpass")
        try Data("""
            localhost:5432:tiles:tiles:default-host-and-database
            db.example:6543:gis:tiles:from-file
            """.utf8).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o600) == 0)
        let file = ["PGPASSFILE": path]
        let both = file.merging(["PGPASSWORD": "from-env"]) { $1 }
        #expect(try PostgresStoreURL("postgres://tiles:given@db.example:6543/gis", environment: both).password == "given")
        #expect(try PostgresStoreURL("postgres://tiles@db.example:6543/gis", environment: both).password == "from-env")
        #expect(try PostgresStoreURL("postgres://tiles@db.example:6543/gis", environment: file).password == "from-file")
        #expect(try PostgresStoreURL("postgres://tiles@db.example:5432/gis", environment: file).password == nil)
        #expect(try PostgresStoreURL("postgres://tiles@/", environment: file).password == "default-host-and-database")
        #expect(chmod(path, 0o644) == 0)
        let ignored = try PostgresStoreURL("postgres://tiles@db.example:6543/gis", environment: file)
        #expect(ignored.password == nil && ignored.warnings.count == 1 && ignored.warnings[0].contains(path))
    }
}
