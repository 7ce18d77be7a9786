import Testing
import RouteTiles
@testable import RouteTilesInput
import RouteTilesCoreTestSupport

@Suite struct CSVReaderTests {
    func readError(_ text: String, options: ReadOptions = ReadOptions()) -> InputError? {
        inputError { _ = try readCSV(text, options: options) }
    }

    // MARK: Reading

    @Test func readsAWholeFileAsOneRoute() throws {
        let result = try readCSV("lat,lon\n52.5,13.4\n52.6,13.5\n-33.9,151.2\n")
        #expect(result.routes.count == 1)
        let route = result.routes[0]
        #expect(route.id == nil)
        #expect(route.properties.isEmpty)
        #expect(route.geodesic == false)
        #expect(route.origin == "t.csv line 2")
        #expect(route.parts == [coordinates([(13.4, 52.5), (13.5, 52.6), (151.2, -33.9)])])
    }

    @Test(arguments: [
        "lat,lon", "latitude,longitude", "LAT,LNG", " Latitude , Long ", "Lat,Longitude", "lat,lng",
    ])
    func matchesColumnAliases(header: String) throws {
        let result = try readCSV("name,\(header),note\nx,1,2,a\ny,3,4,b")
        #expect(result.routes.first?.parts == [coordinates([(2, 1), (4, 3)])])
    }

    @Test func takesColumnNamesFromOptions() throws {
        let text = "lat,lon,Y,X,Trip\n0,0,1,2,a\n0,0,3,4,a\n0,0,5,6,b\n0,0,7,8,b"
        let result = try readCSV(text, options: ReadOptions(latColumn: "y", lonColumn: " x ", routeColumn: "trip"))
        #expect(result.routes.map(\.id) == [.string("a"), .string("b")])
        #expect(result.routes[0].parts == [coordinates([(2, 1), (4, 3)])])
    }

    @Test func groupsRowsIntoRoutesInOrderOfFirstAppearance() throws {
        let text = """
            route,lat,lon
            7,1,1
            bus-2,2,2
            7,3,3
            bus-2,4,4
            7,5,5
            007,6,6
            007,7,7
            """
        let result = try readCSV(text)
        #expect(result.routes.map(\.id) == [.number(7), .string("bus-2"), .string("007")])
        #expect(result.routes.map(\.origin) == ["t.csv line 2", "t.csv line 3", "t.csv line 7"])
        #expect(result.routes[0].parts == [coordinates([(1, 1), (3, 3), (5, 5)])])
        #expect(result.routes[1].parts == [coordinates([(2, 2), (4, 4)])])
    }

    @Test func prefersTheRouteColumnToTheIdColumn() throws {
        let result = try readCSV("id,lat,lon,route\n1,0,0,a\n2,1,1,a")
        #expect(result.routes.map(\.id) == [.string("a")])
        let byId = try readCSV("ID,lat,lon\n18446744073709551615,0,0\n18446744073709551615,1,1")
        #expect(byId.routes.map(\.id) == [.number(UInt64.max)])
    }

    @Test func readsQuotedFields() throws {
        let text = #"""
            "name","lat","lon","route"
            "Main St, north","1.5",2,"a ""b"""
            "multi
            line",3,4,"a ""b"""
            """#
        let result = try readCSV(text)
        #expect(result.routes.map(\.id) == [.string("a \"b\"")])
        #expect(result.routes[0].parts == [coordinates([(2, 1.5), (4, 3)])])
    }

    @Test func countsLinesInsideQuotedFields() throws {
        let text = "name,lat,lon\n\"a\nb\nc\",1,2\nx,abc,3"
        #expect(readError(text)?.location == .line(5, column: 2))
    }

    @Test func handlesCRLFByteOrderMarkBlankLinesAndNoFinalNewline() throws {
        let text = Array("\r\nlat,lon\r\n\r\n1,2\r\n   \r\n3,4".utf8)
        let result = try CSVReader.read([0xEF, 0xBB, 0xBF] + text, file: "t.csv", options: ReadOptions())
        #expect(result.routes.first?.parts == [coordinates([(2, 1), (4, 3)])])
        #expect(result.routes.first?.origin == "t.csv line 4")
        let lf = try readCSV("lat,lon\n1,2\n3,4\n\n\n")
        #expect(lf.routes.first?.parts.first?.count == 2)
    }

    @Test func acceptsPlainDecimalForms() throws {
        let result = try readCSV("lat,lon\n+1.5,-.5\n 2. , 1e1 \n-0,7E-1")
        #expect(result.routes.first?.parts == [coordinates([(-0.5, 1.5), (10, 2), (0.7, -0.0)])])
    }

    @Test func readsAHeaderWithoutRowsAsNoRoutes() throws {
        #expect(try readCSV("lat,lon\n").routes.isEmpty)
    }

