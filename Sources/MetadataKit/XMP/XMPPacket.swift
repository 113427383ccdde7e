import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads and removes location in an XMP packet, cutting it out of the packet's bytes so that
/// everything else (rights, creator, ratings, keywords, dates, unknown namespaces) survives as written.
public enum XMPPacket {
    /// Every XMP property that places a photo: exiftool's Location group, namespace by namespace
    /// (`exiftool -listx`, exiftool 12.57). Structure-valued ones (`LocationCreated`,
    /// `LocationShown`, `RatingRegion`, `dctermsLocation`) go whole, fields included. Google's
    /// camera namespace (`http://ns.google.com/photos/1.0/camera/`) is deliberately absent: it
    /// describes motion photos and depth maps, not place.
    static let locationNamespaces: [XMPLocationNamespace] = [
        .init(uri: "http://ns.adobe.com/exif/1.0/", prefix: "exif", rule: .prefixed("GPS")),
        // Exif 2.3's additions (CIPA DC-010), e.g. GPSHPositioningError.
        .init(uri: "http://cipa.jp/exif/1.0/", prefix: "exifEX", rule: .prefixed("GPS")),
        .init(uri: "http://ns.adobe.com/photoshop/1.0/", prefix: "photoshop", rule: .named(["City", "State", "Country"])),
        .init(uri: "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/", prefix: "Iptc4xmpCore",
              rule: .named(["Location", "CountryCode"])),
        .init(uri: "http://iptc.org/std/Iptc4xmpExt/2008-02-29/", prefix: "Iptc4xmpExt",
              rule: .named(["LocationCreated", "LocationShown", "RatingRegion"])),
        // DJI flight telemetry: positions, altitudes, attitudes, speeds, RTK, and the properties
        // exiftool does not define (DroneID, LRFTargetLat…), which it puts in Location too (and
        // `exiftool -location:all=` cannot reach). The camera's calibration, which exiftool files
        // under Image and photogrammetry (OpenDroneMap, Pix4D) needs, stays — by exact name.
        .init(uri: "http://www.dji.com/drone-dji/1.0/", prefix: "drone-dji", rule: .everyExcept([
            "SelfData", "CalibratedFocalLength", "CalibratedOpticalCenterX", "CalibratedOpticalCenterY", "DewarpData", "DewarpFlag",
        ])),
        // Google's Dynamic Depth: where the device was on Earth, and camera and plane poses.
        .init(uri: "http://ns.google.com/photos/dd/1.0/earthpose/", prefix: "EarthPose",
              rule: .named(["Latitude", "Longitude", "Altitude", "RotationX", "RotationY", "RotationZ", "RotationW"])),
        .init(uri: "http://ns.google.com/photos/dd/1.0/pose/", prefix: "Pose",
              rule: .named(["PositionX", "PositionY", "PositionZ", "RotationX", "RotationY", "RotationZ", "RotationW"])),
        // Sony Ericsson's cell tower: the network cell places the phone.
        .init(uri: "http://developer.sonyericsson.com/cell/1.0/", prefix: "cell",
              rule: .named(["cellid", "cgi", "lac", "mcc", "mnc", "r"])),
        .init(uri: "http://ns.iview-multimedia.com/mediapro/1.0/", prefix: "mediapro", rule: .named(["Location"])),
        .init(uri: "http://ns.camerabits.com/photomechanic/1.0/", prefix: "photomech", rule: .named(["CountryCode"])),
        .init(uri: "http://rs.tdwg.org/dwc/index.htm", prefix: "dwc", rule: .named(["dctermsLocation"])),
    ]

    /// The wrapper written around packets that arrived without one: the XMP spec's fixed id.
    static let defaultPacketBegin = "begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\""
    static let defaultPacketEnd = "end=\"w\""

    /// The packet without its location properties, or `nil` when it carried none. They are cut
    /// out of the packet's own bytes (an element with the whitespace indenting it, an attribute
    /// with the space before it), so everything else stays as written. The root element is
    /// re-wrapped in `<?xpacket?>`, keeping the original `begin`/`id` and `end`; the padding goes,
    /// the packet having shrunk. A UTF-16 packet comes back as UTF-8.
    ///
    /// Streaming rather than `XMLDocument`: swift-corelibs' `XMLDocument` keeps tens of kilobytes
    /// per parsed packet alive on Linux, which a run over a million photos cannot afford.
    ///
    /// - Throws: `MetadataFormatError` when the packet is not well-formed XML. The caller then
    ///   drops the whole packet: location it cannot see, it cannot remove.
    public static func removingLocation(from packet: [UInt8]) throws -> MetadataRemoval? {
        guard mayPlacePhoto(packet) else { return nil }
        return try removing(from: packet) { locationName($0.namespace, $0.localName) }
    }

