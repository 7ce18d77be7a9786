import Foundation
import RouteTiles
import Testing
@testable import RouteTilesRouteStore
import RouteTilesCoreTestSupport

/// The import rule in the library, on a memory store and a SQLite file: files seed a store, and what the API did
/// to a route since its file was imported survives any number of imports of the same file; an edited file is a
/// deliberate new import; `.replace` takes the files' version.
@Suite struct RouteStoreImportTests {
    enum Kind: String, CaseIterable { case memory, sqlite }

    /// A store of `kind` in `folder`, and a way to open the same store again (a restart); memory has no restart.
    static func open(_ kind: Kind, in folder: TemporaryFolder) throws -> any RouteStore {
        switch kind {
        case .memory: return MemoryRouteStore()
        case .sqlite: return try SQLiteRouteStore(path: folder.path("routes.db"))
        }
    }

    /// Four file routes a, b, c, d and one numbered route (no id in the file).
    static func fileRoutes() -> [Route] {
        let lines = Sample.parisRoutes(count: 5, points: 40)
        var routes = zip(["a", "b", "c", "d"], lines).map { key, line in
            Route(id: .string(key), properties: [Property("name", .string("file \(key)")), Property("n", .int(3))],
                  parts: line.parts)
        }
        routes.append(Route(properties: [Property("name", .string("numbered"))], parts: lines[4].parts))
        return routes
    }

    static func routes(_ store: any RouteStore) async throws -> [String: Route] {
        Dictionary(uniqueKeysWithValues: try await store.loadAll().routes.map { ($0.key, $0.route) })
    }