    // MARK: Errors

    @Test(arguments: [
        ("lat,lon\n1,2\nabc,3", InputError.Location.line(3, column: 1), "latitude 'abc' is not a number"),
        ("lon,lat\n1,2\n3,x", .line(3, column: 2), "latitude 'x' is not a number"),
        ("lat,lon\n1,2\n3,", .line(3, column: 2), "longitude is empty"),
        ("lat,lon\n1,2\ninf,3", .line(3, column: 1), "latitude 'inf' is not a number"),
        ("lat,lon\n1,2\nnan,3", .line(3, column: 1), "latitude 'nan' is not a number"),
        ("lat,lon\n1,2\n0x10,3", .line(3, column: 1), "latitude '0x10' is not a number"),
        ("lat,lon\n1,2\n1,2e", .line(3, column: 2), "longitude '2e' is not a number"),
        ("lat,lon\n1,2\n95,3", .line(3, column: 1), "latitude 95 is out of range [-90, 90]"),
        ("lat,lon\n1,2\n1e400,3", .line(3, column: 1), "latitude 1e400 is out of range [-90, 90]"),
        ("a,lat,lon\nq,1,2\nq,3,-720.5", .line(3, column: 3), "longitude -720.5 is out of range [-720, 720]"),
        ("lat,lon\n1,2\n3,4,5", .line(3, column: nil), "row has 3 fields, header has 2"),
        ("x,lat,lon\n,1,2\n3", .line(3, column: nil), "row has 1 field, header has 3"),
        ("a, b ,c\n1,2,3", .line(1, column: nil), "missing column: no 'lat' or 'latitude' in header (found: a, b, c)"),
        ("lat,c\n1,2", .line(1, column: nil),
         "missing column: no 'lon', 'lng', 'long' or 'longitude' in header (found: lat, c)"),
        ("lat,lon\n1,2", .line(2, column: nil), "the route has 1 point (first on line 2); a route needs at least 2"),
        ("route,lat,lon\na,1,2\nb,1,2\na,3,4", .line(3, column: nil),
         "route 'b' has 1 point (first on line 3); a route needs at least 2"),
        ("lat,lon\n\"1,2\n3,4\n", .line(2, column: 1), "unterminated quoted field 1: no closing '\"'"),
        ("lat,lon\n\"1\"x,2\n", .line(2, column: 1), "unexpected text after the closing quote of field 1"),
        ("", .none, "file is empty"),
        ("\n\n", .none, "file is empty"),
    ])
    func reportsErrorsWithLineAndField(text: String, location: InputError.Location, message: String) throws {
        let error = try #require(readError(text))
        #expect(error.location == location)
        #expect(error.message == message)
        #expect(error.file == "t.csv")
    }

