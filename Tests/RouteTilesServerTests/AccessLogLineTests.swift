import Foundation
@testable import RouteTilesServer
import Testing

/// The access log's line, written byte by byte: the same text swift-log's stream handler would write
/// (`2026-11-24T06:10:00+0000 info routetiles: GET /tiles/14/8299/5636.mvt 200 1432 0.061ms`).
@Suite struct AccessLogLineTests {
    @Test func linesReadAsTheStreamHandlersDoWithEveryDigit() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("access-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        let log = AccessLog(label: "routetiles", descriptor: handle.fileDescriptor)
        let cases: [(String, String, Int, Int, Double, String)] = [
            ("GET", "/tiles/14/8299/5636.mvt", 200, 1432, 0.061, "200 1432 0.061ms"),
            ("HEAD", "/tiles/0/0/0.mvt", 204, 0, 0, "204 0 0.000ms"),
            ("POST", "/routes/points", 422, 98_765_432_101, 12.3456, "422 98765432101 12.346ms"),
            ("GET", "/ogc/tiles/WorldCRS84Quad/3/0/15", 404, 7, 1000.0004, "404 7 1000.000ms"),
            ("GET", "/é", 200, 10, 0.0095, "200 10 0.010ms"),
        ]
        for (method, path, status, bytes, ms, _) in cases {
            log.record(method: method, path: path.utf8, status: status, bytes: bytes, milliseconds: ms)
        }
        log.drain()
        try handle.close()
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(lines.count == cases.count, "\(lines)")
        let stamp = try Regex(#"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000 info routetiles: "#)
        for (line, (method, path, _, _, _, tail)) in zip(lines, cases) {
            #expect(line.prefixMatch(of: stamp) != nil, "\(line)")
            #expect(line.hasSuffix(" info routetiles: \(method) \(path) \(tail)"), "\(line)")
        }
        #expect(AccessLog.format(0.061) == "0.061" && AccessLog.format(5) == "5.000" && AccessLog.format(0.1) == "0.100")
    }
}
