import Testing
import RouteTiles
@testable import RouteTilesInput
import RouteTilesCoreTestSupport

/// The pull tokenizer under the GPX reader (`XMLTokenizer`): tags, attributes, text, entities, the constructs it
/// skips, and where it reports malformed input.
@Suite struct XMLTokenizerTests {
    typealias Token = XMLTokenizer.Token

    /// Every token of `bytes`, or the error that stops it, with each token's offset.
    static func read(_ bytes: [UInt8], isFinal: Bool = true,
                     atInputStart: Bool = true) -> (tokens: [Token], offsets: [Int], error: XMLTokenizer.SyntaxError?) {
        bytes.withUnsafeBufferPointer { buffer in
            var tokenizer = XMLTokenizer(bytes: buffer, isFinal: isFinal, atInputStart: atInputStart)
            var tokens: [Token] = [], offsets: [Int] = []
            do throws(XMLTokenizer.SyntaxError) {
                while let token = try tokenizer.next() {
                    tokens.append(token)
                    offsets.append(tokenizer.tokenOffset)
                }
                return (tokens, offsets, nil)
            } catch {
                return (tokens, offsets, error)
            }
        }
    }

    static func tokens(_ text: String) -> [Token]? {
        let result = read(Array(text.utf8))
        return result.error == nil ? result.tokens : nil
    }

    static func start(_ name: String, _ attributes: [(String, String)] = [], selfClosing: Bool = false) -> Token {
        .start(name: name, attributes: attributes, selfClosing: selfClosing)
    }