    @Test(arguments: Kind.allCases)
    func changesMadeSinceTheImportSurviveImportsOfTheSameFiles(kind: Kind) async throws {
        let folder = try TemporaryFolder()
        let store = try Self.open(kind, in: folder)
        let files = Self.fileRoutes()
        let first = try await RouteStoreImport.load(files, into: store)
        #expect(first.added == 5 && first.replaced == 0 && first.unchanged == 0)

        // The API's writes: an append to a, a replacement of b, a removal of c, a new route e.
        let appended = [Coordinate(longitude: 2.5, latitude: 48.9), Coordinate(longitude: 2.51, latitude: 48.91)]
        _ = try await store.commit(.append(key: "a", points: appended))
        let newB = Route(properties: [Property("name", .string("api b"))], parts: Sample.parisRoutes(count: 1, seed: 9)[0].parts)
        _ = try await store.commit(.replace(key: "b", route: newB))
        _ = try await store.commit(.remove(key: "c"))
        _ = try await store.commit(.put([Route(id: .string("e"), parts: Sample.parisRoutes(count: 1, seed: 10)[0].parts)]))
        let expected = try await Self.routes(store)
        let sequence = try await store.newestSequence()

        for _ in 0..<3 {
            let again = try await RouteStoreImport.load(files, into: store)
            #expect(again.added == 0 && again.replaced == 0)
            #expect(again.unchanged == 2, "d and the numbered route")
            #expect(again.keptChanged == 2 && again.keptRemoved == 1, "\(again)")
            #expect(again.counts.contains("2 kept as changed since their import, 1 kept removed since their import"))
            #expect(try await store.newestSequence() == sequence, "nothing is written")
        }
        let after = try await Self.routes(store)
        #expect(after.keys.sorted() == expected.keys.sorted())
        for (key, route) in expected { #expect(after[key].map { RouteStoreImport.sameContent($0, route) } == true, "\(key)") }
        #expect(after["a"]?.parts.last?.suffix(2).elementsEqual(appended) == true)
        #expect(after["c"] == nil)
        await store.close()
    }

    @Test(arguments: Kind.allCases)
    func anEditedFileIsImportedAgainForTheRoutesItChanged(kind: Kind) async throws {
        let folder = try TemporaryFolder()
        let store = try Self.open(kind, in: folder)
        var files = Self.fileRoutes()
        _ = try await RouteStoreImport.load(files, into: store)
        _ = try await store.commit(.append(key: "a", points: [Coordinate(longitude: 2.5, latitude: 48.9)]))
        _ = try await store.commit(.append(key: "b", points: [Coordinate(longitude: 2.5, latitude: 48.9)]))
        _ = try await store.commit(.remove(key: "c"))

        // The user edits b's and c's entries in the file; a's stays as it was.
        files[1].properties = [Property("name", .string("edited b"))]
        files[2].parts[0].removeLast()
        let edited = try await RouteStoreImport.load(files, into: store)
        #expect(edited.replaced == 1 && edited.added == 1 && edited.keptChanged == 1 && edited.unchanged == 2, "\(edited)")
        #expect(edited.notes.contains { $0.hasPrefix("route b: its file changed since its last import") }, "\(edited.notes)")
        #expect(edited.notes.contains { $0.hasPrefix("route c: its file changed since its last import") }, "\(edited.notes)")
        #expect(!edited.notes.contains { $0.hasPrefix("route a:") })
        let stored = try await Self.routes(store)
        #expect(stored["b"].map { RouteStoreImport.sameContent($0, files[1]) } == true)
        #expect(stored["c"].map { RouteStoreImport.sameContent($0, files[2]) } == true)
        #expect(stored["a"]?.pointCount == files[0].pointCount + 1, "a keeps its append")

        // The edited file is now the imported one: a change to b through the API survives it in turn.
        _ = try await store.commit(.append(key: "b", points: [Coordinate(longitude: 2.6, latitude: 48.9)]))
        let again = try await RouteStoreImport.load(files, into: store)
        #expect(again.replaced == 0 && again.added == 0 && again.keptChanged == 2, "\(again)")
        #expect(try await Self.routes(store)["b"]?.pointCount == files[1].pointCount + 1)

        // `.replace` asks for the files' version on purpose.
        let replaced = try await RouteStoreImport.load(files, into: store, policy: .replace)
        #expect(replaced.replaced == 2 && replaced.unchanged == 3, "\(replaced)")
        let reset = try await Self.routes(store)
        for route in files {
            let key = StoredRouteCodec.key(for: route.id ?? .number(0))
            if route.id != nil { #expect(reset[key].map { RouteStoreImport.sameContent($0, route) } == true, "\(key)") }
        }
        await store.close()
    }

    /// A route stored before any import was recorded (written through the API, or by a RouteTiles that kept no
    /// records) is kept, and says so; pruning forgets the import, so a route put back in the file comes back.
    @Test(arguments: Kind.allCases)
    func aRouteWithoutAnImportRecordIsKeptAndPruningForgets(kind: Kind) async throws {
        let folder = try TemporaryFolder()
        let store = try Self.open(kind, in: folder)
        let files = Self.fileRoutes()
        let apiA = Route(id: .string("a"), properties: [Property("name", .string("api a"))], parts: files[3].parts)
        _ = try await store.commit(.put([apiA]))
        let first = try await RouteStoreImport.load(files, into: store)
        #expect(first.added == 4 && first.keptChanged == 1, "\(first)")
        #expect(first.notes.contains { $0.hasPrefix("route a: differs from the file's and no import of it is recorded") }, "\(first.notes)")
        let second = try await RouteStoreImport.load(files, into: store)
        #expect(second.keptChanged == 1 && second.notes.isEmpty, "\(second)")
        #expect(try await Self.routes(store)["a"]?.properties == apiA.properties)

        let pruned = try await RouteStoreImport.load(Array(files.prefix(2)), into: store, prune: true)
        #expect(pruned.removed == 3, "\(pruned)")
        #expect(try await Self.routes(store).keys.sorted() == ["a", "b"])
        let back = try await RouteStoreImport.load(files, into: store)
        #expect(back.added == 3 && back.keptRemoved == 0, "\(back)")
        await store.close()
    }

    /// An entry applies only while the route is at the version the importer saw: a change made after that is
    /// newer, and is kept.
    @Test(arguments: Kind.allCases)
    func anEntryWhoseRouteMovedOnIsSkipped(kind: Kind) async throws {
        let folder = try TemporaryFolder()
        let store = try Self.open(kind, in: folder)
        let files = Self.fileRoutes()
        _ = try await RouteStoreImport.load(files, into: store)
        let seen = try await store.loadAll().routes.first { $0.key == "a" }
        let version = try #require(seen?.version)
        _ = try await store.commit(.append(key: "a", points: [Coordinate(longitude: 2.5, latitude: 48.9)]))
        var edited = files[0]
        edited.properties = [Property("name", .string("edited"))]
        let result = try await store.importRoutes([
            RouteImportEntry(key: "a", contentHash: "x", expectedVersion: version, action: .write(edited)),
            RouteImportEntry(key: "new", contentHash: "y", expectedVersion: nil, action: .write(edited)),
            RouteImportEntry(key: "b", contentHash: "z", expectedVersion: nil, action: .write(edited)),
        ])
        #expect(result.skipped == ["a", "b"])
        #expect(result.written.map(\.key) == ["new"])
        let stored = try await Self.routes(store)
        #expect(stored["a"]?.pointCount == files[0].pointCount + 1)
        #expect(try await store.importRecords()["new"]?.contentHash == "y")
        #expect(try await store.importRecords()["a"]?.contentHash != "x")
        await store.close()
    }

    /// A SQLite store survives its reopening with its import records: the rule holds across restarts.
    @Test func sqliteRecordsOutliveTheProcess() async throws {
        let folder = try TemporaryFolder()
        let files = Self.fileRoutes()
        var store: any RouteStore = try SQLiteRouteStore(path: folder.path("routes.db"))
        _ = try await RouteStoreImport.load(files, into: store)
        _ = try await store.commit(.remove(key: "d"))
        await store.close()
        store = try SQLiteRouteStore(path: folder.path("routes.db"))
        let again = try await RouteStoreImport.load(files, into: store)
        #expect(again.keptRemoved == 1 && again.added == 0, "\(again)")
        #expect(try await store.importRecords().count == 5)
        await store.close()
    }

    /// The fingerprint changes with every part of a route's content and not with the order of its properties.
    @Test func theContentHashSeesContentNotPropertyOrder() {
        let route = Self.fileRoutes()[0]
        let hash = RouteContentHash.of(route, key: "a")
        #expect(hash.count == 16)
        var reordered = route
        reordered.properties.reverse()
        #expect(RouteContentHash.of(reordered, key: "a") == hash)
        var variants: [Route] = []
        var moved = route
        moved.parts[0][3].longitude += 1e-12
        variants.append(moved)
        var renamed = route
        renamed.properties[0].value = .string("other")
        variants.append(renamed)
        var typed = route
        typed.properties[1].value = .double(3)
        variants.append(typed)
        var geodesic = route
        geodesic.geodesic = true
        variants.append(geodesic)
        var layered = route
        layered.layer = "other"
        variants.append(layered)
        for variant in variants { #expect(RouteContentHash.of(variant, key: "a") != hash) }
        #expect(RouteContentHash.of(route, key: "b") != hash)
    }
}
