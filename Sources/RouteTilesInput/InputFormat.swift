/// The route file formats RouteTiles reads.
public enum InputFormat: String, Sendable, CaseIterable {
    /// A GeoJSON Feature, FeatureCollection or geometry.
    case geojson
    /// Comma-separated positions, one per row, grouped into routes by a route column.
    case csv
    /// Encoded polylines, one per line, optionally `id<TAB>polyline`.
    case polyline
    /// A Google Directions, OSRM route or Valhalla route response (JSON).
    case directions
    /// GPX tracks and routes.
    case gpx
    /// GeoJSON text sequences (RFC 8142) or newline-delimited GeoJSON.
    case geojsonseq

    /// The extensions of route files (`detect`'s), lower-case: what a folder given as an input is searched for.
    public static let fileExtensions: Set<String> = [
        "geojson", "json", "csv", "polyline", "txt", "gpx", "geojsons", "geojsonseq", "geojsonl", "ndjson", "jsonl",
    ]

    /// The format of a file: by its extension, else (and for `.json`, which may be GeoJSON or directions) by its
    /// content. Nil when neither tells. `bytes` may be only the start of the file.
    ///
    /// Extensions: `.geojson`; `.json` (GeoJSON or directions, by content); `.csv`; `.polyline`, `.txt`; `.gpx`;
    /// `.geojsons`, `.geojsonseq`, `.geojsonl`, `.ndjson`, `.jsonl`. Content: a record separator (0x1E) or one JSON
    /// object per line is a sequence; `<` is GPX; an object with `routes` or `trip` and no `type` is directions;
    /// another `{` is GeoJSON; a header naming latitude and longitude is CSV; lines of polyline characters are
    /// polylines.
    public static func detect(path: String, bytes: [UInt8]) -> InputFormat? {
        let name = path.split(separator: "/").last ?? Substring(path)
        var json = false
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            switch name[name.index(after: dot)...].lowercased() {
            case "geojson": return .geojson
            case "json": json = true
            case "csv": return .csv
            case "polyline": return .polyline
            case "gpx": return .gpx
            case "geojsons", "geojsonseq", "geojsonl", "ndjson", "jsonl": return .geojsonseq
            default: break
            }
        }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        guard let first = bytes[start...].firstIndex(where: { !isSpace($0) }) else { return json ? .geojson : nil }
        switch bytes[first] {
        case 0x1E: return .geojsonseq
        case UInt8(ascii: "<"): return .gpx
        case UInt8(ascii: "{"):
            if isObjectPerLine(bytes, from: first) { return .geojsonseq }
            return DirectionsReader.looksLikeDirections(bytes) ? .directions : .geojson
        default:
            if json { return .geojson }
            if CSVReader.headerNamesCoordinates(bytes) { return .csv }
            if looksLikePolylines(bytes[first...]) { return .polyline }
            return nil
        }
    }

    /// True when the first line holds a whole object (it ends with `}`) and another object follows on a later line.
    static func isObjectPerLine(_ bytes: [UInt8], from first: Int) -> Bool {
        guard let newline = bytes[first...].firstIndex(of: UInt8(ascii: "\n")) else { return false }
        guard let last = bytes[first..<newline].lastIndex(where: { !isSpace($0) }),
              bytes[last] == UInt8(ascii: "}") else { return false }
        guard let next = bytes[(newline + 1)...].firstIndex(where: { !isSpace($0) }) else { return false }
        return bytes[next] == UInt8(ascii: "{")
    }

    /// True when the first lines (up to 4 KB) each hold, after an optional `id<TAB>`, a polyline of two or more
    /// positions (a last line cut off by the 4 KB limit is not checked).
    static func looksLikePolylines(_ bytes: ArraySlice<UInt8>) -> Bool {
        let head = bytes.prefix(4096)
        var sawOne = false
        let lines = head.split(separator: UInt8(ascii: "\n"))
        for (index, line) in lines.enumerated() {
            var text = line
            if let tab = line.firstIndex(of: UInt8(ascii: "\t")) { text = line[(tab + 1)...] }
            let trimmed = text.filter { !isSpace($0) }
            guard trimmed.allSatisfy({ $0 >= 63 && $0 <= 126 }) else { return false }
            if trimmed.isEmpty { continue }
            if index == lines.count - 1, head.count < bytes.count { break }
            guard let points = try? PolylineCodec.decode(trimmed), points.count >= 2 else { return false }
            sawOne = true
        }
        return sawOne
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
