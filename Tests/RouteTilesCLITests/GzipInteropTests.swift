import RouteTiles
import RouteTilesCoreTestSupport
import RouteTilesTestSupport
import Testing

private let pythonAvailable = ExternalTool.required(ExternalTool.pythonHas("gzip, zlib"))

/// Our gzip against Python's gzip and zlib modules, both ways.
@Suite struct GzipInteropTests {
    @Test(.enabled(if: pythonAvailable, "needs python3"))
    func pythonReadsOurGzip() async throws {
        for input in try Sample.gzipInputs() {
            let compressed = try Gzip.compress(input)
            let result = try await ExternalTool.pythonDetached(
                "import gzip, sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))",
                stdin: compressed)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == input)
        }
    }

    @Test(.enabled(if: pythonAvailable, "needs python3"))
    func weReadPythonsGzipAndZlib() async throws {
        let input = try Sample.gzipInputs()[2]
        for script in ["import gzip, sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read()))",
                       "import zlib, sys; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read()))"] {
            let result = try await ExternalTool.pythonDetached(script, stdin: input)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Gzip.decompress(result.stdout) == input)
        }
    }

}
