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

    /// Routes from a body, with serve's reading options but never skipping an invalid route: one invalid route
    /// refuses the whole body, so that the client learns of it.
    func routes(in body: [UInt8], contentType: String?) throws -> [Route] {
        var options = configuration.readOptions
        options.skipInvalid = false
        return try Self.readRoutes(body, contentType: contentType, options: options)
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
