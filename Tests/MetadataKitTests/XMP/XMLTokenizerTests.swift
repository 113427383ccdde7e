@testable import MetadataKit
import TestSupport
import XCTest

final class XMLTokenizerTests: XCTestCase {
    private func tokens(_ text: String) throws -> [String] {
        var tokenizer = XMLTokenizer(Array(text.utf8))
        func string(_ range: Range<Int>) -> String { String(decoding: tokenizer.bytes[range], as: UTF8.self) }
        var tokens: [String] = []
        while let token = try tokenizer.next() {
            switch token {
            case .startTag(let name, let attributes, let isEmpty, let extent):
                let attributes = attributes.map { "\(string($0.name))=\(string($0.value))|\(string($0.extent))|" }
                tokens.append("<\(string(name)) \(attributes.joined(separator: " "))\(isEmpty ? "/" : "")> \(string(extent))")
            case .endTag(let name, let extent): tokens.append("</\(string(name))> \(string(extent))")
            case .text(let range): tokens.append("text \(string(range))")
            case .cdata(let range): tokens.append("cdata \(string(range))")
            case .comment: tokens.append("comment")
            case .processingInstruction(let target, let data): tokens.append("pi \(string(target)) [\(string(data))]")
            }
        }
        return tokens
    }

    func testTokensCarryTheirBytes() throws {
        XCTAssertEqual(try tokens("""
        <?xpacket begin='' id='x' ?><a:b x="1>2" y = 'q"'\n z="">t&amp;<c/><!-- <d> --><![CDATA[<e>]]></a:b >
        """), [
            "pi xpacket [begin='' id='x' ]",
            "<a:b x=1>2| x=\"1>2\"| y=q\"| y = 'q\"'| z=|\n z=\"\"|> <a:b x=\"1>2\" y = 'q\"'\n z=\"\">",
            "text t&amp;", "<c /> <c/>", "comment", "cdata <e>", "</a:b> </a:b >",
        ])
    }

    func testDecodesReferencesAndNormalisesLineEnds() throws {
        let tokenizer = XMLTokenizer(Array("K&#246;ln &amp; &lt;&#x4D;&gt;\r\n\ta\rb".utf8))
        let all = 0..<tokenizer.bytes.count
        XCTAssertEqual(try tokenizer.decoded(all), "Köln & <M>\n\ta\nb")
        XCTAssertEqual(try tokenizer.decoded(all, attributeValue: true), "Köln & <M>  a b")
        for bad in ["&", "&nbsp;", "&#xZZ;", "&#1114112;", "&#55296;"] {
            XCTAssertThrowsError(try XMLTokenizer(Array(bad.utf8)).decoded(0..<bad.utf8.count), bad)
        }
    }

    func testRefusesWhatItCannotTokenise() {
        for bad in ["<", "<a", "<a b>", "<a b=c>", "<a b='c>", "<ab=''>", "</a", "<!-- x", "<![CDATA[x", "<!DOCTYPE a>", "<?x", "<a/ >"] {
            XCTAssertThrowsError(try tokens(bad), bad)
        }
    }

    /// Every truncation and many corruptions of a real packet, read without libxml2 vetting it
    /// first: tokens or an error, never a trap.
    func testHostileBytesNeverTrap() throws {
        let packet = try XCTUnwrap(JPEGMetadata.readMetadata(path: Fixtures.sample("jpeg/nikon_d5000_xmp_gps_only.jpg")).xmp)
        func exhaust(_ bytes: [UInt8]) {
            var tokenizer = XMLTokenizer(bytes)
            while let token = try? tokenizer.next() {
                switch token {
                case .text(let range): _ = try? tokenizer.decoded(range)
                case .startTag(_, let attributes, _, _):
                    for attribute in attributes { _ = try? tokenizer.decoded(attribute.value, attributeValue: true) }
                default: break
                }
            }
        }
        for end in 0...packet.count { exhaust(Array(packet[..<end])) }
        for offset in stride(from: 0, to: packet.count, by: 7) {
            for replacement in Array("<>/=\"&;?!".utf8) + [0xFF] {
                var corrupted = packet
                corrupted[offset] = replacement
                exhaust(corrupted)
            }
        }
    }
}
