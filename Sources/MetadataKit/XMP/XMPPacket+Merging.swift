/// Adding a writer's own `rdf:Description` to a packet, and taking away the ones left empty when
/// its properties were removed: the text edits behind merging a writer's properties into a packet
/// that already has others.
extension XMPPacket {
    /// `packet` (UTF-8) with `description`, an `rdf:Description` element, added as the last
    /// child of its `rdf:RDF` element, whatever prefix that is written with.
    ///
    /// - Throws: `MetadataFormatError` when the packet has no `rdf:RDF` end tag.
    static func inserting(description: [UInt8], into packet: [UInt8]) throws -> [UInt8] {
        var closing: Int?
        var from = 0
        while let open = packet.firstOffset(of: Array("</".utf8), from: from) {
            let name = packet[(open + 2)...].prefix { !XMLTokenizer.isSpace($0) && $0 != UInt8(ascii: ">") }
            if name.elementsEqual("RDF".utf8) || (name.count > 4 && name.suffix(4).elementsEqual(":RDF".utf8)) { closing = open }
            from = open + 2
        }
        guard let closing else { throw MetadataFormatError(message: "XMP packet has no rdf:RDF end tag") }
        return Array(packet[..<closing]) + description + packet[closing...]
    }

    /// `text` (UTF-8) without the `Description` elements that say nothing (no attributes but
    /// namespace declarations and `rdf:about`, no content but whitespace), each with the
    /// whitespace after it: what `inserting` added comes out whole, so writing it again leaves
    /// the packet as it was.
    static func removingEmptyDescriptions(from text: [UInt8]) throws -> [UInt8] {
        var tokenizer = XMLTokenizer(text)
        var cuts: [Range<Int>] = []
        var open: Int?
        var justCut = false
        do {
            while let token = try tokenizer.next() {
                let wasCut = justCut
                justCut = false
                switch token {
                case .startTag(let name, let attributes, let isEmpty, let extent):
                    let isDescription = text[name].elementsEqual("Description".utf8) || text[name].reversed().starts(with: ":Description".utf8.reversed())
                    let saysNothing = isDescription && attributes.allSatisfy { isDeclarationOrAbout(text[$0.name]) }
                    if saysNothing && isEmpty { cuts.append(extent); justCut = true }
                    open = saysNothing && !isEmpty ? extent.lowerBound : nil
                case .text(let range) where range.allSatisfy { XMLTokenizer.isSpace(text[$0]) }:
                    if wasCut, let last = cuts.popLast() { cuts.append(last.lowerBound..<range.upperBound) }
                case .endTag(_, let extent):
                    if let start = open { cuts.append(start..<extent.upperBound); justCut = true }
                    open = nil
                default: open = nil
                }
            }
        } catch {
            throw MetadataFormatError(message: "XMP packet is not well-formed XML")
        }
        return cuts.reversed().reduce(into: text) { $0.removeSubrange($1) }
    }

    private static func isDeclarationOrAbout(_ name: ArraySlice<UInt8>) -> Bool {
        name.elementsEqual("xmlns".utf8) || name.starts(with: "xmlns:".utf8) || name.reversed().starts(with: ":about".utf8.reversed())
    }
}
