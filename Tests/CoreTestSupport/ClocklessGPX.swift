/// The track points of Mojstrovka.gpx, a real file from a device without a clock: 184 points in the Julian Alps,
/// each with its elevation and the time 1901-12-13T20:45:52.2073437Z (the smallest 32-bit Unix time, seven digits
/// of fraction), one `<trkpt>` a line, each indented by two spaces. Its `<time>` starts at column 53.
package enum ClocklessGPX {
    package static func trackPoints(count: Int = 184) -> String {
        (0..<count).map { i in
            "  <trkpt lat=\"46.\(4300 + i)\" lon=\"13.\(7400 + i)\"><ele>\(1600 + i)</ele>"
                + "<time>1901-12-13T20:45:52.2073437Z</time></trkpt>"
        }.joined(separator: "\n")
    }
}
