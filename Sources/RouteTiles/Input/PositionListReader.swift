/// Reads the points appended to a live route: a JSON array of `[longitude, latitude]` positions, as in a GeoJSON
/// LineString's `coordinates` (one position is enough). Extra numbers (altitude) are dropped.
package enum PositionListReader {
    package static func read(_ bytes: [UInt8], file: String) throws -> [Coordinate] {
        try bytes.withUnsafeBufferPointer { buffer throws -> [Coordinate] in
            var scanner = JSONScanner(bytes: buffer)
            let nested: NestedCoordinates
            do throws(JSONSyntaxError) {
                scanner.skipWhitespace()
                nested = try scanner.readNestedCoordinates()
                try scanner.finish()
            } catch {
                throw error.inputError(file: file, in: buffer)
            }
            let line: [Coordinate]
            do throws(FeatureProblem) {
                // Wrapped as one part so that the shape rules of a LineString apply.
                line = try nested.lines(positionLevel: 2, typeName: "the point list", shape: "an array of [longitude, latitude] positions").first ?? []
            } catch {
                throw InputError(file: file, message: error.message)
            }
            guard !line.isEmpty else { throw InputError(file: file, message: "the point list is empty") }
            for (i, c) in line.enumerated() {
                if let problem = CoordinateLimits.problem(with: c) {
                    throw InputError(file: file, message: "position \(i): \(problem)")
                }
            }
            return line
        }
    }
}
