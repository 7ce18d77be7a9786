import ArgumentParser
import Foundation
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

    @Option(help: "CSV (and --points-as-tracks): the column that groups rows into routes, instead of route, id or object_id.")
    var routeColumn: String?

    @Flag(help: "Skip invalid routes (reporting how many) instead of stopping at the first one.")
    var skipInvalid = false

    @Option(help: ArgumentHelp("keep: read the times of positions (GPX <time>, GeoJSON coordTimes, a CSV time "
                + "column); a route whose times cannot be used (one missing, unreadable, outside 1970-9999, going "
                + "back, or one placeholder instant on every position) is read without them, with a warning. "
                + "strict: such a time stops the command (--skip-invalid skips its route). ignore: drop every time "
                + "the files hold.", valueName: "keep|strict|ignore"))
    var times: TimesRule = .keep

    @Option(help: ArgumentHelp("CSV: the time column (ISO 8601 or Unix seconds), instead of time, timestamp or "
                + "datetime; none: read no times from CSV.", valueName: "name"))
    var timeColumn: String?

    @Option(help: ArgumentHelp("Read times written without a zone (2013-07-10 00:00:03) as UTC; without it they are "
                + "refused (GPX times are UTC anyway).", valueName: "UTC"))
    var timeZone: String?

    @Flag(help: "CSV and --points-as-tracks: put each route's rows in time order, instead of refusing times that go back.")
    var orderByTime = false

    @Option(help: ArgumentHelp("Directions: the departure (ISO 8601 with a zone, Unix seconds, or now), from which "
                + "every vertex gets its planned time; without it directions routes have no times.", valueName: "time"))
    var departAt: String?

    @Flag(help: ArgumentHelp("GeoJSON sequences and NDJSON: make line routes of Point features (grouped by "
                + "--route-column, else route, id, object_id or the feature id), each point's time from its time, "
                + "timestamp or t property."))
    var pointsAsTracks = false

    func validate() throws {
        if let format, InputFormat(rawValue: format.lowercased()) == nil {
            throw ValidationError("unknown --format '\(format)'; known: "
                + InputFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if precision != 5 && precision != 6 { throw ValidationError("--precision must be 5 or 6") }
        if let timeZone, timeZone.uppercased() != "UTC" {
            throw ValidationError("--time-zone takes only UTC (times with a zone of their own keep it), not '\(timeZone)'")
        }
        _ = try departure()
    }

    /// `--depart-at` in milliseconds since 1970; `now` is the clock's time when the options are read.
    func departure() throws -> Int64? {
        guard let departAt else { return nil }
        if departAt.lowercased() == "now" {
            return TimeValue.seconds(Date().timeIntervalSince1970)
        }
        do {
            return try TimeValue.parse(textOrSeconds: departAt)
        } catch {
            throw ValidationError("--depart-at: \(error.description)")
        }
    }

    var inputFormat: InputFormat? { format.flatMap { InputFormat(rawValue: $0.lowercased()) } }

    var readOptions: ReadOptions {
        ReadOptions(skipInvalid: skipInvalid, latColumn: latColumn, lonColumn: lonColumn, routeColumn: routeColumn,
                    precision: precision, geodesic: geodesic, times: times, timeColumn: timeColumn,
                    timeZone: timeZone == nil ? .refuse : .utc, orderByTime: orderByTime,
                    departure: try? departure(), pointsAsTracks: pointsAsTracks)
    }
}

extension TimesRule: ExpressibleByArgument {}