    /// Whether `packet` may hold a location property: it names one of the location namespaces,
    /// by URI or by its usual prefix (lenient readers take an undeclared `exif:` for EXIF's; for
    /// EXIF's namespaces a `GPS` name must be there too), or it is written in a way a search of
    /// its bytes cannot see through (UTF-16, entity references, a DTD). When it does not, no
    /// reader can find location in it, and it need not be parsed to know.
    public static func mayPlacePhoto(_ packet: [UInt8]) -> Bool {
        if packet.contains(0) || packet.contains(UInt8(ascii: "&")) || packet.firstOffset(of: Array("<!".utf8)) != nil { return true }
        return locationNamespaces.contains { namespace in
            guard packet.firstOffset(of: Array(namespace.uri.utf8)) != nil || packet.firstOffset(of: Array("\(namespace.prefix):".utf8)) != nil
            else { return false }
            guard case .prefixed(let start) = namespace.rule else { return true }
            return packet.firstOffset(of: Array(start.utf8)) != nil
        }
    }

    /// The packet with only the top-level properties in `kept` (namespace URI and local name),
    /// or `nil` when it had nothing else. Kept properties keep their fields whole.
    ///
    /// - Throws: `MetadataFormatError` when the packet is not well-formed XML.
    public static func keepingOnly(_ kept: Set<PropertyName>, from packet: [UInt8]) throws -> MetadataRemoval? {
        try removing(from: packet) { property in
            property.isTopLevel && !kept.contains(PropertyName(property.namespace, property.localName)) ? property.qualifiedName : nil
        }
    }

    /// The packet, as UTF-8, without the properties (and the attributes of structures) in
    /// `namespaces`, nor the `rdf:Description`s left empty: how a writer that owns those
    /// namespaces clears what an earlier one wrote, and writes it again without leaving husks.
    ///
    /// - Throws: `MetadataFormatError` when the packet is not well-formed XML.
    static func removingProperties(inNamespaces namespaces: Set<String>, from packet: [UInt8]) throws -> [UInt8] {
        let removed = try removing(from: packet) { namespaces.contains($0.namespace) ? $0.qualifiedName : nil }
        guard let removed else { return try sourceAndText(of: packet).text }
        return try removingEmptyDescriptions(from: removed.bytes)
    }

    /// A property by namespace URI and local name.
    public struct PropertyName: Hashable, Sendable {
        public let namespace: String
        public let localName: String

        public init(_ namespace: String, _ localName: String) {
            self.namespace = namespace
            self.localName = localName
        }
    }

    /// A property as a scan meets it: where it stands decides what a selection does with it.
    struct ScannedProperty {
        let namespace: String
        let localName: String
        /// The name as written (`ns1:GPSLatitude`).
        let qualifiedName: String
        /// Whether it is a property of an `rdf:Description`, not a field of a structure.
        let isTopLevel: Bool
    }

    /// What a scan cuts: the report name of a property that goes, nil for one that stays.
    typealias Selection = (ScannedProperty) -> String?

    private static func removing(from packet: [UInt8], selecting selection: @escaping Selection) throws -> MetadataRemoval? {
        let scan = try PropertyScan(packet, selecting: selection)
        guard !scan.found.isEmpty, let root = scan.root else { return nil }
        var body: [UInt8] = []
        body.reserveCapacity(root.count)
        var kept = root.lowerBound
        for cut in scan.cuts {
            guard cut.lowerBound >= kept, cut.upperBound <= root.upperBound else {
                throw MetadataFormatError(message: "XMP packet is not well-formed XML (overlapping properties)")
            }
            body += scan.text[kept..<cut.lowerBound]
            kept = cut.upperBound
        }
        body += scan.text[kept..<root.upperBound]
        let begin = scan.packetBegin ?? defaultPacketBegin, end = scan.packetEnd ?? defaultPacketEnd
        return MetadataRemoval(bytes: Array("<?xpacket \(begin)?>\n".utf8) + body + Array("\n<?xpacket \(end)?>".utf8),
                               removed: scan.found.map(\.name).uniqued())
    }

