import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport

/// Mutation fuzzing: small valid samples of each format, mutated at random (bytes flipped, replaced, inserted,
/// deleted, cut short, spans duplicated); every reader must return or throw an `InputError`, never crash or hang.
/// 25,000 cases per format, seeded so that a failure repeats; `ROUTETILES_FUZZ_CASES=N` runs N (the same first
/// 25,000 and more). The default keeps the suite at about 10 s of CPU in a debug build: at 100,000 it was the
/// costliest suite of the core's tests (43 s of CPU), in the burst of suites that opens every test run.
@Suite struct ReaderFuzzTests {
    static let casesPerFormat = ProcessInfo.processInfo.environment["ROUTETILES_FUZZ_CASES"].flatMap(Int.init)
        .map { max($0, 1) } ?? 25_000

    static let seeds: [InputFormat: [String]] = [
        .polyline: ["a\t_p~iF~ps|U_ulLnnqC_mqNvxq`@\n_p~iF~ps|U_ulLnnqC\n", "_ibE_seK_seK_seK\n"],
        .directions: [
            #"{"routes":[{"summary":"A1","overview_polyline":{"points":"_p~iF~ps|U_ulLnnqC"},"legs":[{"distance":{"value":5},"duration":{"value":2},"steps":[{"html_instructions":"Head <b>N</b>","distance":{"value":5},"duration":{"value":2},"maneuver":"turn-left","start_location":{"lat":38.5,"lng":-120.2},"polyline":{"points":"_p~iF~ps|U_ulLnnqC"}}]}]}],"status":"OK"}"#,
            #"{"code":"Ok","routes":[{"geometry":"_p~iF~ps|U_ulLnnqC","distance":9.5,"duration":3,"legs":[{"summary":"x","steps":[{"geometry":"_p~iF~ps|U_ulLnnqC","name":"Main","distance":9.5,"duration":3,"maneuver":{"location":[-120.2,38.5],"bearing_after":12,"type":"turn","modifier":"left"}}]}]}],"waypoints":[{"location":[-120.2,38.5]}]}"#,
            #"{"trip":{"legs":[{"shape":"_p~iF~ps|U_ulLnnqC_mqNvxq`@","maneuvers":[{"type":1,"instruction":"Go","begin_shape_index":0,"end_shape_index":2,"length":1.2,"time":3},{"type":4,"begin_shape_index":2,"end_shape_index":2}]}],"summary":{"length":1.2,"time":3},"units":"miles"}}"#,
        ],
        .gpx: [
            """
            <?xml version="1.0"?><gpx version="1.1"><trk><name>a &amp; b</name><trkseg><trkpt lat="1" lon="2"><time>t0</time></trkpt>\
            <trkpt lat="1.5" lon="2.5"/></trkseg><trkseg><trkpt lat="3" lon="4"/><trkpt lat="3.1" lon="4.1"/></trkseg></trk>\
            <!-- c --><rte><rtept lat="5" lon="6"/><rtept lat="5.1" lon="6.1"/></rte><wpt lat="0" lon="0"/></gpx>
            """,
            """
            <gpx><trk><trkseg><trkpt lat="1" lon="2"><time>2026-11-27T14:05:00Z</time></trkpt><trkpt lat="1.5" lon="2.5">\
            <time>2026-11-27T14:05:01.5+01:00</time></trkpt></trkseg></trk><wpt lat="0" lon="0"><time>2026-11-27T14:05:09</time></wpt></gpx>
            """,
        ],
        .geojson: [
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","properties":{"n":-1,"x":1.5,"b":true,"o":{"k":[1]},"z":null},"geometry":{"type":"LineString","coordinates":[[1,2],[3.5,-4e1]]}},"#
                + #"{"type":"Feature","properties":null,"geometry":{"type":"MultiLineString","coordinates":[[[179,1],[-179,1]],[[5,6,7],[7,8]]]}},"#
                + #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[0,0]}}]}"#,
            #"{"type":"LineString","coordinates":[[0.1,0.2],[0.3,0.4],[1e-3,2E2]]}"#,
            #"{"type":"Feature","properties":{"coordTimes":[["2026-11-27T14:05:00Z",1795788301],[1795788302,"2026-11-27T14:05:03.5Z"]],"coordinateProperties":{"times":[1,2,3,4],"hr":[1]}},"#
                + #""geometry":{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[[5,6],[7,8]]]}}"#,
        ],
        .csv: [
            "route,lat,lon,name\nA,47.1,8.5,\"x, \"\"y\"\"\"\nA,47.2,8.6,z\r\nB,-33.9,151.2,\nB,-33.8,151.3,w\n",
            "latitude;longitude\n1.5;2.5\n3.5;4.5\n",
            "object_id,timestamp,longitude,latitude\na,2013-07-10 00:00:03,1,2\na,1373414404,1.5,2.5\nb,2013-07-10T00:00:03Z,3,4\nb,,5,6\n",
        ],
        .geojsonseq: [
            "\u{1E}{\"type\":\"Feature\",\"id\":1,\"properties\":{\"a\":[1,{\"b\":null}]},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[3,4]]}}\n"
                + "{\"type\":\"MultiLineString\",\"coordinates\":[[[1,2],[3,4]],[[5,6],[7,8]]]}\n",
            "{\"type\":\"Feature\",\"properties\":{\"route\":\"a\",\"t\":1795788301},\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}\n"
                + "{\"type\":\"Feature\",\"id\":3,\"properties\":{\"time\":\"2026-11-27T14:05:00Z\"},\"geometry\":{\"type\":\"Point\",\"coordinates\":[3,4]}}\n"
                + "{\"type\":\"Feature\",\"properties\":{\"route\":\"a\",\"t\":1795788300},\"geometry\":{\"type\":\"Point\",\"coordinates\":[5,6]}}\n",
        ],
    ]

