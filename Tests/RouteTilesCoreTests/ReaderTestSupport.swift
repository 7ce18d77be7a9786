import RouteTiles
@testable import RouteTilesInput

/// Runs the JSON scanner over `text` and returns the whole value it holds.
func parseJSON(_ text: String) throws(JSONSyntaxError) -> JSONValue {
    try parseJSON(Array(text.utf8))
}

func parseJSON(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
    try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) -> JSONValue in
        var scanner = JSONScanner(bytes: buffer)
        let value = try scanner.readValue()
        try scanner.finish()
        return value
    }
}

/// The syntax error the scanner reports for `text`, as the user sees it (line, column, message), or nil if it
/// parses.
func jsonError(_ text: String) -> InputError? {
    jsonError(Array(text.utf8))
}

func jsonError(_ bytes: [UInt8]) -> InputError? {
    do {
        _ = try parseJSON(bytes)
        return nil
    } catch {
        return bytes.withUnsafeBufferPointer { error.inputError(file: "t.json", in: $0) }
    }
}

func readGeoJSON(_ text: String, skipInvalid: Bool = false) throws -> ReadResult {
    try GeoJSONReader.read(Array(text.utf8), file: "t.geojson", options: ReadOptions(skipInvalid: skipInvalid))
}

func readCSV(_ text: String, options: ReadOptions = ReadOptions()) throws -> ReadResult {
    try CSVReader.read(Array(text.utf8), file: "t.csv", options: options)
}

/// The InputError `body` throws, or nil if it throws none (or another kind).
func inputError(_ body: () throws -> Void) -> InputError? {
    do {
        try body()
        return nil
    } catch let error as InputError {
        return error
    } catch {
        return nil
    }
}

func coordinates(_ pairs: [(Double, Double)]) -> [Coordinate] {
    pairs.map { Coordinate(longitude: $0.0, latitude: $0.1) }
}
