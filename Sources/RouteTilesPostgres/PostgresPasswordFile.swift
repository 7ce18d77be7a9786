import Foundation

/// libpq's password file (`PGPASSFILE`, default `~/.pgpass`), read as libpq reads it, so that a password need not
/// be in a `--store` URL, which every local user sees in the process list.
///
/// Each line is `hostname:port:database:username:password`. A field that is `*` alone matches anything; `\:` and
/// `\\` stand for `:` and `\` in any field. Lines that start with `#`, and lines with fewer than five fields, are
/// skipped. The first line that matches wins. As libpq does, a file that others than its owner may read or write
/// (any group or world permission bit) is ignored, with a warning, and so is anything but a plain file.
package struct PostgresPasswordFile: Sendable, Equatable {
    /// One line: four fields to match (nil for `*`) and the password.
    struct Entry: Sendable, Equatable {
        var host: String?
        var port: String?
        var database: String?
        var user: String?
        var password: String
    }

    let entries: [Entry]

    /// The lines of `text` that have five fields, in order.
    package init(text: String) {
        entries = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).compactMap(Self.entry)
    }

    /// The password of the first line that matches, or nil.
    package func password(host: String, port: Int, database: String, user: String) -> String? {
        let wanted = [host, String(port), database, user]
        return entries.first { entry in
            zip([entry.host, entry.port, entry.database, entry.user], wanted).allSatisfy { field, value in
                field.map { $0 == value } ?? true
            }
        }?.password
    }

    /// What looking in the password file found: a password, and a warning when the file was there but ignored.
    package struct LookUp: Sendable, Equatable {
        package var password: String?
        package var warning: String?
    }

    /// Looks `host`, `port`, `database` and `user` up in the file `PGPASSFILE` names, else `~/.pgpass`. A missing
    /// file finds nothing and says nothing, as in libpq.
    package static func lookUp(host: String, port: Int, database: String, user: String,
                              environment: [String: String]) -> LookUp {
        guard let path = path(environment: environment) else { return LookUp() }
        var status = stat()
        guard stat(path, &status) == 0 else { return LookUp() }
        guard status.st_mode & 0o170000 == 0o100000 else {  // S_IFMT, S_IFREG
            return LookUp(warning: "password file \(path) is not a plain file; ignored")
        }
        guard status.st_mode & 0o077 == 0 else {  // S_IRWXG | S_IRWXO
            let mode = String(status.st_mode & 0o777, radix: 8)
            return LookUp(warning: "password file \(path) has group or world access (mode \(mode)); ignored, as "
                + "libpq ignores it: permissions should be u=rw (0600) or less")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            return LookUp(warning: "password file \(path) cannot be read; ignored")
        }
        let file = PostgresPasswordFile(text: String(decoding: data, as: UTF8.self))
        return LookUp(password: file.password(host: host, port: port, database: database, user: user))
    }

    /// `PGPASSFILE` when set and not empty, else `.pgpass` in the home directory (`HOME`, else the user's entry).
    static func path(environment: [String: String]) -> String? {
        if let file = environment["PGPASSFILE"], !file.isEmpty { return file }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.pgpass" }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory) + "/.pgpass"
    }

    /// The line's fields, unescaped, `*` alone read as a wildcard; nil for a comment or fewer than five fields.
    /// Text after a fifth unescaped colon is ignored, as libpq ignores it.
    private static func entry(_ line: Substring) -> Entry? {
        guard !line.hasPrefix("#") else { return nil }
        var fields: [(text: String, wildcard: Bool)] = []
        var current = "", escaped = false, hadEscape = false
        for character in line.hasSuffix("\r") ? line.dropLast() : line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
                hadEscape = true
            } else if character == ":" {
                fields.append((current, current == "*" && !hadEscape))
                current = ""
                hadEscape = false
                if fields.count == 5 { break }
            } else {
                current.append(character)
            }
        }
        if fields.count < 5 { fields.append((current, false)) }
        guard fields.count >= 5 else { return nil }
        func match(_ k: Int) -> String? { fields[k].wildcard ? nil : fields[k].text }
        return Entry(host: match(0), port: match(1), database: match(2), user: match(3), password: fields[4].text)
    }
}
