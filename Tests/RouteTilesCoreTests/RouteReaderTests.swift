import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport

@Suite struct RouteReaderTests {
    /// Removed with the suite instance, after each test.
    let scratch: TemporaryFolder

    init() throws { scratch = try TemporaryFolder() }

    /// Writes `contents` to a fresh temporary file named `name` and returns its path.
    func temporaryFile(_ name: String, _ contents: String) throws -> String {
        let directory = scratch.url.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    let geojson = #"{"type": "LineString", "coordinates": [[1, 2], [3, 4]]}"#
    let csv = "lat,lon\n2,1\n4,3\n"

    @Test(arguments: [
        ("a.geojson", "", InputFormat.geojson), ("dir.v2/A.JSON", "", .geojson), ("b.csv", "", .csv),
        ("B.CSV", "{", .csv),
        ("noextension", "  \n{\"type\": 1}", .geojson),
        ("routes.txt", "\u{FEFF}{}", .geojson),
        ("routes.txt", "Name,Latitude,LNG\n1,2,3", .csv),
        ("routes.dat", "\"lat\",\"lon\"", .csv),
        (".hidden", "lat,lon", .csv),
    ])
    func detectsFormats(path: String, content: String, expected: InputFormat) {
        #expect(InputFormat.detect(path: path, bytes: Array(content.utf8)) == expected)
    }

    @Test(arguments: ["", "   ", "hello", "x,y\n1,2", "lat,x\n1,2", "[1, 2]", "\"lat,lon"])
    func cannotDetectOtherContent(content: String) {
        #expect(InputFormat.detect(path: "routes.txt", bytes: Array(content.utf8)) == nil)
    }

    @Test func readsFilesOfEitherFormat() throws {
        let geojsonPath = try temporaryFile("r.geojson", geojson)
        let fromGeoJSON = try RouteReader.read(path: geojsonPath)
        #expect(fromGeoJSON.routes.first?.parts == [coordinates([(1, 2), (3, 4)])])
        #expect(fromGeoJSON.routes.first?.origin == "\(geojsonPath) feature 0")

        let csvPath = try temporaryFile("r.txt", csv)
        let fromCSV = try RouteReader.read(path: csvPath)
        #expect(fromCSV.routes.first?.parts == [coordinates([(1, 2), (3, 4)])])

        let forced = try RouteReader.read(path: try temporaryFile("r.data", geojson), format: .geojson)
        #expect(forced.routes.count == 1)
    }

    @Test func passesOptionsOn() throws {
        let path = try temporaryFile("r.csv", "a,b\n2,1\n4,3\n")
        let result = try RouteReader.read(path: path, options: ReadOptions(latColumn: "a", lonColumn: "b"))
        #expect(result.routes.first?.parts == [coordinates([(1, 2), (3, 4)])])
    }

    @Test func reportsFilesThatCannotBeRead() throws {
        let missing = "/nonexistent-\(UUID().uuidString)/routes.geojson"
        let error = try #require(inputError { _ = try RouteReader.read(path: missing) })
        #expect(error == InputError(file: missing, message: "cannot read file: No such file or directory"))

        let directory = FileManager.default.temporaryDirectory.path
        #expect(inputError { _ = try RouteReader.read(path: directory) }?.message
                    == "cannot read file: Is a directory")
    }

    @Test func reportsEmptyAndUnrecognisedFiles() throws {
        let empty = try temporaryFile("e.geojson", " \n")
        #expect(inputError { _ = try RouteReader.read(path: empty) } == InputError(file: empty, message: "file is empty"))
        let unknown = try temporaryFile("u.txt", "hello\n")
        #expect(inputError { _ = try RouteReader.read(path: unknown) }?.message.hasPrefix("cannot tell the format") == true)
    }

    @Test func appendsResults() {
        var total = ReadResult(routes: [Route(parts: [])], skippedGeometries: ["Point": 2, "null": 1],
                               invalid: [InputError(file: "a", message: "x")])
        total.append(ReadResult(routes: [Route(parts: []), Route(parts: [])], skippedGeometries: ["Point": 1, "Polygon": 4],
                                invalid: [InputError(file: "b", message: "y")]))
        #expect(total.routes.count == 3)
        #expect(total.skippedGeometries == ["Point": 3, "null": 1, "Polygon": 4])
        #expect(total.invalid.map(\.file) == ["a", "b"])
    }
}
