import RouteTilesModel

/// Reads a file of encoded polylines: one route per non-blank line, either `polyline` or `id<TAB>polyline`.
///
/// Routes without an id get none (the tiler numbers them by input order). Errors name the line and, for a bad polyline, the
/// column of the offending character. `ReadOptions.precision` sets the precision (5 unless told).
enum PolylineReader {
    static func read(_ bytes: [UInt8], file: String, options: ReadOptions) throws -> ReadResult {
        var result = ReadResult()
        var lineNumber = 0
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count {
            lineNumber += 1
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            defer { start = end + 1 }
            let line = bytes[start..<lineEnd]
            guard line.contains(where: { !InputFormat.isSpace($0) }) else { continue }
            do {
                if let route = try route(in: line, lineStart: start, lineNumber: lineNumber, file: file,
                                         options: options) {
                    result.routes.append(route)
                }
            } catch let error as InputError {
                guard options.skipInvalid else { throw error }
                result.invalid.append(error)
            }
        }
        return result
    }

    private static func route(in line: ArraySlice<UInt8>, lineStart: Int, lineNumber: Int, file: String,
                              options: ReadOptions) throws -> Route? {
        var text = line
        var id: RouteID?
        if let tab = line.firstIndex(of: UInt8(ascii: "\t")) {
            let name = String(decoding: line[line.startIndex..<tab], as: UTF8.self)
            id = UInt64(name).map(RouteID.number) ?? .string(name)
            text = line[(tab + 1)...]
        }
        while let last = text.last, InputFormat.isSpace(last) { text = text.dropLast() }
        while let first = text.first, InputFormat.isSpace(first) { text = text.dropFirst() }
        let coordinates: [Coordinate]
        do {
            coordinates = try PolylineCodec.decode(text, precision: options.precision)
        } catch {
            let column = text.startIndex - lineStart + error.offset + 1
            throw InputError(file: file, location: .line(lineNumber, column: column), message: error.message)
        }
        guard coordinates.count >= 2 else {
            throw InputError(file: file, location: .line(lineNumber, column: nil),
                             message: "polyline has \(coordinates.count) position(s); a route needs at least 2")
        }
        return Route(id: id, properties: [], parts: [coordinates],
                     origin: "\(file) line \(lineNumber)", geodesic: options.geodesic)
    }
}