    /// Nested elements give start, text and end tokens in document order, whitespace between tags included as
    /// text, each token at the byte where it starts.
    @Test func elementsAndTextComeInDocumentOrder() {
        let text = "<gpx>\n  <trk><name>Loop</name></trk>\n</gpx>"
        let result = Self.read(Array(text.utf8))
        #expect(result.error == nil)
        #expect(result.tokens == [Self.start("gpx"), .text("\n  "), Self.start("trk"), Self.start("name"), .text("Loop"),
                                  .end(name: "name"), .end(name: "trk"), .text("\n"), .end(name: "gpx")])
        #expect(result.offsets == [0, 5, 8, 13, 19, 23, 30, 36, 37])
    }

    /// Attributes keep their order; values may be in double or single quotes, hold the other kind of quote, and
    /// have space around the `=`. Names may carry a namespace prefix.
    @Test func attributesInEitherQuotes() {
        let text = #"<gpx:trkpt lat="48.5" lon='2.25' name = "it's" note='say "hi"' empty=""></gpx:trkpt>"#
        #expect(Self.tokens(text) == [
            Self.start("gpx:trkpt", [("lat", "48.5"), ("lon", "2.25"), ("name", "it's"), ("note", "say \"hi\""), ("empty", "")]),
            .end(name: "gpx:trkpt"),
        ])
        // Token equality looks at the attributes, their order included.
        #expect(Self.tokens(#"<a x="1" y="2"/>"#) != [Self.start("a", [("y", "2"), ("x", "1")], selfClosing: true)])
    }

    /// The five named entities and decimal and hexadecimal character references are decoded, in text and in
    /// attribute values.
    @Test func entitiesAndCharacterReferencesAreDecoded() {
        let text = #"<a t="&lt;&gt;&amp;&quot;&apos;">x &lt; y &#65;&#x42;&#X43; caf&#233; &#x1F6B2;</a>"#
        #expect(Self.tokens(text) == [Self.start("a", [("t", "<>&\"'")]), .text("x < y ABC café 🚲"), .end(name: "a")])
    }

    /// CDATA is text taken as it stands (no entity decoding, `<` allowed), a token of its own.
    @Test func cdataIsLiteralText() {
        #expect(Self.tokens("<a>x<![CDATA[1 < 2 && &amp; ]]>z</a>")
            == [Self.start("a"), .text("x"), .text("1 < 2 && &amp; "), .text("z"), .end(name: "a")])
    }

    /// The XML declaration, processing instructions, comments and a DOCTYPE with an internal subset give no tokens.
    @Test func declarationsCommentsAndInstructionsAreSkipped() {
        let text = #"<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY e "v">]><!-- a <b>comment</b> - --><a><?pi x?></a><!---->"#
        #expect(Self.tokens(text) == [Self.start("a"), .end(name: "a")])
    }

    /// `<a/>` and `<b x="1" />` are self-closing start tags with no end tag token.
    @Test func selfClosingTagsHaveNoEndToken() {
        #expect(Self.tokens(#"<r><a/><b x="1" /></r>"#)
            == [Self.start("r"), Self.start("a", selfClosing: true), Self.start("b", [("x", "1")], selfClosing: true),
                .end(name: "r")])
    }

    /// A byte order mark is skipped at the start of the input, and only there.
    @Test func byteOrderMarkOnlyAtTheStart() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let atStart = Self.read(bom + Array("<a/>".utf8))
        #expect(atStart.tokens == [Self.start("a", selfClosing: true)] && atStart.offsets == [3])
        let later = Self.read(bom + Array("<a/>".utf8), atInputStart: false)
        #expect(later.tokens == [.text("\u{FEFF}"), Self.start("a", selfClosing: true)])
    }

    /// Malformed input stops the tokenizer with a message and the byte offset where the problem is (the GPX reader
    /// turns the offset into a line and column).
    @Test(arguments: [
        ("<a><!-- never closed", 3, "unterminated comment"),
        ("<![CDATA[x", 0, "unterminated CDATA section"),
        ("<?pi", 0, "unterminated processing instruction"),
        ("<!DOCTYPE x [ <!ENTITY e 'v'> ", 0, "unterminated declaration"),
        (#"<a b="1" c>"#, 10, "expected '=', found"),
        ("<a b=1>", 5, "expected a quoted value for attribute 'b'"),
        (#"<a b="x<y">"#, 7, "'<' inside the value of attribute 'b'"),
        (#"<a b="open>"#, 5, "unterminated value of attribute 'b'"),
        ("<a>x & y</a>", 5, "'&' that starts no entity"),
        ("<a>\n\n&nope;</a>", 5, "unknown entity '&nope;'"),
        ("<a>&#0;</a>", 3, "unknown entity '&#0;'"),
        ("</a", 3, "expected '>', found the end of the file"),
        ("<>", 1, "expected a name, found"),
        ("<a", 2, "unterminated tag <a>"),
    ])
    func malformedInputIsReportedWhereItIs(text: String, offset: Int, message: String) throws {
        let error = try #require(Self.read(Array(text.utf8)).error, "\(text) should not tokenize")
        #expect(error.offset == offset, "\(text): \(error)")
        #expect(error.message.hasPrefix(message), "\(text): \(error.message)")
        #expect(!error.needsMore)
    }

    /// Bytes that are not UTF-8 are an error where the text holding them starts.
    @Test func invalidUTF8IsAnError() throws {
        let error = try #require(Self.read(Array("<a>ok".utf8) + [0xFF, 0xFE] + Array("</a>".utf8)).error)
        #expect(error.offset == 3 && error.message.contains("UTF-8"))
    }

    /// In a window that is not the end of the input, a token the window's end may cut short (here an
    /// attribute value, and text that may go on) is asked for again with more input, at the offset where it
    /// starts; tokens before it are read.
    @Test func aWindowEndingInsideATokenAsksForMore() throws {
        let cut = Self.read(Array(#"<a><b c="1"#.utf8), isFinal: false)
        #expect(cut.tokens == [Self.start("a")])
        let error = try #require(cut.error)
        #expect(error.needsMore && error.offset == 3)
        let text = Self.read(Array("<a><b>some te".utf8), isFinal: false)
        #expect(text.tokens == [Self.start("a"), Self.start("b")])
        #expect(text.error?.needsMore == true && text.error?.offset == 6)
        // The same bytes as the last window are an error only in the middle of a tag.
        #expect(Self.read(Array(#"<a><b c="1"#.utf8)).error?.needsMore == false)
    }
}