    /// The location properties present, e.g. `["photoshop:City": "Mainz"]`. A structure's fields
    /// and a repeated property's values are joined with "; ".
    ///
    /// - Throws: `MetadataFormatError` when the packet is not well-formed XML.
    public static func locationValues(in packet: [UInt8]) throws -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in try PropertyScan(packet, selecting: { locationName($0.namespace, $0.localName) }).found {
            values[name] = values[name].map { "\($0); \(value)" } ?? value
        }
        return values
    }

    /// One property anywhere in a packet, by namespace URI and local name, with its leaf
    /// values (an array's items, a structure's fields).
    public struct Property: Equatable, Sendable {
        public let namespace: String
        public let name: String
        public let values: [String]
    }

    /// Every property in the packet, nested ones included (a `Container:Item`'s `Item:Semantic`
    /// is listed as well as the `Container:Directory` holding it).
    ///
    /// Read with the streaming parser: classification calls this for every item of a run, and
    /// swift-corelibs' `XMLDocument` keeps tens of kilobytes per parsed packet alive.
    ///
    /// - Throws: `MetadataFormatError` when the packet is not well-formed XML.
    public static func properties(in packet: [UInt8]) throws -> [Property] {
        let end = packet.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0
        // As in `LocationScan`: XMP forbids a DTD, and entities could hide what is read here.
        if packet.firstOffset(of: Array("<!DOCTYPE".utf8)) != nil {
            throw MetadataFormatError(message: "XMP packet declares a DTD, which XMP forbids")
        }
        let collector = PropertyCollector()
        let parser = try namespaceParser(Array(packet[..<end]))
        parser.shouldReportNamespacePrefixes = true
        parser.delegate = collector
        _ = parser.parse() // unreliable on Linux; the collector judges
        if let problem = collector.problem ?? (collector.sawElement ? nil : "no root element") {
            throw MetadataFormatError(message: "XMP packet is not well-formed XML (\(problem))")
        }
        return collector.properties
    }

    /// Whether any of `properties` places the photo, by the same rules `removingLocation` uses.
    public static func placesPhoto(_ properties: [Property]) -> Bool {
        properties.contains { property in
            locationNamespaces.contains { $0.uri == property.namespace && $0.placesPhoto(property.name) }
        }
    }

    private final class PropertyCollector: NSObject, XMLParserDelegate {
        /// An open element; RDF syntax and the wrapper are open elements but not properties.
        private struct Open {
            let property: (namespace: String, name: String)?
            var values: [String] = []
            var text = ""
        }

        var properties: [Property] = []
        var problem: String?
        var sawElement = false
        private var stack: [Open] = []
        /// Attributes arrive with their qualified names; their namespaces come from the mappings.
        private var prefixes: [String: String] = [:]

        private func isProperty(_ namespace: String?) -> Bool {
            namespace.map(XMPPacket.isProperty) ?? false
        }

        /// A leaf value belongs to every property it sits in.
        private func addValue(_ value: String) {
            for index in stack.indices where stack[index].property != nil { stack[index].values.append(value) }
        }

        func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
            prefixes[prefix] = namespaceURI
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            sawElement = true
            stack.append(Open(property: isProperty(namespaceURI) ? (namespaceURI!, elementName) : nil))
            for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
                guard let colon = name.firstIndex(of: ":"), let namespace = prefixes[String(name[..<colon])],
                      isProperty(namespace) else { continue }
                properties.append(Property(namespace: namespace, name: String(name[name.index(after: colon)...]), values: [value]))
                addValue(value)
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            // Trimmed of Unicode's white space (as `.whitespacesAndNewlines`) without Foundation's cost at each element.
            if let text = stack.last?.text, let first = text.firstIndex(where: { !$0.isWhitespace }),
               let last = text.lastIndex(where: { !$0.isWhitespace }) {
                addValue(String(text[first...last]))
            }
            guard let closed = stack.popLast(), let property = closed.property else { return }
            properties.append(Property(namespace: property.namespace, name: property.name, values: closed.values))
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            guard problem == nil else { return }
            problem = "libxml2 error \((parseError as NSError).code) at line \(parser.lineNumber), column \(parser.columnNumber)"
        }
    }

    /// `x:xmpmeta`'s namespace: the packet's wrapper, not a property.
    private static let adobeMetaNamespace = "adobe:ns:meta/"
    static let rdfNamespace = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    /// Whether an element or attribute in `namespace` is a property: RDF syntax, `xml:lang` and
    /// the wrapper are not.
    static func isProperty(_ namespace: String) -> Bool {
        !namespace.isEmpty && !syntaxNamespaces.contains(namespace) && namespace != adobeMetaNamespace
    }

    /// Whether a packet places its subject somewhere, for containers that can only keep or drop
    /// it whole (a movie's XMP box). A packet that cannot be parsed counts as carrying location:
    /// what it hides cannot be checked.
    public static func carriesLocation(_ packet: some Collection<UInt8>) -> Bool {
        let bytes = Array(packet)
        return mayPlacePhoto(bytes) && (try? placesPhoto(properties(in: bytes))) ?? true
    }

    private static let syntaxNamespaces: Set<String> = [
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://www.w3.org/XML/1998/namespace",
    ]

    /// The report name of a location property (`exif:GPSLatitude`), or nil for anything else.
    private static func locationName(_ namespace: String, _ localName: String) -> String? {
        locationNamespaces.first { $0.uri == namespace && $0.placesPhoto(localName) }.map { "\($0.prefix):\(localName)" }
    }

    private static func malformed(_ problem: String) -> MetadataFormatError {
        MetadataFormatError(message: "XMP packet is not well-formed XML (\(problem))")
    }

    /// One streaming pass over a packet: the properties `selection` picks, with their values and
    /// bytes. Element-form ones below the root are taken whole, a structure with its fields, and
    /// not looked into; attribute-form ones are found on every other element. Elements in a default
    /// namespace count too, as they do for `properties(in:)`.
    ///
    /// libxml2 (`XMLParser`) judges well-formedness and reads every element's namespace, name and
    /// attributes; `XMLTokenizer` then finds where things are in the bytes, which `XMLParser` on
    /// Linux does not say. The two must read every element alike, or the packet is refused
    /// rather than edited on a misreading.
    struct PropertyScan {
        /// The packet as UTF-8: what `root` and `cuts` index.
        let text: [UInt8]
        var root: Range<Int>?
        /// Each picked property's bytes in order: an element with the whitespace-only text
        /// indenting it, or an attribute with the whitespace before it.
        var cuts: [Range<Int>] = []
        /// Each picked property's report name and value (leaf values joined by "; "), in order.
        var found: [(name: String, value: String)] = []
        /// The data of the `<?xpacket?>` instructions outside the root.
        var packetBegin: String?
        var packetEnd: String?

        init(_ packet: [UInt8], selecting selection: @escaping Selection) throws {
            let (source, text) = try XMPPacket.sourceAndText(of: packet)
            // XMP forbids a DTD, and entities could hide what is read here.
            if text.firstOffset(of: Array("<!DOCTYPE".utf8)) != nil {
                throw MetadataFormatError(message: "XMP packet declares a DTD, which XMP forbids")
            }
            let elements = try XMPPacket.parsedElements(source)
            var reader = Reader(text: text, expecting: elements, selection: selection)
            try reader.read()
            self = reader.scan
        }

        /// Nothing found yet: what `Reader` starts from.
        private init(text: [UInt8]) {
            self.text = text
        }

        /// The pass itself: the scan being filled in, the tokenizer, and what is open where it stands.
        private struct Reader {
            var scan: PropertyScan
            private let selection: Selection
            private var tokenizer: XMLTokenizer
            /// The elements libxml2 read, in order: each start tag must match the next one.
            private var expected: IndexingIterator<[ParsedElement]>
            /// Namespace declarations in scope, innermost last.
            private var namespaces: [(prefix: String, uri: String)] = [("xml", "http://www.w3.org/XML/1998/namespace")]
            /// Open elements: the name as written, how many declarations were in scope before it,
            /// and whether it is an `rdf:Description`, whose children are top-level properties.
            private var open: [(name: Range<Int>, scope: Int, isDescription: Bool)] = []
            /// The picked property being read: its content goes with it.
            private var property: (name: String, depth: Int, start: Int, values: [String])?
            /// The text token just before the current one, when it is whitespace only.
            private var indentation: Range<Int>?
            private var rootStart = 0

            private typealias NamedAttribute = (name: String, attribute: XMLTokenizer.Attribute)

            private var text: [UInt8] { scan.text }

            init(text: [UInt8], expecting elements: [ParsedElement], selection: @escaping Selection) {
                scan = PropertyScan(text: text)
                self.selection = selection
                tokenizer = XMLTokenizer(text)
                expected = elements.makeIterator()
            }

            mutating func read() throws {
                while let token = try nextToken() {
                    let previousText = indentation
                    indentation = nil
                    switch token {
                    case .text(let range):
                        try readText(range)
                    case .cdata(let range):
                        readCDATA(range)
                    case .comment:
                        break
                    case .processingInstruction(let target, let data):
                        readProcessingInstruction(target: target, data: data)
                    case .startTag(let nameRange, let attributes, let isEmpty, let extent):
                        try readStartTag(nameRange, attributes, extent: extent, after: previousText)
                        if isEmpty { try close(at: extent.upperBound) }
                    case .endTag(let nameRange, let extent):
                        guard let top = open.last, text[top.name].elementsEqual(text[nameRange]) else {
                            throw malformed("unmatched end tag at byte \(extent.lowerBound)")
                        }
                        try close(at: extent.upperBound)
                    }
                }
                guard scan.root != nil, open.isEmpty, expected.next() == nil else { throw malformed("libxml2 reads more elements") }
            }

            private mutating func readText(_ range: Range<Int>) throws {
                if range.allSatisfy({ XMLTokenizer.isSpace(text[$0]) }) { indentation = range }
                if property != nil {
                    let value = try tokenizer.decoded(range).trimmingCharacters(in: .whitespacesAndNewlines)
                    if !value.isEmpty { property?.values.append(value) }
                }
            }

            private mutating func readCDATA(_ range: Range<Int>) {
                let value = string(range).trimmingCharacters(in: .whitespacesAndNewlines)
                if property != nil, !value.isEmpty { property?.values.append(value) }
            }

            private mutating func readProcessingInstruction(target: Range<Int>, data: Range<Int>) {
                guard open.isEmpty, string(target) == "xpacket" else { return }
                let data = string(data)
                if scan.packetBegin == nil, data.hasPrefix("begin") { scan.packetBegin = data }
                if scan.packetEnd == nil, data.hasPrefix("end") { scan.packetEnd = data }
            }

            private mutating func readStartTag(_ nameRange: Range<Int>, _ attributes: [XMLTokenizer.Attribute],
                                               extent: Range<Int>, after previousText: Range<Int>?) throws {
                if open.isEmpty {
                    guard scan.root == nil else { throw malformed("content after the root element") }
                    rootStart = extent.lowerBound
                }
                let isTopLevel = open.last?.isDescription ?? false
                // Declarations first: they apply to the element's own name and attributes.
                let scope = namespaces.count
                let plain = try declareNamespaces(attributes)
                let (namespace, localName) = try resolve(string(nameRange), isAttribute: false)
                open.append((nameRange, scope, namespace == XMPPacket.rdfNamespace && localName == "Description"))
                var values: [String: String] = [:]
                for (name, attribute) in plain {
                    values[name] = try tokenizer.decoded(attribute.value, attributeValue: true)
                }
                guard expected.next() == ParsedElement(namespace: namespace, name: localName, attributes: values) else {
                    throw malformed("libxml2 reads element \(string(nameRange)) at byte \(extent.lowerBound) differently")
                }

                let scanned = ScannedProperty(namespace: namespace, localName: localName, qualifiedName: string(nameRange), isTopLevel: isTopLevel)
                if property == nil, open.count > 1, XMPPacket.isProperty(namespace), let reportName = selection(scanned) {
                    property = (reportName, open.count, previousText?.lowerBound ?? extent.lowerBound, [])
                }
                if property != nil {
                    try addFieldValues(plain, values)
                } else {
                    try cutPickedAttributes(plain, values, ofTopLevel: open.last?.isDescription ?? false)
                }
            }

            /// Brings the element's namespace declarations into scope; the other attributes, by name.
            private mutating func declareNamespaces(_ attributes: [XMLTokenizer.Attribute]) throws -> [NamedAttribute] {
                var plain: [NamedAttribute] = []
                for attribute in attributes {
                    let name = string(attribute.name)
                    if name == "xmlns" || name.hasPrefix("xmlns:") {
                        namespaces.append((String(name.dropFirst(6)), try tokenizer.decoded(attribute.value, attributeValue: true)))
                    } else {
                        plain.append((name, attribute))
                    }
                }
                return plain
            }

            /// A property's value: its fields' prefixed attributes, RDF syntax (rdf:parseType, xml:lang) aside.
            private mutating func addFieldValues(_ plain: [NamedAttribute], _ values: [String: String]) throws {
                for (name, _) in plain where name.contains(":") {
                    if try !syntaxNamespaces.contains(resolve(name, isAttribute: true).namespace) {
                        property?.values.append(values[name] ?? "")
                    }
                }
            }

            /// Outside a picked property, attribute-form properties are picked wherever they appear.
            private mutating func cutPickedAttributes(_ plain: [NamedAttribute], _ values: [String: String], ofTopLevel: Bool) throws {
                for (name, attribute) in plain where name.contains(":") {
                    let (attributeNamespace, attributeName) = try resolve(name, isAttribute: true)
                    let scanned = ScannedProperty(namespace: attributeNamespace, localName: attributeName, qualifiedName: name, isTopLevel: ofTopLevel)
                    guard XMPPacket.isProperty(attributeNamespace), let reportName = selection(scanned) else { continue }
                    scan.cuts.append(attribute.extent)
                    scan.found.append((reportName, values[name] ?? ""))
                }
            }

            private mutating func close(at end: Int) throws {
                guard let top = open.popLast() else { throw malformed("unmatched end tag at byte \(end)") }
                if let closed = property, closed.depth == open.count + 1 {
                    scan.cuts.append(closed.start..<end)
                    scan.found.append((closed.name, closed.values.joined(separator: "; ")))
                    property = nil
                }
                namespaces.removeSubrange(min(top.scope, namespaces.count)...)
                if open.isEmpty { scan.root = rootStart..<end }
            }

            private func resolve(_ qualifiedName: String, isAttribute: Bool) throws -> (namespace: String, localName: String) {
                guard let colon = qualifiedName.firstIndex(of: ":") else {
                    // The default namespace applies to element names only.
                    return (isAttribute ? "" : namespaces.last { $0.prefix.isEmpty }?.uri ?? "", qualifiedName)
                }
                let prefix = qualifiedName[..<colon]
                guard let namespace = namespaces.last(where: { $0.prefix == prefix })?.uri, !namespace.isEmpty else {
                    throw malformed("unbound prefix \(prefix)")
                }
                return (namespace, String(qualifiedName[qualifiedName.index(after: colon)...]))
            }

            private func string(_ range: Range<Int>) -> String { String(decoding: text[range], as: UTF8.self) }

            private mutating func nextToken() throws -> XMLTokenizer.Token? {
                do {
                    return try tokenizer.next()
                } catch let error as XMLTokenizer.Malformed {
                    throw malformed("unreadable markup at byte \(error.offset)")
                }
            }
        }
    }

    /// An element as libxml2 reads it: namespace URI ("" for none), local name, and attributes
    /// by qualified name, namespace declarations left out.
    struct ParsedElement: Equatable {
        let namespace: String
        let name: String
        let attributes: [String: String]
    }

    /// Every element as libxml2 reads it, in document order.
    ///
    /// - Throws: `MetadataFormatError` at the first parse error, or when nothing parses.
    private static func parsedElements(_ source: [UInt8]) throws -> [ParsedElement] {
        let recorder = ElementRecorder()
        let parser = try namespaceParser(source)
        parser.delegate = recorder
        _ = parser.parse() // unreliable on Linux; the recorder judges
        if let problem = recorder.problem ?? (recorder.elements.isEmpty ? "no root element" : nil) {
            throw malformed(problem)
        }
        return recorder.elements
    }

    /// Notes the first parse error: on Linux `XMLParser.parse()` returns true even after errors,
    /// and accepts empty input, so success is judged here instead.
    private final class ElementRecorder: NSObject, XMLParserDelegate {
        var elements: [ParsedElement] = []
        var problem: String?

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            elements.append(ParsedElement(namespace: namespaceURI ?? "", name: elementName, attributes: attributes))
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            guard problem == nil else { return }
            problem = "libxml2 error \((parseError as NSError).code) at line \(parser.lineNumber), column \(parser.columnNumber)"
        }
    }

    /// The packet as libxml2 should read it, without the NULs some writers end it with (XML
    /// forbids them, and every reader skips them), and as UTF-8 for the byte-level scan. UTF-16
    /// (exiftool's own XMP.jpg), UTF-32 and the 8-bit encodings an XML declaration may name are
    /// transcoded; the edited packet is then UTF-8, as XMP in JPEG must be.
    static func sourceAndText(of packet: [UInt8]) throws -> (source: [UInt8], text: [UInt8]) {
        var end = packet.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0
        if let (encoding, width) = wideEncoding(packet) {
            // The last character's other bytes may be NULs.
            end = min((end + width - 1) / width * width, packet.count)
            let source = Array(packet[..<end])
            guard let text = String(bytes: source, encoding: encoding) else { throw malformed("invalid \(encoding)") }
            return (source, Array(text.utf8))
        }
        let source = Array(packet[..<end])
        switch declaredEncoding(source) {
        case nil, "utf-8", "utf8", "us-ascii", "ascii":
            return (source, source)
        case let name?:
            let encoding: String.Encoding? = switch name {
            case "iso-8859-1", "iso_8859-1", "latin1", "l1": .isoLatin1
            case "windows-1252", "cp1252": .windowsCP1252
            default: nil
            }
            guard let encoding, let text = String(bytes: source, encoding: encoding) else {
                throw MetadataFormatError(message: "XMP packet is encoded in \(name), which is not read here")
            }
            return (source, Array(text.utf8))
        }
    }

    /// The encoding told from a BOM or from the NULs around the first character (XML's appendix F).
    private static func wideEncoding(_ packet: [UInt8]) -> (encoding: String.Encoding, width: Int)? {
        let head = Array(packet.prefix(4)) + [1, 1, 1, 1]
        return if head.starts(with: [0, 0, 0xFE, 0xFF]) || head.starts(with: [0, 0, 0, 0x3C]) { (.utf32BigEndian, 4) }
            else if head.starts(with: [0xFF, 0xFE, 0, 0]) || head.starts(with: [0x3C, 0, 0, 0]) { (.utf32LittleEndian, 4) }
            else if head.starts(with: [0xFE, 0xFF]) || (head[0] == 0 && head[1] != 0 && head[2] == 0) { (.utf16BigEndian, 2) }
            else if head.starts(with: [0xFF, 0xFE]) || (head[0] != 0 && head[1] == 0 && head[2] != 0 && head[3] == 0) { (.utf16LittleEndian, 2) }
            else { nil }
    }

    /// An XMLParser over `source` with namespaces processed, once the text libxml2 will hand it
    /// is known not to crash swift-corelibs' XMLParser, which force-unwraps every element name,
    /// attribute name and comment as UTF-8 (libxml2 in recovery mode passes malformed ones on,
    /// and reports them) and reads a processing instruction's data even where libxml2 has none
    /// (`<?name?>` hands it a NULL). An encoding not read here is refused as `sourceAndText`
    /// refuses it: its text cannot be checked.
    private static func namespaceParser(_ source: [UInt8]) throws -> XMLParser {
        let text = try sourceAndText(of: source).text
        guard String(validating: text, as: UTF8.self) != nil else { throw malformed("invalid UTF-8") }
        if hasProcessingInstructionWithoutData(text) {
            throw malformed("a processing instruction without data, which XMLParser on Linux cannot read")
        }
        let parser = XMLParser(data: Data(source))
        parser.shouldProcessNamespaces = true
        return parser
    }

    /// Whether a `<?` runs to its `?>` without whitespace, as a data-less `<?name?>` does (in a
    /// comment or a CDATA section too: erring towards refusing).
    private static func hasProcessingInstructionWithoutData(_ text: [UInt8]) -> Bool {
        var index = 0
        while let open = text.firstOffset(of: Array("<?".utf8), from: index) {
            var end = open + 2
            while end < text.count, !XMLTokenizer.isSpace(text[end]), text[end] != UInt8(ascii: "?") { end += 1 }
            if end + 1 < text.count, text[end] == UInt8(ascii: "?"), text[end + 1] == UInt8(ascii: ">") { return true }
            index = open + 2
        }
        return false
    }

    /// The encoding an XML declaration names, lowercased; nil without one.
    private static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard bytes[start...].starts(with: Array("<?xml ".utf8)),
              let close = bytes.firstOffset(of: Array("?>".utf8), from: start) else { return nil }
        let declaration = String(decoding: bytes[start..<close], as: UTF8.self)
        guard let key = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[key.upperBound...].drop { $0 == "=" || $0.isWhitespace }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote }).lowercased()
    }
}
