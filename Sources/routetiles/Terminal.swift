import ArgumentParser
import Foundation
import RouteTiles

/// Prints `text` on standard error and gives the exit code of a failed command, to throw.
func failure(_ text: String) -> ExitCode {
    FileHandle.standardError.write(Data((text + "\n").utf8))
    return .failure
}

/// Progress and summaries on standard error. Progress shows only when standard error is a terminal.
struct Terminal: Sendable {
    let quiet: Bool
    let interactive: Bool

    init(quiet: Bool) {
        self.quiet = quiet
        interactive = isatty(STDERR_FILENO) == 1
    }

    func note(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data(("note: " + text + "\n").utf8))
    }

    /// Something in the input that was worked around (a route read without its times): the command goes on.
    func warning(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data(("warning: " + text + "\n").utf8))
    }

    /// A progress callback that redraws one line: tiles done, tiles/s, elapsed time, current zoom.
    func progressReporter(started: Date) -> (@Sendable (BuildProgress) -> Void)? {
        guard !quiet, interactive else { return nil }
        return { p in
            let elapsed = Date().timeIntervalSince(started)
            let rate = elapsed > 0 ? Double(p.tilesWritten) / elapsed : 0
            let line = String(format: "\r\u{1B}[K  z%-2d  %d tiles  %.0f tiles/s  %.1f s", p.zoom, p.tilesWritten, rate, elapsed)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Clears the progress line.
    func endProgress() {
        guard !quiet, interactive else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    func summary(routes: Int, withoutTimes: Int = 0, points: Int, statistics: BuildStatistics, seconds: Double,
                 output: String) {
        guard !quiet else { return }
        var text = "\(routes) routes"
        if withoutTimes > 0 { text += " (\(withoutTimes) read without their times)" }
        text += ", \(points) points → \(statistics.tiles) tiles, \(Self.bytes(statistics.bytes)) "
        text += String(format: "in %.2f s (%.0f tiles/s)\n", seconds, seconds > 0 ? Double(statistics.tiles) / seconds : 0)
        for z in statistics.tilesPerZoom.keys.sorted() {
            let count = statistics.tilesPerZoom[z] ?? 0
            let bytes = statistics.bytesPerZoom[z] ?? 0
            let zoom = "z\(z)".padding(toLength: 4, withPad: " ", startingAt: 0)
            let tiles = String(repeating: " ", count: max(0, 9 - String(count).count)) + String(count)
            text += "  \(zoom)\(tiles) tiles  \(Self.bytes(bytes))".padding(toLength: 34, withPad: " ", startingAt: 0)
            text += "largest \(Self.bytes(statistics.largestPerZoom[z] ?? 0))"
            if let reduced = statistics.reductionsPerZoom[z] { text += "  " + Self.reductions(reduced) }
            text += "\n"
        }
        text += "wrote \(output)\n"
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// A zoom's fitted tiles in a few words: "3 fitted (merged; 1 coarser, to 4 px; 1 with 212 lines left out)".
    static func reductions(_ z: ZoomReductions) -> String {
        var text = "\(z.tiles) fitted to the budget (lines merged"
        if z.coarsened > 0 { text += "; \(z.coarsened) on coarser grids, up to \(z.maxGridPixels) px" }
        if z.dropped > 0 {
            text += "; \(z.dropped) with \(z.droppedLines) lines"
            if z.droppedPoints > 0 { text += " and \(z.droppedPoints) points" }
            text += " left out"
        }
        return text + ")"
    }

    static func bytes(_ n: Int) -> String {
        if n < 1024 { return "\(n) B" }
        if n < 1 << 20 { return String(format: "%.1f KiB", Double(n) / 1024) }
        return String(format: "%.1f MiB", Double(n) / 1_048_576)
    }
}
