import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One namespace's location-bearing XMP properties. Properties are matched by namespace URI and
/// local name, never by prefix: writers pick their own prefixes (`xap:` vs `xmp:`, `exif:` vs `ns1:`).
struct XMPLocationNamespace: Sendable {
    enum LocalNameRule: Sendable {
        case named(Set<String>)
        case prefixed(String)
        case containing([String])
    }

    let uri: String
    /// The conventional prefix; it only names removed properties in reports.
    let prefix: String
    let rule: LocalNameRule

    func placesPhoto(_ localName: String) -> Bool {
        switch rule {
        case .named(let names): names.contains(localName)
        case .prefixed(let start): localName.hasPrefix(start)
        case .containing(let fragments): fragments.contains { localName.contains($0) }
        }
    }
}

/// Reads and removes location in an XMP packet, editing the parsed XML so that everything else
/// (rights, creator, ratings, keywords, dates, unknown namespaces) survives.
public enum XMPPacket {
    /// Every XMP property that places a photo. Structure-valued ones (`LocationCreated`,
    /// `LocationShown`) go whole, fields included. Google's camera namespace
    /// (`http://ns.google.com/photos/1.0/camera/`) is deliberately absent: it describes motion
    /// photos and depth maps, not place.
    static let locationNamespaces: [XMPLocationNamespace] = [
        .init(uri: "http://ns.adobe.com/exif/1.0/", prefix: "exif", rule: .prefixed("GPS")),
        // Exif 2.3's additions (CIPA DC-010), e.g. GPSHPositioningError.
        .init(uri: "http://cipa.jp/exif/1.0/", prefix: "exifEX", rule: .prefixed("GPS")),
        .init(uri: "http://ns.adobe.com/photoshop/1.0/", prefix: "photoshop", rule: .named(["City", "State", "Country"])),
        .init(uri: "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/", prefix: "Iptc4xmpCore",
              rule: .named(["Location", "CountryCode"])),
        .init(uri: "http://iptc.org/std/Iptc4xmpExt/2008-02-29/", prefix: "Iptc4xmpExt",
              rule: .named(["LocationCreated", "LocationShown"])),
        // DJI flight telemetry: GpsLatitude, GpsLongitude, AbsoluteAltitude, RelativeAltitude.
        .init(uri: "http://www.dji.com/drone-dji/1.0/", prefix: "drone-dji",
              rule: .containing(["Latitude", "Longitude", "Altitude"])),
    ]

    /// The wrapper written around packets that arrived without one: the XMP spec's fixed id.
    static let defaultPacketBegin = "begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\""
    static let defaultPacketEnd = "end=\"w\""

    /// The packet without its location properties, re-wrapped in `<?xpacket?>` (keeping the
    /// original `begin`/`id` and `end`), or `nil` when it carried none.
    ///
    /// - Throws: `MetadataFormatError` when the packet is not well-formed XML. The caller then
    ///   drops the whole packet: location it cannot see, it cannot remove.
    public static func removingLocation(from packet: [UInt8]) throws -> LocationRemoval? {
        let document = try parse(packet)
        guard let root = document.rootElement() else { return nil }
        var removed: [String] = []
        visitLocationProperties(under: root) { property, owner, name in
            removed.append(name)
            if let element = property as? XMLElement {
                detachWithIndentation(element)
            } else if let attributeName = property.name {
                owner.removeAttribute(forName: attributeName)
            }
        }
        guard !removed.isEmpty else { return nil }
        return LocationRemoval(bytes: wrappedPacket(root, from: document), removed: removed.uniqued())
    }

