import RouteTiles
@testable import RouteTilesServer
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// The byte-level pieces of the cached-tile fast path: request heads, tile paths, `Accept-Encoding`.
@Suite struct RequestHeadScannerTests {
    func scan(_ text: String) -> RequestHeadScanner.Result {
        Array(text.utf8).withUnsafeBytes { RequestHeadScanner.scan($0) }
    }

    func length(_ text: String) -> Int? {
        if case let .request(_, length) = scan(text) { return length }
        return nil
    }

    func head(_ text: String) -> RequestHeadScanner.Head? {
        if case let .request(head, _) = scan(text) { return head }
        return nil
    }

    @Test func aTileRequestIsReadWithItsFields() throws {
        let text = "GET /tiles/14/8300/5635.mvt?v=2 HTTP/1.1\r\nHost: a\r\naccept-encoding: br, GZIP;q=0.5\r\n"
            + "If-None-Match: \"a\"\r\nIF-NONE-MATCH: \"b\"\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.1\r\n"
        let bytes = Array(text.utf8)
        guard case let .request(head, length) = bytes.withUnsafeBytes({ RequestHeadScanner.scan($0) }) else {
            Issue.record("not read")
            return
        }
        #expect(length == text.utf8.count - "GET / HTTP/1.1\r\n".utf8.count)
        #expect(head.isCandidate && !head.isHead && head.acceptsGzip)
        #expect(head.ifNoneMatch == "\"a\", \"b\"")
        #expect(String(decoding: bytes[head.pathStart..<(head.pathStart + head.pathCount)], as: UTF8.self)
            == "/tiles/14/8300/5635.mvt")
    }

    /// A window tile is another tile than the one cached under its path: never a fast-path candidate.
    @Test func windowTilesAreNotCandidates() {
        for query in ["?from=2026-11-27T14:00:00Z", "?to=1795788300", "?v=2&from=1", "?a=1&to=", "?from"] {
            #expect(head("GET /tiles/14/8300/5635.mvt\(query) HTTP/1.1\r\n\r\n")?.isCandidate == false, "\(query)")
        }
        for query in ["", "?v=2", "?fromage=1", "?tow=2&x=from", "?v=to"] {
            #expect(head("GET /tiles/14/8300/5635.mvt\(query) HTTP/1.1\r\n\r\n")?.isCandidate == true, "\(query)")
        }
    }

    @Test func onlyPlainHTTP11GetsAndHeadsAreCandidates() {
        #expect(head("HEAD /t HTTP/1.1\r\n\r\n")?.isHead == true)
        #expect(head("GET /t HTTP/1.1\r\n\r\n")?.isCandidate == true)
        #expect(head("GET /t HTTP/1.1\r\nContent-Length: 0\r\n\r\n")?.isCandidate == true)
        #expect(head("GET /t HTTP/1.1\r\nConnection: Keep-Alive\r\n\r\n")?.isCandidate == true)
        // Known extent, but Hummingbird's to answer.
        for text in ["POST /t HTTP/1.1\r\n\r\n", "GET /t HTTP/1.0\r\n\r\n", "GET http://a/t HTTP/1.1\r\n\r\n",
                     "GET /t%41 HTTP/1.1\r\n\r\n", "OPTIONS * HTTP/1.1\r\n\r\n",
                     "GET /t HTTP/1.1\r\nConnection: close\r\n\r\n", "GET /t HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\n\r\n",
                     "GET /t HTTP/1.1\r\nExpect: 100-continue\r\n\r\n", "GET /t HTTP/1.1\r\nUpgrade: h2c\r\n\r\n"] {
            #expect(head(text)?.isCandidate == false, "\(text)")
            #expect(length(text) == text.utf8.count, "\(text)")
        }
        #expect(head("GET /t HTTP/1.1\r\n\r\n")?.acceptsGzip == false)
    }

    @Test func anythingItCannotDelimitIsUnsure() {
        let unsure = [
            "POST /t HTTP/1.1\r\nContent-Length: 5\r\n\r\nabcde",  // a body
            "POST /t HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "GET /t HTTP/1.1\nHost: a\n\n",  // bare LF
            "GET /t HTTP/1.1\r\nHost: a\rb\r\n\r\n",  // bare CR
            "GET /t HTTP/1.1\r\nHost: a\r\n b\r\n\r\n",  // obsolete folding
            "GET /t HTTP/1.1\r\nHo st: a\r\n\r\n", "GET /t HTTP/1.1\r\nNoColon\r\n\r\n",
            "GET /t HTTP/1.1\r\nX: a\u{1}b\r\n\r\n", "GET /t HTTP/2.0\r\n\r\n", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
            "GET /t\r\n\r\n", "GET  /t HTTP/1.1\r\n\r\n", "\r\nGET /t HTTP/1.1\r\n\r\n", "G(T /t HTTP/1.1\r\n\r\n",
        ]
        for text in unsure {
            guard case .unsure = scan(text) else {
                Issue.record("not unsure: \(text.debugDescription)")
                continue
            }
        }
    }

    /// Property: every proper prefix of a request head is incomplete (or, for a prefix ending in a lone CR that
    /// is not yet followed by its LF, still incomplete), and the whole head is read with its exact length.
    @Test func everyPrefixOfAHeadIsIncomplete() {
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<200 {
            let text = randomHead(using: &rng)
            #expect(length(text) == text.utf8.count)
            let bytes = Array(text.utf8)
            for cut in 0..<bytes.count {
                guard case .incomplete = bytes[..<cut].withUnsafeBytes({ RequestHeadScanner.scan($0) }) else {
                    Issue.record("prefix \(cut) of \(text.debugDescription) is not incomplete")
                    break
                }
            }
        }
    }

    /// Property: a stream of pipelined heads is cut into exactly its requests.
    @Test func pipelinedHeadsAreCutExactly() {
        var rng = SeededGenerator(seed: 12)
        for _ in 0..<100 {
            let heads = (0..<Int.random(in: 1...8, using: &rng)).map { _ in randomHead(using: &rng) }
            let bytes = Array(heads.joined().utf8)
            var offset = 0
            var lengths: [Int] = []
            while offset < bytes.count {
                guard case let .request(_, length) = bytes[offset...].withUnsafeBytes({ RequestHeadScanner.scan($0) })
                else { break }
                lengths.append(length)
                offset += length
            }
            #expect(lengths == heads.map(\.utf8.count))
        }
    }

    func randomHead(using rng: inout SeededGenerator) -> String {
        let methods = ["GET", "HEAD", "DELETE", "OPTIONS"]
        let names = ["Host", "Accept", "accept-encoding", "User-Agent", "If-None-Match", "X-Trace", "Cookie"]
        let values = ["*/*", "gzip, deflate, br", "\"0011aabb-gz\"", "a b\tc", "", "k=v; k2=v2", "curl/8.5.0"]
        let z = Int.random(in: 0...20, using: &rng)
        var text = "\(methods.randomElement(using: &rng) ?? "GET") /tiles/\(z)/\(Int.random(in: 0..<(1 << z), using: &rng))/0.mvt"
            + (Bool.random(using: &rng) ? "?k=1" : "") + " HTTP/1.1\r\n"
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            text += "\(names.randomElement(using: &rng) ?? "X"):\(Bool.random(using: &rng) ? " " : "")"
                + "\(values.randomElement(using: &rng) ?? "")\r\n"
        }
        return text + "\r\n"
    }

    @Test func tilePathsAreParsedStrictlyFromBytes() {
        var rng = SeededGenerator(seed: 13)
        for _ in 0..<1_000 {
            let z = Int.random(in: 0...TileID.maxZoom, using: &rng)
            let tile = TileID(z: z, x: Int.random(in: 0..<(1 << z), using: &rng), y: Int.random(in: 0..<(1 << z), using: &rng))
            #expect(TileRequestPath.parse("\(tile.z)/\(tile.x)/\(tile.y).\(Bool.random(using: &rng) ? "mvt" : "pbf")") == .tile(tile))
        }
        // Raster tiles: .png, @2x.png and @3x.png, with the same numbers.
        for (ending, scale) in [(".png", 1), ("@2x.png", 2), ("@3x.png", 3)] {
            #expect(TileRequestPath.parse(Substring("3/1/2" + ending)) == .raster(TileID(z: 3, x: 1, y: 2), scale: scale))
        }
        for bad in ["1/0/0", "1/0/0.jpg", "1/0/0@4x.png", "1/0/0@1x.png", "1/0/0@2x.mvt", "1/0/@2x.png", "01/0/0.png",
                    "01/0/0.mvt", "1/-0/0.mvt", "1/+1/0.mvt", "1/0/0/0.mvt", "1//0.mvt", "/1/0/0.mvt",
                    "a/0/0.mvt", "1/0/01234567890.mvt", "1/0/.mvt", "", "1/0/0.mvtx", "1/0/0 .mvt"] {
            guard case .malformed = TileRequestPath.parse(Substring(bad)) else {
                Issue.record("accepted \(bad)")
                continue
            }
        }
        // Past the grid, however many digits (a row of 20 digits is no integer of 64 bits); a zoom past 28.
        guard case .outsideGrid = TileRequestPath.parse("1/2/0.mvt"), case .outOfRange = TileRequestPath.parse("29/0/0.mvt"),
              case .outsideGrid = TileRequestPath.parse("14/33262097/15716456747176308736.mvt"),
              case .outOfRange = TileRequestPath.parse("12345678901/0/0.mvt")
        else {
            Issue.record("out of range accepted")
            return
        }
    }

    @Test func acceptEncodingFollowsRFC9110() {
        let cases: [(String?, Bool)] = [
            (nil, false), ("", false), ("gzip", true), ("GZip", true), ("x-gzip", true), ("br, gzip;q=0.5", true),
            ("gzip;q=0", false), ("gzip; Q=0.000", false), ("*", true), ("*;q=0", false), ("gzip;q=0, *", false),
            ("identity", false), ("br,  *  ;  q=1", true), (",,gzip,,", true), ("gzipx", false), ("gzip;q=abc", false),
        ]
        for (header, expected) in cases {
            #expect(GzipAcceptance.allowsGzip(header) == expected, "\(header ?? "nil")")
        }
    }
}
