import Testing
import RouteTiles
import RouteTilesCoreTestSupport

@Suite struct GzipTests {
    @Test func roundTrip() throws {
        let compressor = try GzipCompressor()
        for input in try Sample.gzipInputs() {
            let compressed = try compressor.compress(input)
            #expect(Gzip.isCompressed(compressed))
            #expect(Array(compressed.prefix(3)) == [0x1F, 0x8B, 0x08]) // magic, then CM = 8 (deflate)
            #expect(try Gzip.decompress(compressed) == input)
        }
        let repetitive = try Sample.gzipInputs()[3]
        #expect(try compressor.compress(repetitive).count < repetitive.count / 20)
    }

    @Test func isCompressedLooksAtTheMagicNumber() {
        #expect(Gzip.isCompressed([0x1F, 0x8B]))
        #expect(!Gzip.isCompressed([0x1F]))
        #expect(!Gzip.isCompressed([]))
        #expect(!Gzip.isCompressed([0x1A, 0x8B, 0x08]))
    }

    @Test func reusedCompressorMatchesAFreshOne() throws {
        var tiles = RandomTiles(seed: 11)
        let reused = try GzipCompressor(level: 6)
        for index in 0..<60 {
            let input = try index % 7 == 0 ? [] : tiles.tile(layerCount: 1, maximumFeatures: 8)
            let fresh = try GzipCompressor(level: 6).compress(input)
            #expect(try reused.compress(input) == fresh)
            #expect(try reused.compress(input) == fresh)
        }
    }

    @Test func levels() throws {
        for level: Int32 in [-1, 0, 1, 9] {
            let input = try Sample.gzipInputs()[3]
            #expect(try Gzip.decompress(GzipCompressor(level: level).compress(input)) == input)
        }
        #expect(try Gzip.compress([1, 2, 3], level: -1) == GzipCompressor(level: 6).compress([1, 2, 3]))
        for level: Int32 in [-2, 10, Int32.min, Int32.max] {
            #expect(throws: GzipError.invalidLevel(level)) { try GzipCompressor(level: level) }
        }
    }

    @Test func truncatedInputThrows() throws {
        let compressed = try Gzip.compress(Sample.gzipInputs()[2])
        for length in 0..<compressed.count {
            #expect(throws: GzipError.self) { try Gzip.decompress(Array(compressed.prefix(length))) }
        }
        #expect(throws: GzipError.truncated) { try Gzip.decompress(Array(compressed.dropLast(1))) }
        #expect(throws: GzipError.truncated) { try Gzip.decompress([]) }
    }

    @Test func corruptInputThrows() throws {
        let input = try Sample.gzipInputs()[2]
        let compressed = try Gzip.compress(input)
        // A changed CRC-32 (the trailer's first four bytes).
        var badChecksum = compressed
        badChecksum[compressed.count - 6] ^= 0xFF
        #expect(throws: GzipError.self) { try Gzip.decompress(badChecksum) }
        // A changed length (the trailer's last four bytes).
        var badLength = compressed
        badLength[compressed.count - 1] ^= 0x01
        #expect(throws: GzipError.self) { try Gzip.decompress(badLength) }
        // Not compressed at all.
        #expect(throws: GzipError.self) { try Gzip.decompress(input) }
        // A bad compression method in the header.
        var badMethod = compressed
        badMethod[2] = 7
        #expect(throws: GzipError.self) { try Gzip.decompress(badMethod) }

        // Flipped bits anywhere: an error or (rarely, in the header's free fields) the same output, never a crash.
        var random = SeededGenerator(seed: 3)
        for _ in 0..<500 {
            var mutated = compressed
            let index = Int.random(in: 0..<mutated.count, using: &random)
            mutated[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
            if let output = try? Gzip.decompress(mutated) { #expect(output == input) }
        }
    }

    @Test func trailingDataAndConcatenatedMembers() throws {
        let first = try Gzip.compress([1, 2, 3])
        let second = try Gzip.compress([4, 5])
        #expect(try Gzip.decompress(first + second) == [1, 2, 3, 4, 5])
        #expect(throws: GzipError.trailingData(offset: first.count)) { try Gzip.decompress(first + [0]) }
    }

    @Test func outputLimit() throws {
        let input = try Sample.gzipInputs()[3]
        let compressed = try Gzip.compress(input)
        #expect(try Gzip.decompress(compressed, limit: input.count) == input)
        #expect(throws: GzipError.outputTooLarge(limit: input.count - 1)) {
            try Gzip.decompress(compressed, limit: input.count - 1)
        }
        #expect(throws: GzipError.outputTooLarge(limit: 0)) { try Gzip.decompress(compressed, limit: 0) }
    }

    @Test func errorsDescribeThemselves() {
        #expect(GzipError.invalidLevel(12).description.contains("invalid gzip compression level 12"))
        #expect(GzipError.truncated.description == "compressed data is truncated")
        #expect(GzipError.outputTooLarge(limit: 10).description.contains("limit of 10 bytes"))
    }
}
