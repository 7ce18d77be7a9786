import Testing
import RouteTiles
import RouteTilesCoreTestSupport

@Suite struct GeoJSONReaderTests {
    /// A FeatureCollection holding the given features (JSON text each).
    func collection(_ features: String...) -> String {
        #"{"type": "FeatureCollection", "features": ["# + features.joined(separator: ",\n") + "]}"
    }

    func feature(_ geometry: String, id: String? = nil, properties: String = "{}") -> String {
        let idMember = id.map { #""id": \#($0), "# } ?? ""
        return #"{"type": "Feature", \#(idMember)"properties": \#(properties), "geometry": \#(geometry)}"#
    }

    let line = #"{"type": "LineString", "coordinates": [[1, 2], [3, 4]]}"#

    /// The error a read of `text` throws.
    func readError(_ text: String) -> InputError? {
        inputError { _ = try readGeoJSON(text) }
    }

    // MARK: Shapes of documents

    @Test func readsAFeatureCollectionOfLineStrings() throws {
        let result = try readGeoJSON(collection(
            feature(line, id: "1"),
            feature(#"{"type": "LineString", "coordinates": [[-120.5, 45.25], [-121, 46], [-122, 47.5]]}"#)))
        #expect(result.routes.count == 2)
        #expect(result.routes[0].parts == [coordinates([(1, 2), (3, 4)])])
        #expect(result.routes[0].id == .number(1))
        #expect(result.routes[0].origin == "t.geojson feature 0")
        #expect(result.routes[1].parts == [coordinates([(-120.5, 45.25), (-121, 46), (-122, 47.5)])])
        #expect(result.routes[1].id == nil)
        #expect(result.routes[1].origin == "t.geojson feature 1")
        #expect(result.skippedGeometries.isEmpty)
        #expect(result.invalid.isEmpty)
    }

    @Test func readsASingleFeature() throws {
        let result = try readGeoJSON(feature(line, id: #""a""#, properties: #"{"name": "x"}"#))
        #expect(result.routes.count == 1)
        #expect(result.routes[0].id == .string("a"))
        #expect(result.routes[0].properties == [Property("name", .string("x"))])
        #expect(result.routes[0].origin == "t.geojson feature 0")
    }

    @Test func readsBareGeometries() throws {
        let single = try readGeoJSON(line)
        #expect(single.routes.map(\.parts) == [[coordinates([(1, 2), (3, 4)])]])
        let multi = try readGeoJSON(#"{"coordinates": [[[1, 2], [3, 4]], [[5, 6], [7, 8], [9, 10]]], "type": "MultiLineString"}"#)
        #expect(multi.routes.map(\.parts) == [[coordinates([(1, 2), (3, 4)]), coordinates([(5, 6), (7, 8), (9, 10)])]])
        let point = try readGeoJSON(#"{"type": "Point", "coordinates": [1, 2]}"#)
        #expect(point.routes.isEmpty)
        #expect(point.skippedGeometries == ["Point": 1])
    }

    @Test func readsMultiLineStringPartsIntoOneRoute() throws {
        let result = try readGeoJSON(collection(feature(
            #"{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2], [3, 3], [4, 4]], [[5, 5], [6, 6]]]}"#)))
        #expect(result.routes.count == 1)
        #expect(result.routes[0].parts.map(\.count) == [2, 3, 2])
        #expect(result.routes[0].parts[1][2] == Coordinate(longitude: 4, latitude: 4))
    }

    @Test func acceptsMembersInAnyOrder() throws {
        // coordinates before type in the geometry, geometry before type in the feature, features before type.
        let text = #"""
            {"features": [{"geometry": {"coordinates": [[[1, 2], [3, 4]]], "type": "MultiLineString"},
                           "properties": null, "id": 9, "type": "Feature"}],
             "type": "FeatureCollection"}
            """#
        let result = try readGeoJSON(text)
        #expect(result.routes.count == 1)
        #expect(result.routes[0].id == .number(9))
        #expect(result.routes[0].parts == [coordinates([(1, 2), (3, 4)])])
    }

    @Test func ignoresAltitudeAndForeignMembers() throws {
        let text = collection(#"""
            {"type": "Feature", "bbox": [0, 0, 1, 1], "extra": {"deep": [[[1]]]}, "properties": {},
             "geometry": {"type": "LineString", "crs": null, "coordinates": [[1, 2, 300.5], [3, 4, 301, 7]]}}
            """#)
        let result = try readGeoJSON(text)
        #expect(result.routes[0].parts == [coordinates([(1, 2), (3, 4)])])
    }

    @Test func takesTheLinesOfAGeometryCollection() throws {
        let geometry = #"""
            {"type": "GeometryCollection", "geometries": [
                {"type": "Point", "coordinates": [0, 0]},
                {"type": "LineString", "coordinates": [[1, 1], [2, 2]]},
                {"type": "MultiLineString", "coordinates": [[[3, 3], [4, 4]], [[5, 5], [6, 6]]]}]}
            """#
        let result = try readGeoJSON(collection(feature(geometry)))
        #expect(result.routes.count == 1)
        #expect(result.routes[0].parts == [coordinates([(1, 1), (2, 2)]), coordinates([(3, 3), (4, 4)]),
                                           coordinates([(5, 5), (6, 6)])])
        #expect(result.skippedGeometries.isEmpty)
    }

    @Test func countsSkippedGeometriesByType() throws {
        let result = try readGeoJSON(collection(
            feature(#"{"type": "Point", "coordinates": [1, 2]}"#),
            feature(line),
            feature(#"{"type": "Point", "coordinates": [3, 4]}"#),
            feature(#"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}"#),
            feature(#"{"type": "MultiPoint", "coordinates": [[0, 0]]}"#),
            feature(#"{"type": "MultiPolygon", "coordinates": []}"#),
            feature("null"),
            #"{"type": "Feature", "properties": {}}"#,
            feature(#"{"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [0, 0]}]}"#),
            feature(#"{"type": "GeometryCollection", "geometries": []}"#)))
        #expect(result.routes.count == 1)
        #expect(result.skippedGeometries == ["Point": 2, "Polygon": 1, "MultiPoint": 1, "MultiPolygon": 1, "null": 2,
                                             "GeometryCollection": 2])
    }

    @Test func readsAnEmptyFeatureCollection() throws {
        let result = try readGeoJSON(#"{"type": "FeatureCollection", "features": []}"#)
        #expect(result.routes.isEmpty)
    }

    // MARK: Ids and properties

    @Test(arguments: [
        ("7", RouteID.number(7)),
        ("0", .number(0)),
        ("18446744073709551615", .number(UInt64.max)),
        ("18446744073709551616", .string("18446744073709551616")),
        ("-3", .string("-3")),
        ("-0", .string("-0")),
        ("1.5", .string("1.5")),
        ("1e3", .string("1e3")),
        ("2.0", .string("2.0")),
        (#""route-7""#, .string("route-7")),
        (#""12""#, .string("12")),
        (#""\u00e9""#, .string("é")),
    ])
    func readsIds(json: String, expected: RouteID) throws {
        let result = try readGeoJSON(feature(line, id: json))
        #expect(result.routes.first?.id == expected)
    }

    @Test func readsANullIdAsNoId() throws {
        #expect(try readGeoJSON(feature(line, id: "null")).routes.first?.id == nil)
    }

    @Test func typesPropertiesInInputOrder() throws {
        let properties = #"""
            {"name": "Route \"66\"", "lanes": 4, "delta": -12, "big": 9223372036854775808, "huge": 1e300,
             "ratio": 0.25, "whole": 3.0, "toll": false, "gone": null, "tags": ["a", {"b" : [1, 2.50]}],
             "meta": { "z": 1, "a": {"x": null} }, "min": -9223372036854775808, "under": -9223372036854775809}
            """#
        let route = try #require(try readGeoJSON(feature(line, properties: properties)).routes.first)
        #expect(route.properties == [
            Property("name", .string("Route \"66\"")),
            Property("lanes", .int(4)),
            Property("delta", .int(-12)),
            Property("big", .uint(9_223_372_036_854_775_808)),
            Property("huge", .double(1e300)),
            Property("ratio", .double(0.25)),
            Property("whole", .double(3)),
            Property("toll", .bool(false)),
            Property("tags", .string(#"["a",{"b":[1,2.50]}]"#)),
            Property("meta", .string(#"{"z":1,"a":{"x":null}}"#)),
            Property("min", .int(Int64.min)),
            Property("under", .double(-0x1p63)),
        ])
        #expect(route.geodesic == false)
    }

    @Test func keepsTheLastValueOfARepeatedProperty() throws {
        let route = try #require(try readGeoJSON(feature(line, properties: #"{"a": 1, "b": 2, "a": 3}"#)).routes.first)
        #expect(route.properties == [Property("a", .int(3)), Property("b", .int(2))])
    }

    @Test func geodesicPropertySetsTheFlag() throws {
        let on = try #require(try readGeoJSON(feature(line, properties: #"{"geodesic": true, "n": 1}"#)).routes.first)
        #expect(on.geodesic)
        #expect(on.properties == [Property("geodesic", .bool(true)), Property("n", .int(1))])
        let off = try #require(try readGeoJSON(feature(line, properties: #"{"geodesic": "true"}"#)).routes.first)
        #expect(off.geodesic == false)
    }

    // MARK: Validation

    @Test(arguments: [
        (#"{"type": "LineString", "coordinates": [[0, 0], [1, 1], [2, 91.5]]}"#,
         "coordinate 2 of part 0: latitude 91.5 is out of range [-90, 90]"),
        (#"{"type": "LineString", "coordinates": [[0, -90.001], [1, 1]]}"#,
         "coordinate 0 of part 0: latitude -90.001 is out of range [-90, 90]"),
        (#"{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[0, 0], [800, 1]]]}"#,
         "coordinate 1 of part 1: longitude 800 is out of range [-720, 720]"),
        (#"{"type": "LineString", "coordinates": [[0, 0]]}"#, "LineString has 1 position; a route needs at least 2"),
        (#"{"type": "LineString", "coordinates": []}"#, "LineString has 0 positions; a route needs at least 2"),
        (#"{"type": "MultiLineString", "coordinates": []}"#, "MultiLineString has no parts"),
        (#"{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2]]]}"#,
         "part 1 of MultiLineString has 1 position; a route needs at least 2"),
        (#"{"type": "MultiLineString", "coordinates": [[]]}"#,
         "part 0 of MultiLineString has 0 positions; a route needs at least 2"),
        (#"{"type": "LineString", "coordinates": [[0, 0], [1]]}"#,
         "coordinate 1 of part 0 has 1 number; a position needs at least 2"),
        (#"{"type": "LineString", "coordinates": [[0, 0], [1, "2"]]}"#,
         "coordinate 1 of part 0 holds a string; positions hold numbers"),
        (#"{"type": "LineString", "coordinates": [[0, 0], []]}"#,
         "coordinate 1 of part 0 is empty; a position needs at least 2 numbers"),
        (#"{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[0, 0], null]]}"#,
         "MultiLineString coordinates must be an array of arrays of positions; found null where an array belongs"),
        (#"{"type": "LineString", "coordinates": [0, 0]}"#, "LineString coordinates must be an array of positions"),
        (#"{"type": "LineString", "coordinates": [[[0, 0], [1, 1]]]}"#,
         "LineString coordinates must be an array of positions"),
        (#"{"type": "MultiLineString", "coordinates": [[0, 0], [1, 1]]}"#,
         "MultiLineString coordinates must be an array of arrays of positions"),
        (#"{"type": "LineString", "coordinates": "x"}"#,
         "LineString coordinates must be an array of positions; found a string where an array belongs"),
        (#"{"type": "LineString"}"#, #"LineString has no "coordinates""#),
        (#"{"coordinates": [[0, 0], [1, 1]]}"#, #"geometry has no "type""#),
        (#"{"type": "Curve", "coordinates": [[0, 0], [1, 1]]}"#, "unknown geometry type 'Curve'"),
        (#"{"type": 3}"#, #""type" must be a string, found a number"#),
        (#"{"type": "GeometryCollection"}"#, #"GeometryCollection has no "geometries""#),
        (#"{"type": "GeometryCollection", "geometries": [{"type": "LineString", "coordinates": [[0, 0]]}]}"#,
         "geometry 0 of GeometryCollection: LineString has 1 position; a route needs at least 2"),
        (#"{"type": "GeometryCollection", "geometries": [1]}"#,
         "geometry 0 of GeometryCollection must be an object, found a number"),
        ("[]", #""geometry" must be an object or null, found an array"#),
    ])
    func reportsWhatIsWrongWithAGeometry(geometry: String, message: String) throws {
        let error = try #require(readError(collection(feature(line), feature(geometry))))
        #expect(error.location == .feature(1))
        #expect(error.message == message)
        #expect(error.file == "t.geojson")
    }

    @Test func acceptsUnwrappedLongitudesAndTheRangeLimits() throws {
        let result = try readGeoJSON(
            #"{"type": "LineString", "coordinates": [[179, 90], [190, -90], [720, 0], [-720, 0]]}"#)
        #expect(result.routes.first?.parts.first?.count == 4)
    }

    @Test(arguments: [
        (#"{"properties": {}, "geometry": null}"#, #"feature has no "type""#),
        (#"{"type": "Point", "coordinates": [0, 0]}"#, "expected type 'Feature', found 'Point'"),
        ("[1, 2]", "a feature must be an object, found an array"),
        (#"{"type": "Feature", "id": true, "geometry": null}"#, #""id" must be a string or a number, found a boolean"#),
        (#"{"type": "Feature", "properties": [], "geometry": null}"#,
         #""properties" must be an object or null, found an array"#),
    ])
    func reportsWhatIsWrongWithAFeature(text: String, message: String) throws {
        let error = try #require(readError(collection(feature(line), feature(line), text)))
        #expect(error.location == .feature(2))
        #expect(error.message == message)
    }

    @Test func describesFeatureErrorsWithFileAndIndex() throws {
        let error = try #require(readError(collection(feature(#"{"type": "LineString", "coordinates": [[0, 0]]}"#))))
        #expect(error.description == "t.geojson: feature 0: LineString has 1 position; a route needs at least 2")
    }

    @Test func throwsTheFirstInvalidFeature() throws {
        let bad = #"{"type": "LineString", "coordinates": [[0, 0]]}"#
        #expect(readError(collection(feature(line), feature(bad), feature(bad)))?.location == .feature(1))
        // Also when the features come before the type.
        let late = #"{"features": [\#(feature(line)), \#(feature(line)), \#(feature(bad))], "type": "FeatureCollection"}"#
        #expect(readError(late)?.location == .feature(2))
    }

    @Test func skipsInvalidFeaturesWhenAsked() throws {
        let text = collection(
            feature(line, id: "1"),
            feature(#"{"type": "LineString", "coordinates": [[0, 0], [0, 95]]}"#, id: "2"),
            feature(#"{"type": "Point", "coordinates": [0, 0]}"#),
            "7",
            feature(line, id: "5"))
        let result = try readGeoJSON(text, skipInvalid: true)
        #expect(result.routes.map(\.id) == [.number(1), .number(5)])
        #expect(result.routes.map(\.origin) == ["t.geojson feature 0", "t.geojson feature 4"])
        #expect(result.skippedGeometries == ["Point": 1])
        #expect(result.invalid == [
            InputError(file: "t.geojson", location: .feature(1),
                       message: "coordinate 1 of part 0: latitude 95 is out of range [-90, 90]"),
            InputError(file: "t.geojson", location: .feature(3), message: "a feature must be an object, found a number"),
        ])
    }

    /// A coordinate too large for a Double is an out-of-range coordinate of its feature, skippable, not a syntax
    /// error that stops the file; a property that large is still refused.
    @Test func hugeCoordinatesAreOutOfRangeNotSyntaxErrors() throws {
        let text = collection(
            feature(line, id: "1"),
            feature(#"{"type": "LineString", "coordinates": [[0, 0], [1e400, 1]]}"#, id: "2"),
            feature(line, id: "3"))
        let result = try readGeoJSON(text, skipInvalid: true)
        #expect(result.routes.map(\.id) == [.number(1), .number(3)])
        #expect(result.invalid == [InputError(file: "t.geojson", location: .feature(1),
                                              message: "coordinate 1 of part 0: longitude inf is out of range [-720, 720]")])
        #expect(inputError { _ = try readGeoJSON(text) }?.location == .feature(1))
        let property = collection(#"{"type": "Feature", "properties": {"x": 1e400}, "geometry": \#(line)}"#)
        #expect(inputError { _ = try readGeoJSON(property, skipInvalid: true) }?.message == "number out of range")
    }

    @Test func reportsAnInvalidSingleFeatureUnderSkipInvalid() throws {
        let result = try readGeoJSON(#"{"type": "LineString", "coordinates": [[0, 0]]}"#, skipInvalid: true)
        #expect(result.routes.isEmpty)
        #expect(result.invalid.map(\.location) == [.feature(0)])
    }

    // MARK: Document errors

    @Test func syntaxErrorsAlwaysThrowWithLineAndColumn() throws {
        let text = "{\"type\": \"FeatureCollection\",\n \"features\": [\n  {\"type\": \"Feature\" \"geometry\": null}]}"
        for skipInvalid in [false, true] {
            let error = try #require(inputError { _ = try readGeoJSON(text, skipInvalid: skipInvalid) })
            #expect(error.location == .line(3, column: 22))
            #expect(error.message == "expected ',' or '}' after object member, found '\"'")
        }
    }

    @Test func syntaxErrorsAfterTheFeaturesStillThrow() {
        #expect(readError(collection(feature(line)) + " ]")?.message
                    == "expected end of input after the JSON value, found ']'")
    }

    @Test(arguments: [
        ("", InputError.Location.none, "file is empty"),
        (" \n ", .none, "file is empty"),
        ("[1, 2]", .line(1, column: 1), "expected a GeoJSON object at the top level, found an array"),
        ("\n  \"x\"", .line(2, column: 3), "expected a GeoJSON object at the top level, found a string"),
        (#"{"type": "Topology"}"#, .line(1, column: 10),
         "unknown GeoJSON type 'Topology'; expected a FeatureCollection, Feature or geometry"),
        (#"{"type": 1}"#, .line(1, column: 10), #"top-level "type" must be a string, found a number"#),
        (#"{"features": []}"#, .none,
         #"the top-level object has no "type"; expected a GeoJSON FeatureCollection, Feature or geometry"#),
        (#"{"type": "FeatureCollection"}"#, .none, #"FeatureCollection has no "features""#),
        (#"{"type": "FeatureCollection", "features": {}}"#, .none, #""features" must be an array, found an object"#),
    ])
    func reportsDocumentErrors(text: String, location: InputError.Location, message: String) throws {
        let error = try #require(readError(text))
        #expect(error.location == location)
        #expect(error.message == message)
    }
}