    /// The location properties present, e.g. `["photoshop:City": "Mainz"]`. A structure's fields
    /// and a repeated property's values are joined with "; ".
    ///
    /// - Throws: `MetadataFormatError` when the packet is not well-formed XML.
    public static func locationValues(in packet: [UInt8]) throws -> [String: String] {
        guard let root = try parse(packet).rootElement() else { return [:] }
        var values: [String: String] = [:]
        visitLocationProperties(under: root) { property, _, name in
            let value = leafValues(of: property).joined(separator: "; ")
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
        // As in `parse`: XMP forbids a DTD, and entities could hide what is read here.
        if packet[..<end].firstRange(of: Array("<!DOCTYPE".utf8)) != nil {
            throw MetadataFormatError(message: "XMP packet declares a DTD, which XMP forbids")
        }
        let collector = PropertyCollector()
        let parser = XMLParser(data: Data(packet[..<end]))
        parser.shouldProcessNamespaces = true
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
            guard let namespace, !namespace.isEmpty else { return false }
            return !syntaxNamespaces.contains(namespace) && namespace != adobeMetaNamespace
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
            let text = stack.last?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if !text.isEmpty { addValue(text) }
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

    /// Whether a packet places its subject somewhere, for containers that can only keep or drop
    /// it whole (a movie's XMP box). A packet that cannot be parsed counts as carrying location:
    /// what it hides cannot be checked.
    public static func carriesLocation(_ packet: some Collection<UInt8>) -> Bool {
        (try? placesPhoto(properties(in: Array(packet)))) ?? true
    }

    private static func parse(_ packet: [UInt8]) throws -> XMLDocument {
        // Some writers NUL-terminate the packet; XML forbids the NULs, and every reader skips them.
        let end = packet.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0
        let data = Data(packet[..<end])
        // swift-corelibs' XMLDocument parses in libxml2's recover mode, so it never reports
        // malformed XML, and it traps when nothing at all parses; XMLParser vets the bytes first.
        let check = WellFormednessCheck()
        let parser = XMLParser(data: data)
        parser.delegate = check
        _ = parser.parse() // unreliable on Linux; WellFormednessCheck judges
        if let problem = check.problem ?? (check.sawElement ? nil : "no root element") {
            throw MetadataFormatError(message: "XMP packet is not well-formed XML (\(problem))")
        }
        let document = try XMLDocument(data: data, options: [.nodePreserveWhitespace, .nodeLoadExternalEntitiesNever])
        // XMP forbids a DTD; refusing one keeps entity tricks out of the edited output.
        if document.children?.contains(where: { $0.kind == .DTDKind }) == true {
            throw MetadataFormatError(message: "XMP packet declares a DTD, which XMP forbids")
        }
        return document
    }

    /// Notes the first parse error: on Linux `XMLParser.parse()` returns true even after errors,
    /// and accepts empty input, so success is judged here instead.
    private final class WellFormednessCheck: NSObject, XMLParserDelegate {
        var problem: String?
        var sawElement = false

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            sawElement = true
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            guard problem == nil else { return }
            problem = "libxml2 error \((parseError as NSError).code) at line \(parser.lineNumber), column \(parser.columnNumber)"
        }
    }

    /// The report name of a location property (`exif:GPSLatitude`), or nil for anything else.
    private static func locationName(of node: XMLNode) -> String? {
        guard let (uri, localName) = qualifiedName(of: node),
              let namespace = locationNamespaces.first(where: { $0.uri == uri && $0.placesPhoto(localName) })
        else { return nil }
        return "\(namespace.prefix):\(localName)"
    }

    /// A prefixed node's namespace URI and local name. FoundationXML on Linux dereferences NULL
    /// when asked for the prefix, local name or URI of a node without a prefix (an old-style
    /// `about="…"` attribute does it), so those are read from the qualified name and unprefixed
    /// nodes — in no namespace, or in a default one XMP does not use for properties — are skipped.
    private static func qualifiedName(of node: XMLNode) -> (uri: String, localName: String)? {
        guard let name = node.name, let colon = name.firstIndex(of: ":"), let uri = node.uri else { return nil }
        return (uri, String(name[name.index(after: colon)...]))
    }

    /// Calls `visit` with each location property at or below `element`, in attribute form
    /// (`exif:GPSLatitude="…"`) or element form, and its owning element. It does not descend
    /// into a property it reported, so `visit` may detach it.
    private static func visitLocationProperties(
        under element: XMLElement, _ visit: (_ property: XMLNode, _ owner: XMLElement, _ name: String) -> Void
    ) {
        for attribute in element.attributes ?? [] {
            if let name = locationName(of: attribute) { visit(attribute, element, name) }
        }
        for case let child as XMLElement in element.children ?? [] {
            if let name = locationName(of: child) {
                visit(child, element, name)
            } else {
                visitLocationProperties(under: child, visit)
            }
        }
    }

    /// Removes an element and the whitespace that indented it, so no blank line is left behind.
    private static func detachWithIndentation(_ element: XMLElement) {
        if let indentation = element.previousSibling, indentation.kind == .text,
           indentation.stringValue?.allSatisfy(\.isWhitespace) == true {
            indentation.detach()
        }
        element.detach()
    }

    private static let syntaxNamespaces: Set<String> = [
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://www.w3.org/XML/1998/namespace",
    ]

    /// The values inside a property: its text, or for structures and arrays every field's text
    /// and attribute-form field value, leaving out RDF syntax such as `rdf:parseType` and `xml:lang`.
    private static func leafValues(of node: XMLNode) -> [String] {
        guard let element = node as? XMLElement else { return [node.stringValue ?? ""] }
        var values: [String] = []
        for attribute in element.attributes ?? [] {
            guard let (uri, _) = qualifiedName(of: attribute), !syntaxNamespaces.contains(uri) else { continue }
            values.append(attribute.stringValue ?? "")
        }
        for child in element.children ?? [] {
            if child.kind == .element {
                values += leafValues(of: child)
            } else if child.kind == .text,
                      let text = child.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
                values.append(text)
            }
        }
        return values
    }

    private static func wrappedPacket(_ root: XMLElement, from document: XMLDocument) -> [UInt8] {
        let instructions = (document.children ?? []).filter { $0.kind == .processingInstruction && $0.name == "xpacket" }
        let begin = instructions.first { $0.stringValue?.hasPrefix("begin") == true }?.stringValue ?? defaultPacketBegin
        let end = instructions.first { $0.stringValue?.hasPrefix("end") == true }?.stringValue ?? defaultPacketEnd
        return Array("<?xpacket \(begin)?>\n\(root.xmlString)\n<?xpacket \(end)?>".utf8)
    }
}
