import Foundation
import Testing
import RouteTilesCoreTestSupport

/// The core's modules keep data flowing one way: each depends only on the modules before it in the table of
/// Docs/ARCHITECTURE.md ("The modules"). The compiler refuses a cycle, but not a module that imports one it does not
/// declare (SwiftPM puts every built module on the search path), nor a table that no longer says what Package.swift
/// does. These tests read the three sources of truth, the table, Package.swift and the imports of every source file,
/// and check that they agree.
@Suite struct ModuleLayeringTests {
    static let root = PackageFolder.root

    /// The table's rows in order: a module and the modules it depends on.
    static func layers() throws -> [(module: String, dependencies: Set<String>)] {
        let text = try String(contentsOf: root.appendingPathComponent("Docs/ARCHITECTURE.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## The modules\n") else {
            throw LayeringError("Docs/ARCHITECTURE.md has no section \"## The modules\"")
        }
        let section = text[start.upperBound...].prefix { _ in true }
            .components(separatedBy: "\n## ").first ?? ""
        var rows: [(String, Set<String>)] = []
        for line in section.split(separator: "\n") where line.hasPrefix("| `RouteTiles") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4 else { throw LayeringError("a row of the modules table has too few cells: \(line)") }
            let module = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let dependencies = Set(Self.moduleNames(in: cells[cells.count - 2]))
            rows.append((module, dependencies))
        }
        return rows
    }

    /// The `RouteTiles…` names quoted in `text`.
    static func moduleNames(in text: String) -> [String] {
        text.components(separatedBy: "`").enumerated().compactMap { index, piece in
            index % 2 == 1 && piece.hasPrefix("RouteTiles") ? piece : nil
        }
    }

    /// Each target of Package.swift and the `RouteTiles…` targets it depends on.
    static func packageTargets() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        for piece in text.components(separatedBy: "Target(name: \"").dropFirst()
            + text.components(separatedBy: ".target(name: \"").dropFirst() {
            guard let nameEnd = piece.firstIndex(of: "\"") else { continue }
            let name = String(piece[..<nameEnd])
            // The target's arguments run to the next target; its dependencies are the quoted RouteTiles… names there.
            let body = piece.components(separatedBy: ".target(").first?.components(separatedBy: "Target(").first ?? ""
            // The piece starts within the name's quotes: the quoted strings after it are at even places.
            let quoted = body.components(separatedBy: "\"").enumerated().compactMap { index, s in
                index > 0 && index % 2 == 0 && s.hasPrefix("RouteTiles") ? s : nil
            }
            targets[name] = Set(quoted)
        }
        return targets
    }

    /// The `RouteTiles…` modules imported by the Swift files under Sources/`module`, with a file that imports each.
    static func imports(of module: String) throws -> [String: String] {
        let folder = root.appendingPathComponent("Sources/\(module)")
        var found: [String: String] = [:]
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            throw LayeringError("cannot list Sources/\(module)")
        }
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let at = words.firstIndex(of: "import"), at + 1 < words.count,
                      words[..<at].allSatisfy({ $0.hasPrefix("@") }) else { continue }
                let name = String(words[at + 1])
                if name.hasPrefix("RouteTiles") { found[name] = url.lastPathComponent }
            }
        }
        return found
    }

    @Test func theTableIsALayering() throws {
        let rows = try Self.layers()
        #expect(rows.count >= 10, "the modules table has \(rows.count) rows")
        var seen = Set<String>()
        for row in rows {
            for dependency in row.dependencies {
                #expect(seen.contains(dependency), "\(row.module) depends on \(dependency), which is not listed before it")
            }
            seen.insert(row.module)
        }
    }

    @Test func packageSwiftDeclaresWhatTheTableSays() throws {
        let targets = try Self.packageTargets()
        for row in try Self.layers() {
            let declared = try #require(targets[row.module], "Package.swift has no target \(row.module)")
            #expect(declared == row.dependencies,
                    "\(row.module): Package.swift says \(declared.sorted()), Docs/ARCHITECTURE.md says \(row.dependencies.sorted())")
        }
    }

    @Test func sourcesImportOnlyTheModulesBelowThem() throws {
        for row in try Self.layers() {
            for (imported, file) in try Self.imports(of: row.module) where !row.dependencies.contains(imported) {
                Issue.record("Sources/\(row.module)/…/\(file) imports \(imported), which \(row.module) does not depend on")
            }
        }
    }

    /// The layers above the core (access control, server, seeding, purging, PostgreSQL, the CLI) see the core through
    /// the one library users import, `RouteTiles`, and no core module depends on them.
    @Test func theLayersAboveTheCoreUseTheLibrary() throws {
        let core = Set(try Self.layers().map(\.module))
        for outer in ["RouteTilesAccess", "RouteTilesServer", "RouteTilesSeed", "RouteTilesPurge", "RouteTilesPostgres", "routetiles"] {
            for (imported, file) in try Self.imports(of: outer) where core.contains(imported) && imported != "RouteTiles" {
                Issue.record("Sources/\(outer)/…/\(file) imports the core module \(imported); import RouteTiles")
            }
        }
        let targets = try Self.packageTargets()
        for module in core {
            let above = targets[module, default: []].subtracting(core)
            #expect(above.isEmpty, "\(module) depends on \(above.sorted()), which are not core modules")
        }
    }
}

struct LayeringError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
