import Testing
@testable import RouteTilesAccess

/// Sealed sequences open only with the sealer that sealed them, to the sequence sealed, and tell nothing else.
@Suite struct SealedSequenceTests {
    @Test func aSealedSequenceOpensToItselfAndOnlyWithItsSealer() {
        let sealer = SealedSequence()
        let other = SealedSequence()
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let sequence = Int64.random(in: 0...Int64.max, using: &random)
            let sealed = sealer.seal(sequence)
            #expect(sealed.count == 48 && sealed.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            #expect(sealer.open(sealed) == sequence)
            #expect(other.open(sealed) == nil)
            // Two seals of one sequence differ.
            #expect(sealer.seal(sequence) != sealed)
        }
    }

    @Test func aChangedCharacterOrAnotherTextOpensToNothing() {
        let sealer = SealedSequence()
        let sealed = Array(sealer.seal(42))
        for index in sealed.indices {
            var changed = sealed
            changed[index] = changed[index] == "A" ? "B" : "A"
            #expect(sealer.open(String(changed)) == nil, "\(index)")
        }
        for text in ["", "42", "-", String(sealed.dropLast()), String(sealed) + "A", String(repeating: "A", count: 300)] {
            #expect(sealer.open(text) == nil, "\(text)")
        }
    }
}