    @Test func reportsMissingOverriddenColumns() {
        #expect(readError("lat,lon\n1,2\n3,4", options: ReadOptions(routeColumn: "trip"))?.message
                    == "missing column: no 'trip' in header (found: lat, lon)")
        #expect(readError("lat,lon\n1,2\n3,4", options: ReadOptions(latColumn: "Y"))?.message
                    == "missing column: no 'y' in header (found: lat, lon)")
    }

    @Test func describesErrorsAsFileLineColumn() throws {
        let error = try #require(readError("lat,lon\n1,2\nabc,3"))
        #expect(error.description == "t.csv:3:1: latitude 'abc' is not a number")
    }

    // MARK: Skipping invalid routes

    @Test func skipsRoutesWithBadRowsWhenAsked() throws {
        let text = """
            route,lat,lon
            a,1,1
            b,2,2
            a,99,1
            c,1,1
            b,3,3
            a,4,4
            c,2,2,extra
            d,5,5
            c,3,3
            """
        let result = try readCSV(text, options: ReadOptions(skipInvalid: true))
        #expect(result.routes.map(\.id) == [.string("b"), .string("c")])
        #expect(result.routes[1].parts == [coordinates([(1, 1), (3, 3)])])
        #expect(result.invalid == [
            InputError(file: "t.csv", location: .line(4, column: 2), message: "latitude 99 is out of range [-90, 90]"),
            InputError(file: "t.csv", location: .line(8, column: nil), message: "row has 4 fields, header has 3"),
            InputError(file: "t.csv", location: .line(9, column: nil),
                       message: "route 'd' has 1 point (first on line 9); a route needs at least 2"),
        ])
    }

    @Test func throwsTheFirstBadRowWithoutSkipInvalid() {
        #expect(readError("route,lat,lon\na,1,1\na,x,1\nb,y,2")?.location == .line(3, column: 2))
    }

    @Test func syntaxErrorsThrowEvenWhenSkipping() {
        let error = readError("lat,lon\n1,2\n\"3,4\n", options: ReadOptions(skipInvalid: true))
        #expect(error?.message == "unterminated quoted field 1: no closing '\"'")
    }

    /// Numbers parsed in place from the bytes equal Double(String) on the same text, for random decimals of
    /// every shape the CSV reader accepts; text that is not a plain decimal is refused.
    @Test func numbersParsedInPlaceEqualSwiftsParsing() {
        var random = SeededGenerator(seed: 31)
        for _ in 0..<20_000 {
            var text = ["", "-", "+"].randomElement(using: &random) ?? ""
            let integer = String(UInt64.random(in: 0...UInt64.random(in: 0...999_999_999, using: &random), using: &random))
            let fraction = String(UInt64.random(in: 0...UInt64.max, using: &random)).prefix(Int.random(in: 0...17, using: &random))
            switch Int.random(in: 0..<4, using: &random) {
            case 0: text += integer
            case 1: text += integer + "." + fraction
            case 2: text += "." + (fraction.isEmpty ? "5" : fraction)
            default: text += integer + "." + fraction + "e" + String(Int.random(in: -30...30, using: &random))
            }
            let bytes = Array(text.utf8)
            let parsed = bytes.withUnsafeBufferPointer { DecimalText.value(of: $0) }
            #expect(parsed == Double(text), "\(text)")
        }
        for bad in ["", "-", ".", "1e", "nan", "inf", "0x10", "1.2.3", "1,5", " 1"] {
            #expect(Array(bad.utf8).withUnsafeBufferPointer { DecimalText.value(of: $0) } == nil, "\(bad)")
        }
    }

    /// Rows of one route need not be adjacent; the bytes shortcut for repeated keys keeps them apart.
    @Test func interleavedRoutesAndQuotedKeys() throws {
        let csv = "route,lat,lon\na,1,1\nb,2,2\na,1.5,1.5\n\"a\",1.7,1.7\n\"b\"\"\",3,3\nb,2.5,2.5\n\"b\"\"\",3.5,3.5\n"
        let result = try CSVReader.read(Array(csv.utf8), file: "r.csv", options: ReadOptions())
        #expect(result.routes.map(\.id) == [.string("a"), .string("b"), .string("b\"")])
        #expect(result.routes.map { $0.parts[0].count } == [3, 2, 2])
    }
}

/// CSV time columns: detection, Unix seconds and ISO text, tracktable's layout, time order, and the errors.
@Suite struct CSVTimesTests {
    let t0: Int64 = 1_373_414_403_000 // 2013-07-10T00:00:03Z

    /// The error of a strict read (`--times strict`).
    func error(_ text: String, options: ReadOptions = ReadOptions(times: .strict)) -> String? {
        inputError { _ = try readCSV(text, options: options) }?.description
    }

    @Test(arguments: ["time", "Timestamp", " DATETIME "])
    func findsTheTimeColumnByName(name: String) throws {
        let route = try #require(try readCSV("lat,lon,\(name)\n1,2,2013-07-10T00:00:03Z\n3,4,1373414404.25\n").routes.first)
        #expect(route.times == [t0, t0 + 1250])
        #expect(route.timeProblem() == nil)
    }

    @Test func readsTracktableWithoutOptionsOnceZonelessTimesAreUTC() throws {
        let text = """
        object_id,timestamp,longitude,latitude
        ship1,2013-07-10 00:00:03,-71.0,42.0
        ship2,2013-07-10 00:00:05,-70.0,41.0
        ship1,2013-07-10 00:00:04,-71.1,42.1
        ship2,2013-07-10 00:00:06,-70.1,41.1
        """
        #expect(error(text) == "t.csv:2:2: time '2013-07-10 00:00:03' has no zone; pass --time-zone UTC")
        let result = try readCSV(text, options: ReadOptions(timeZone: .utc))
        #expect(result.routes.map(\.id) == [.string("ship1"), .string("ship2")])
        #expect(result.routes.map(\.times) == [[t0, t0 + 1000], [t0 + 2000, t0 + 3000]])
        #expect(result.routes[0].parts == [coordinates([(-71.0, 42.0), (-71.1, 42.1)])])
    }

