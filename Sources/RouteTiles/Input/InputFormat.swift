/// The route file formats RouteTiles reads.
public enum InputFormat: String, Sendable, CaseIterable {
    case geojson
    case csv

    /// The format of a file: by its extension (`.geojson` and `.json` are GeoJSON, `.csv` is CSV), else by its
    /// content (a first non-blank byte `{` is GeoJSON; a first line naming latitude and longitude columns is CSV).
    /// Nil when neither tells.
    public static func detect(path: String, bytes: [UInt8]) -> InputFormat? {
        let name = path.split(separator: "/").last ?? Substring(path)
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            switch name[name.index(after: dot)...].lowercased() {
            case "geojson", "json": return .geojson
            case "csv": return .csv
            default: break
            }
        }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        guard let first = bytes[start...].firstIndex(where: { !isSpace($0) }) else { return nil }
        if bytes[first] == UInt8(ascii: "{") { return .geojson }
        if CSVReader.headerNamesCoordinates(bytes) { return .csv }
        return nil
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
