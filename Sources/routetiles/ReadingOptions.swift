import ArgumentParser
import RouteTiles

/// How the commands that read route files read them; shared so that `build`, `serve` and `check` read alike.
struct ReadingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Input format, instead of detecting it from the name and content "
                + "(\(InputFormat.allCases.map(\.rawValue).joined(separator: ", ")))."))
    var format: String?

    @Option(help: "Encoded polylines: 5 (Google) or 6 (OSRM polyline6, Valhalla).")
    var precision = 5

    @Flag(help: "Draw every route along geodesics on the WGS84 ellipsoid (a route's \"geodesic\": true does it for one).")
    var geodesic = false

    @Option(help: "CSV: the latitude column, instead of lat or latitude.")
    var latColumn: String?

    @Option(help: "CSV: the longitude column, instead of lon, lng, long or longitude.")
    var lonColumn: String?

    @Option(help: "CSV: the column that groups rows into routes, instead of route or id.")
    var routeColumn: String?

    @Flag(help: "Skip invalid routes (reporting how many) instead of stopping at the first one.")
    var skipInvalid = false

    func validate() throws {
        if let format, InputFormat(rawValue: format.lowercased()) == nil {
            throw ValidationError("unknown --format '\(format)'; known: "
                + InputFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if precision != 5 && precision != 6 { throw ValidationError("--precision must be 5 or 6") }
    }

    var inputFormat: InputFormat? { format.flatMap { InputFormat(rawValue: $0.lowercased()) } }

    var readOptions: ReadOptions {
        ReadOptions(skipInvalid: skipInvalid, latColumn: latColumn, lonColumn: lonColumn, routeColumn: routeColumn,
                    precision: precision, geodesic: geodesic)
    }
}