    @Test func namedNoneAndIgnoredColumnsGiveNoTimes() throws {
        let text = "lat,lon,time,when\n1,2,junk,1373414403\n3,4,,1373414404\n"
        #expect(try readCSV(text, options: ReadOptions(timeColumn: "none")).routes.first?.times == nil)
        #expect(try readCSV(text, options: ReadOptions(times: .ignore)).routes.first?.times == nil)
        #expect(try readCSV(text, options: ReadOptions(timeColumn: " When")).routes.first?.times == [t0, t0 + 1000])
        #expect(error(text, options: ReadOptions(timeColumn: "at"))
            == "t.csv:1: missing column: no 'at' in header (found: lat, lon, time, when)")
        #expect(error(text) == "t.csv:2:3: time 'junk' is not an ISO 8601 date-time (2026-11-27T14:05:00Z) or Unix "
                + "seconds; --time-column none reads no times")
        #expect(error(text, options: ReadOptions(times: .strict, timeColumn: "TIME"))
            == "t.csv:2:3: time 'junk' is not an ISO 8601 date-time (2026-11-27T14:05:00Z) or Unix seconds")
    }

    @Test func partialAndBackwardsTimesAreErrorsUnlessOrderedByTime() throws {
        #expect(error("route,lat,lon,time\na,1,2,1373414403\nb,1,2,\na,3,4,\n")
            == "t.csv:4:4: row has no time, but the row at 2:4 of this route has one")
        let backwards = "lat,lon,time\n1,1,1373414405\n2,2,1373414403\n3,3,1373414404\n4,4,1373414403\n"
        #expect(error(backwards) == "t.csv:3:3: row time 2013-07-10T00:00:03Z is before the one before it (2013-07-10T00:00:05Z)")
        let sorted = try #require(try readCSV(backwards, options: ReadOptions(orderByTime: true)).routes.first)
        // Stable: the two rows at :03 keep their file order.
        #expect(sorted.parts == [coordinates([(2, 2), (4, 4), (3, 3), (1, 1)])])
        #expect(sorted.times == [t0, t0, t0 + 1000, t0 + 2000])
        // With --skip-invalid the route with partial times is left out and counted.
        let skipped = try readCSV("route,lat,lon,time\na,1,2,1373414403\nb,1,2,\nb,5,6,\na,3,4,\n",
                                  options: ReadOptions(skipInvalid: true, times: .strict))
        #expect(skipped.routes.map(\.id) == [.string("b")] && skipped.invalid.count == 1)
    }

    /// By default (`--times keep`) no row is lost to its time: each route whose times cannot be used is read
    /// without them, and its first problem, the error a strict read gives, is its warning.
    @Test func byDefaultUnusableTimesAreDroppedWithTheStrictErrorAsTheWarning() throws {
        let files = [
            "object_id,timestamp,longitude,latitude\nship1,2013-07-10 00:00:03,-71.0,42.0\nship1,2013-07-10 00:00:04,-71.1,42.1\n",
            "lat,lon,time\n1,2,junk\n3,4,1373414404\n",
            "route,lat,lon,time\na,1,2,1373414403\nb,1,2,\nb,5,6,\na,3,4,\n",
            "lat,lon,time\n1,1,1373414405\n2,2,1373414403\n",
            "lat,lon,time\n1,1,-2147483648\n2,2,-2147483648\n",
        ]
        for text in files {
            let strictError = try #require(error(text), "\(text)")
            let kept = try readCSV(text)
            #expect(kept.droppedTimes.map(\.description) == [strictError], "\(text)")
            #expect(kept.invalid.isEmpty && kept.routes.allSatisfy { $0.pointCount == 2 })
            // Route b has no times at all: nothing of it is dropped.
            #expect(kept.routes.filter { $0.times != nil }.isEmpty, "\(text)")
        }
        // One placeholder instant on every row is dropped too; strict keeps it, as it always did.
        let placeholder = "lat,lon,time\n1,1,0\n2,2,0\n3,3,0\n"
        #expect(try readCSV(placeholder).routes.first?.times == nil)
        #expect(try readCSV(placeholder).droppedTimes.first?.description
            == "t.csv:2:3: all 3 rows have the same time 1970-01-01T00:00:00Z, a placeholder rather than when they were")
        #expect(try readCSV(placeholder, options: ReadOptions(times: .strict)).routes.first?.times == [0, 0, 0])
    }

    @Test func randomRowOrdersReadInTimeOrder() throws {
        var random = SeededGenerator(seed: 77)
        for _ in 0..<100 {
            let count = Int.random(in: 2...40, using: &random)
            let times = (0..<count).map { _ in Int64.random(in: 0...2_000_000_000, using: &random) * 1000 }
            var text = "id,lat,lon,time\n"
            for (index, time) in times.enumerated() {
                let cell = Bool.random(using: &random) ? TimeValue.iso(time) : "\(time / 1000)"
                text += "v,\(index % 90),\(index),\(cell)\n"
            }
            let route = try #require(try readCSV(text, options: ReadOptions(orderByTime: true)).routes.first)
            #expect(route.times == times.sorted())
            #expect(route.timeProblem() == nil)
            let order = (0..<count).sorted { (times[$0], $0) < (times[$1], $1) }
            #expect(route.parts == [order.map { Coordinate(longitude: Double($0), latitude: Double($0 % 90)) }])
        }
    }
}
