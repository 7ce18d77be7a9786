/// Whether `Accept-Encoding` allows gzip: listed with a non-zero q, or `*` with a non-zero q and gzip not refused
/// (RFC 9110 §12.5.3). No header means identity. Reads the field's bytes in place, line by line: this runs on every
/// tile request.
package struct GzipAcceptance {
    private var gzip: Double?
    private var star: Double?

    package init() {}

    package var allowsGzip: Bool {
        if let gzip { return gzip > 0 }
        return (star ?? 0) > 0
    }

    /// Adds the items of one `Accept-Encoding` line.
    package mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for item in bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            guard let item = AcceptEncodingItem(item) else { continue }
            switch item.kind {
            case .gzip: gzip = item.q
            case .any: star = item.q
            case .other: break
            }
        }
    }

    /// Whether an `Accept-Encoding` value (several header lines joined by commas) allows gzip.
    package static func allowsGzip(_ header: String?) -> Bool {
        guard var header else { return false }
        var acceptance = GzipAcceptance()
        header.withUTF8 { acceptance.add(UnsafeRawBufferPointer($0)) }
        return acceptance.allowsGzip
    }
}

/// One item of an `Accept-Encoding` list: a coding and its q (1 when not given).
struct AcceptEncodingItem {
    enum Kind { case gzip, any, other }
    var kind: Kind
    var q: Double

    /// Nil for an empty item.
    init?(_ item: Slice<UnsafeRawBufferPointer>) {
        var parameters = item.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).makeIterator()
        guard let codingBytes = parameters.next().map({ $0.trimmingWhitespace() }), !codingBytes.isEmpty else {
            return nil
        }
        if codingBytes.equalsIgnoringCase("gzip") || codingBytes.equalsIgnoringCase("x-gzip") {
            kind = .gzip
        } else if codingBytes.count == 1, codingBytes.first == UInt8(ascii: "*") {
            kind = .any
        } else {
            kind = .other
        }
        q = 1
        while let parameter = parameters.next().map({ $0.trimmingWhitespace() }) {
            guard parameter.count >= 2, HeaderBytes.lowercased(parameter[parameter.startIndex]) == UInt8(ascii: "q"),
                  parameter[parameter.startIndex + 1] == UInt8(ascii: "=")
            else { continue }
            q = Double(String(decoding: parameter.dropFirst(2), as: UTF8.self)) ?? 0
        }
    }
}
