import Foundation
import Hummingbird
import RouteTiles
import RouteTilesAccess

/// `GET` and `POST /osmand`: one fix in the protocol Traccar Client and OsmAnd's online tracking speak, so that a
/// phone with either app feeds a route without any code. Fields come as query parameters or as an
/// `application/x-www-form-urlencoded` body:
///
/// - `id` (or `deviceid`): the route's id; `lat` and `lon` (or `location=lat,lon`);
/// - `timestamp`: Unix seconds, Unix milliseconds (a number above 10^11), ISO 8601 with a zone, or
///   `yyyy-MM-dd HH:mm:ss` read as UTC; when missing, the time the server received the fix;
/// - `speed` (knots, as those apps send it), `bearing` (degrees): checked; `altitude`, `accuracy`, `hdop`, `batt`
///   and any other field: ignored; `valid=false` (or `0`): the fix is dropped, and counted as invalid;
/// - `token`: the credential (the write token or a JWT that may write the id), for apps that cannot set an
///   `Authorization` header (which is taken too, and wins).
///
/// The fix is written as `POST /routes/{id}/points` writes a fix object with its time: into a route with times, in
/// time order, once (a resent fix is a duplicate), 409 for a route without times. An unknown id is a 404, or with
/// `ServerConfiguration.createRoutesFromFixes` a new route: a line of the fix twice, at its time.
struct OsmandEndpoint: Sendable {
    let writes: RouteWriteEndpoints
    let access: AccessControl

    var operations: [APIOperation] {
        [
            APIOperation(.get, PathPattern("/osmand"), "osmandGet") { request, context in await report(request, context) },
            APIOperation(.post, PathPattern("/osmand"), "osmandPost") { request, context in await report(request, context) },
        ]
    }

    func report(_ request: Request, _ context: APIContext) async -> Response {
        var fields = FormFields.parse(request.uri.query ?? "")
        if request.method == .post {
            switch await writes.readBody(request) {
            case let .success(body) where !body.isEmpty:
                fields += FormFields.parse(String(decoding: body, as: UTF8.self))
            case .success: break
            case let .failure(refusal): return refusal.response
            }
        }
        let grant: AccessGrant
        switch await access.writeGrant(of: request, address: context.address, field: fields.last { $0.name == "token" }?.value,
                                       audit: context.audit) {
        case let .failure(refusal): return refusal.response
        case let .success(granted): grant = granted
        }
        let fix: OsmandFix
        do {
            fix = try OsmandFix(fields, receivedAt: Int64((Date().timeIntervalSince1970 * 1000).rounded()),
                                latest: writes.configuration.latestFixTime)
        } catch {
            return HTTPAnswers.error(.badRequest, "\(error)")
        }
        context.audit?.ids = [fix.id]
        if let refusal = writes.refusal(fix.id, grant) { return refusal }
        var points = [fix.position]
        var times: [Int64]? = [fix.time]
        var dropped = writes.configuration.fixFilter.filter(&points, times: &times)
        if !fix.valid {
            points = []
            dropped.invalid += 1
        }
        if var held = times, !points.isEmpty, writes.configuration.fixFilter.comparesFixes {
            dropped += writes.configuration.fixFilter.filterAgainstLast(&points, times: &held,
                                                                        last: writes.sync.routes.lastFix(of: fix.id))
            times = held
        }
        if writes.configuration.createRoutesFromFixes, !points.isEmpty, writes.sync.version(of: fix.id) == nil {
            let route = Route(properties: [Property("name", .string(fix.id))], parts: [[fix.position, fix.position]],
                              times: [fix.time, fix.time])
            return await writes.commit(.replace(key: fix.id, route: route), created: true, dropped: dropped)
        }
        return await writes.commitFiltered(.appendTimed(key: fix.id, points: points, times: points.isEmpty ? [] : times ?? []),
                                           dropped: dropped)
    }
}

/// One fix of the OsmAnd protocol, read from its fields.
struct OsmandFix {
    var id: String
    var position: Coordinate
    var time: Int64
    var valid = true

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    init(_ fields: [FormFields.Field], receivedAt: Int64, latest: Int64) throws {
        func value(_ names: String...) -> String? {
            for name in names { if let found = fields.last(where: { $0.name == name })?.value { return found } }
            return nil
        }
        func number(_ name: String, _ text: String) throws -> Double {
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite else {
                throw Problem(description: "\(name): '\(text)' is not a number")
            }
            return number
        }
        guard let id = value("id", "deviceid"), !id.isEmpty else { throw Problem(description: "id: the field is missing") }
        self.id = id
        var lat = try value("lat").map { try number("lat", $0) }
        var lon = try value("lon").map { try number("lon", $0) }
        if lat == nil || lon == nil, let location = value("location") {
            let parts = location.split(separator: ",")
            guard parts.count == 2 else { throw Problem(description: "location: '\(location)' is not lat,lon") }
            lat = try number("location", String(parts[0]))
            lon = try number("location", String(parts[1]))
        }
        guard let lat, let lon else { throw Problem(description: "lat and lon: the fields are missing") }
        position = Coordinate(longitude: lon, latitude: lat)
        if let problem = CoordinateLimits.problem(with: position) { throw Problem(description: problem) }
        if let speed = value("speed"), try number("speed", speed) < 0 {
            throw Problem(description: "speed: '\(speed)' is not a speed in knots")
        }
        if let bearing = value("bearing", "heading"), !(0...360).contains(try number("bearing", bearing)) {
            throw Problem(description: "bearing: '\(bearing)' is not a bearing in degrees (0 to 360)")
        }
        if let valid = value("valid")?.lowercased(), valid == "false" || valid == "0" { self.valid = false }
        time = receivedAt
        if let text = value("timestamp"), !text.isEmpty {
            time = try Self.time(text)
            if time > latest {
                throw Problem(description: "timestamp: \(TimeValue.iso(time)) is ahead of this server's clock by more than it allows (--max-fix-skew)")
            }
        }
    }

    /// Unix seconds, Unix milliseconds (above 10^11), ISO 8601 with a zone, or a zone-less date and time as UTC; a
    /// `+` of an offset that a form turned into a space is read as `+`.
    static func time(_ text: String) throws -> Int64 {
        if let number = Double(text), number.isFinite {
            guard let time = TimeValue.seconds(number > 1e11 ? number / 1000 : number) else {
                throw Problem(description: "timestamp: '\(text)' is outside 1970-01-01 to 9999-12-31")
            }
            return time
        }
        if let time = try? TimeValue.parse(text, zoneless: .utc) { return time }
        if let space = text.lastIndex(of: " "), text.distance(from: text.startIndex, to: space) >= 19 {
            var plus = text
            plus.replaceSubrange(space...space, with: "+")
            if let time = try? TimeValue.parse(plus) { return time }
        }
        do {
            return try TimeValue.parse(text, zoneless: .utc)
        } catch {
            throw Problem(description: "timestamp: \(error)")
        }
    }
}

/// The fields of a query string or an `application/x-www-form-urlencoded` body: `name=value` pairs split on `&`,
/// `+` read as a space and `%XX` as the byte it names (a malformed escape is kept as it is).
enum FormFields {
    struct Field: Equatable {
        var name: String
        var value: String
    }

    static func parse(_ text: String) -> [Field] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return Field(name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                if iterator.count >= 2, let high = hex(iterator[iterator.startIndex]),
                   let low = hex(iterator[iterator.startIndex + 1]) {
                    bytes.append(high << 4 | low)
                    iterator.removeFirst(2)
                } else {
                    bytes.append(byte)
                }
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
