import Testing

/// The lines of a GeoJSON LineString (one line) or MultiLineString geometry as JSONSerialization gives it, with
/// positions of `Number`s; another geometry type is an issue.
package func geoJSONLines<Number>(_ geometry: [String: Any], of _: Number.Type,
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> [[[Number]]] {
    if geometry["type"] as? String == "LineString" {
        return [try #require(geometry["coordinates"] as? [[Number]], sourceLocation: sourceLocation)]
    }
    #expect(geometry["type"] as? String == "MultiLineString", sourceLocation: sourceLocation)
    return try #require(geometry["coordinates"] as? [[[Number]]], sourceLocation: sourceLocation)
}
