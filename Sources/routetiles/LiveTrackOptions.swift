import ArgumentParser
import RouteTiles

/// `serve`'s options for live tracks over a route store: how long they grow (by count and by time), how many tiles
/// one append may list, and which fixes are dropped as implausible.
struct LiveTrackOptions: ParsableArguments {
    @Option(help: ArgumentHelp("With --store: a live track keeps its last N positions; older ones are trimmed once it is an eighth past N, or for N of 512 or more in steps of 256 once it is 256 past N (a route's max_points property sets its own). Default: no bound.",
                               valueName: "n"))
    var maxTrackPoints: Int?

    @Option(help: ArgumentHelp("With --store: positions of tracks with times recorded longer ago than this are trimmed, at least once a minute, keeping each track's last two: 90m, 2h, 7d. A route's keep_for_s property (seconds) sets its own. Tracks without times are not trimmed by time. Default: no bound.",
                               valueName: "duration"))
    var keepFor: String?

    @Option(help: ArgumentHelp("With --store: the most tiles one append lists as changed for its new segments. A fix far from the last (a GPS glitch, a ferry) is drawn in tiles at every zoom, millions at deep zooms: its tiles are listed zoom by zoom while they fit, and below that zoom whole subtrees are invalidated (in the cache, the events, the expire log; purges send one BAN). At least 64.",
                               valueName: "n"))
    var maxAppendTiles = TilingOptions().appendTileLimit

    @Option(help: ArgumentHelp("Glitch filters of appended fixes, comma-separated: 'zero' drops fixes at exactly (0, 0), 'invalid' drops fixes outside ±90° latitude or ±180° longitude (instead of refusing the whole list with 400), 'repeated' drops a fix with a time at the very position of the route's last fix. Dropped fixes are named in the answer (dropped_positions) and counted in /metrics (routetiles_fixes_dropped_total). Default: none.",
                               valueName: "zero,invalid,repeated"))
    var dropFixes: String?

    @Option(help: ArgumentHelp("Drop a fix with a time that implies more than this speed from the route's last fix kept: 300km/h, 80kn, 50m/s. Named in the answer and counted (reason speed). Default: none.",
                               valueName: "speed"))
    var maxFixSpeed: String?

    @Option(help: ArgumentHelp("Drop a fix with a time less than this after the route's last fix kept: 5s, 1m. Named in the answer and counted (reason period). Default: none.",
                               valueName: "duration"))
    var minFixPeriod: String?

    @Option(help: ArgumentHelp("How far ahead of this server's clock a fix's time (\"t\") may be: 90s, 10m, 1h. A later one gets 400. Times in the past are always accepted (a phone's offline backlog).",
                               valueName: "duration"))
    var maxFixSkew: String = "10m"

    @Flag(help: "With --store: GET/POST /osmand makes the route of an unknown id from its first fix (a line of that fix twice, at its time), instead of answering 404.")
    var createFromFixes = false

    /// The glitch filters `--drop-fixes` names.
    var fixFilter: FixFilter {
        get throws {
            var filter = FixFilter()
            for name in (dropFixes ?? "").split(separator: ",", omittingEmptySubsequences: false) where dropFixes != nil {
                switch name.trimmingCharacters(in: .whitespaces) {
                case "zero": filter.dropZero = true
                case "invalid": filter.dropInvalid = true
                case "repeated": filter.dropRepeated = true
                default:
                    throw ValidationError("--drop-fixes takes 'zero', 'invalid' and 'repeated', comma-separated; '\(name)' is none of them")
                }
            }
            if let maxFixSpeed {
                guard let speed = FixFilter.speed(maxFixSpeed) else {
                    throw ValidationError("--max-fix-speed takes a speed such as 300km/h, 80kn or 50m/s; '\(maxFixSpeed)' is none")
                }
                filter.maxSpeed = speed
            }
            if let minFixPeriod {
                guard let period = TimeValue.duration(minFixPeriod) else {
                    throw ValidationError("--min-fix-period takes a duration such as 5s or 1m; '\(minFixPeriod)' is none")
                }
                filter.minPeriod = period
            }
            return filter
        }
    }

    /// The bounds of live tracks, by count and by time.
    var retention: TrackRetention {
        TrackRetention(maxPoints: maxTrackPoints, keepFor: keepFor.flatMap(TimeValue.duration).map { $0 / 1000 })
    }

    func validate() throws {
        if let maxTrackPoints, maxTrackPoints < 2 { throw ValidationError("--max-track-points must be at least 2") }
        if maxAppendTiles < 64 { throw ValidationError("--max-append-tiles must be at least 64") }
        _ = try fixFilter
        if let keepFor, TimeValue.duration(keepFor).map({ $0 >= 1000 }) != true {
            throw ValidationError("--keep-for takes a duration of a second or more such as 90m, 2h or 7d; '\(keepFor)' is none")
        }
        if TimeValue.duration(maxFixSkew) == nil {
            throw ValidationError("--max-fix-skew takes a duration such as 90s, 10m or 1h; '\(maxFixSkew)' is none")
        }
    }
}
