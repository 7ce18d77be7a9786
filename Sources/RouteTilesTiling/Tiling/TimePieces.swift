import RouteTilesModel

/// How a route with times is cut in time: at each zoom, its line is cut where its time crosses a whole multiple of
/// a piece length (UTC, counted from 1970), and each piece is a feature of its own with `start_t` and `end_t`, the
/// bounds of its piece in seconds since 1970. A client then filters tracks by time from tiles alone
/// (`["all", [">", "end_t", from], ["<", "start_t", to]]`), to the precision of the piece length: one minute at
/// zoom 12 and deeper.
///
/// A piece holds the track between its bounds. Where a single segment (a gap between two fixes) crosses several
/// bounds, it is cut at its first and last only, and the stretch between is one piece whose bounds are those two:
/// a gap of hours adds three features, not one per minute.
public enum TimePieces {
    /// The piece length of each zoom range, in seconds: coarse where a tile spans a day of travel, a minute where it
    /// spans a street.
    public static let lengths: [(zooms: ClosedRange<Int>, seconds: Int)] = [
        (0...3, 86_400), (4...5, 21_600), (6...7, 3_600), (8...9, 900), (10...11, 300), (12...TileID.maxZoom, 60),
    ]

    /// The piece length at zoom `zoom`, in seconds.
    public static func seconds(zoom: Int) -> Int {
        lengths.first { $0.zooms.contains(zoom) }?.seconds ?? 60
    }

    /// The piece length of every zoom from `minZoom` to `maxZoom`, keyed by the zoom as text: the `time_pieces`
    /// member of TileJSON and of a tileset's metadata.
    public static func table(minZoom: Int, maxZoom: Int) -> [String: Int] {
        var table: [String: Int] = [:]
        for zoom in minZoom...max(minZoom, maxZoom) { table[String(zoom)] = seconds(zoom: zoom) }
        return table
    }
}
