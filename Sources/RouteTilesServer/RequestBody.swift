import Foundation
import Hummingbird
import NIOCore
import RouteTiles

/// Reading the body of a write: within `--max-body-mb`, and as routes in the format its `Content-Type` names.
extension RouteWriteEndpoints {
    struct Refusal: Error {
        var response: Response
    }

    /// The body, or 413 past `--max-body-mb`.
    func readBody(_ request: Request) async -> Result<[UInt8], Refusal> {
        let limit = configuration.maxBodyBytes
        let tooLarge = Refusal(response: HTTPAnswers.error(.contentTooLarge, "the body is larger than \(limit) bytes (--max-body-mb)"))
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { return .failure(tooLarge) }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return .success(Array(buffer.readableBytesView))
        } catch is NIOTooManyBytesError {
            return .failure(tooLarge)
        } catch {
            return .failure(Refusal(response: HTTPAnswers.error(.badRequest, "cannot read the body: \(error)")))
        }
    }

    /// Routes from a body, with serve's reading options but never skipping an invalid route nor dropping times
    /// that cannot be used (`--times keep` reads bodies as `strict`): one invalid route or time refuses the whole
    /// body, so that the client learns of it and can correct it.
    func routes(in body: [UInt8], contentType: String?, departAt: Substring? = nil) throws -> [Route] {
        var options = configuration.readOptions
        options.skipInvalid = false
        if options.times == .keep { options.times = .strict }
        if let departAt { options.departure = try Self.departure(departAt) }
        return try Self.readRoutes(body, contentType: contentType, options: options)
    }

    /// The `depart_at` query parameter of `POST /routes` and `PUT /routes/{id}`, in milliseconds since 1970: ISO
    /// 8601 with a zone, Unix seconds, or `now` (this server's clock). Directions routes then get planned times.
    static func departure(_ text: Substring) throws -> Int64 {
        if text.lowercased() == "now" { return Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
        do {
            return try TimeValue.parse(textOrSeconds: text)
        } catch {
            throw BodyProblem("depart_at: \(error.description)")
        }
    }

    /// Routes from a body, in the format its Content-Type names, else the one its content shows.
    static func readRoutes(_ body: [UInt8], contentType: String?, options: ReadOptions = ReadOptions()) throws -> [Route] {
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard let format = mediaFormat(mediaType) ?? InputFormat.detect(path: "", bytes: body) else {
            throw InputError(file: "request body", message: "cannot tell the format of the body; send it with "
                                 + "Content-Type application/geo+json, application/geo+json-seq, "
                                 + "application/x-ndjson, application/gpx+xml or text/csv (polylines and directions "
                                 + "responses are recognised by content)")
        }
        return try RouteReader.read(bytes: body, name: "request body", format: format, options: options).routes
    }

    /// The reader format a media type names, or nil when the content must tell.
    static func mediaFormat(_ mediaType: String) -> InputFormat? {
        switch mediaType {
        case "application/geo+json", "application/vnd.geo+json": return .geojson
        case "text/csv": return .csv
        case "application/gpx+xml": return .gpx
        case "application/geo+json-seq", "application/x-ndjson", "application/ndjson", "application/jsonl": return .geojsonseq
        default: return nil
        }
    }
}