    /// Bytes that often matter to the parsers.
    static let interesting: [UInt8] = Array("{}[]<>/\"'&;:,.-+eE0123456789?~_`\\\t\n\u{1E}".utf8) + [0x00, 0x7F, 0xC3, 0xFF]

    static func mutate(_ input: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !bytes.isEmpty else { bytes = [interesting.randomElement(using: &random) ?? 0]; continue }
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<7, using: &random) {
            case 0: bytes[at] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
            case 1: bytes[at] = interesting.randomElement(using: &random) ?? 0
            case 2: bytes.insert(interesting.randomElement(using: &random) ?? 0, at: at)
            case 3: bytes.remove(at: at)
            case 4: bytes.removeSubrange(at...)
            case 5:
                let end = min(bytes.count, at + Int.random(in: 1...16, using: &random))
                bytes.insert(contentsOf: bytes[at..<end], at: Int.random(in: 0...bytes.count, using: &random))
            default: bytes[at] = UInt8.random(in: 0...255, using: &random)
            }
        }
        return bytes
    }

    @Test(arguments: [InputFormat.geojson, .csv, .polyline, .directions, .gpx, .geojsonseq])
    func mutatedSamplesNeverCrash(format: InputFormat) async {
        var random = SeededGenerator(seed: UInt64(format.rawValue.utf8.count) &* 7919)
        let seeds = (Self.seeds[format] ?? []).map { Array($0.utf8) }
        var accepted = 0, rejected = 0, other = 0, badTimes = 0
        for n in 0..<Self.casesPerFormat {
            // Let the other tests (the in-process servers) have the concurrency pool's few threads now and then.
            if n % 500 == 0 { await Task.yield() }
            let input = Self.mutate(seeds[n % seeds.count], using: &random)
            let options = ReadOptions(skipInvalid: n % 2 == 0, timeZone: n % 3 == 0 ? .utc : .refuse,
                                      orderByTime: n % 4 < 2, departure: n % 5 == 0 ? nil : 1_795_788_300_000,
                                      pointsAsTracks: n % 3 != 2)
            do {
                let result = try RouteReader.read(bytes: input, name: "fuzz", format: format, options: options)
                accepted += 1
                // Whatever a reader accepts keeps the times rule: a time per position or none, never going back.
                if result.routes.contains(where: { $0.timeProblem() != nil }) { badTimes += 1 }
            } catch is InputError {
                rejected += 1
            } catch {
                other += 1
            }
        }
        #expect(other == 0, "errors that are not InputError")
        #expect(badTimes == 0, "results whose routes break the times rule")
        #expect(accepted > 0 && rejected > 0, "\(format): \(accepted) accepted, \(rejected) rejected")
    }
}
