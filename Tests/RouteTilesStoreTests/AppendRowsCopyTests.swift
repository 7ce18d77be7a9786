import Foundation
import NIOCore
import RouteTiles
@testable import RouteTilesPostgres
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The COPY text the PostgreSQL store writes appends with: times as PostgreSQL prints a `timestamptz` in UTC, to
/// the microsecond, and keys escaped as COPY's text format needs. (The store's tests write through COPY for real.)
struct AppendRowsCopyTests {
    @Test func timesAreUTCToTheMicrosecond() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var rng = SeededGenerator(seed: 5)
        for _ in 0..<2000 {
            let time = Double.random(in: 0..<4_102_444_800, using: &rng)
            let micros = (time * 1_000_000).rounded()
            let seconds = (micros / 1_000_000).rounded(.down)
            let expected = formatter.string(from: Date(timeIntervalSince1970: seconds))
                + "." + String(format: "%06d", Int(micros - seconds * 1_000_000)) + "+00"
            #expect(AppendRowsCopy.timestamp(time) == expected, "\(time)")
        }
        // A fraction that rounds up carries into the next second.
        #expect(AppendRowsCopy.timestamp(1_700_000_000.9999997) == "2023-11-14 22:13:21.000000+00")
        #expect(AppendRowsCopy.timestamp(0) == "1970-01-01 00:00:00.000000+00")
    }

    @Test func aRowIsOneLineOfTabSeparatedColumns() {
        var rows = AppendRowsCopy(capacity: 64)
        rows.add(seq: 42, key: "a\tb\\c\nd\re", base: 7,
                 points: [Coordinate(longitude: 2.5, latitude: -48.25), Coordinate(longitude: 1e-7, latitude: 0.1)],
                 changedAt: "2026-11-26 13:38:52.123456+00")
        let text = String(decoding: rows.buffer.readableBytesView, as: UTF8.self)
        #expect(text == "42\ta\\tb\\\\c\\nd\\re\tappend\t7\t{2.5,-48.25,1e-07,0.1}\t2026-11-26 13:38:52.123456+00\t\\N\n")
        // With times: Unix seconds, one per point, as the last column.
        var timed = AppendRowsCopy(capacity: 64)
        timed.add(seq: 43, key: "van", base: 42, points: [Coordinate(longitude: 2.5, latitude: -48.25)],
                  changedAt: "2026-11-26 13:38:52.123456+00", times: [1_795_788_300_250])
        #expect(String(decoding: timed.buffer.readableBytesView, as: UTF8.self)
            == "43\tvan\tappend\t42\t{2.5,-48.25}\t2026-11-26 13:38:52.123456+00\t{1795788300.25}\n")
    }
}
