import Foundation

/// Google's Ultra HDR gain map XMP (`hdrgm`, spec v1.0/v1.1): on the gain map image, every value
/// as an attribute or element of an `rdf:Description`, a channel list as an `rdf:Seq`; on the
/// primary image, only `hdrgm:Version` beside the GContainer directory.
public enum HDRGainMapXMP {
    public static let namespace = "http://ns.adobe.com/hdr-gain-map/1.0/"
    /// The only version the spec defines.
    public static let version = "1.0"
    static let containerNamespace = "http://ns.google.com/photos/1.0/container/"
    static let itemNamespace = "http://ns.google.com/photos/1.0/container/item/"

    /// Whether `packet` mentions the namespace at all: cheap, for telling gain maps apart.
    static func mentions(_ packet: [UInt8]) -> Bool {
        packet.firstOffset(of: Array(namespace.utf8)) != nil
    }
}

extension GainMapMetadata {
    /// The metadata of a gain map image's `hdrgm` XMP. Absent optional values take the spec's
    /// defaults (GainMapMin 0, Gamma 1, OffsetSDR/HDR 1/64, HDRCapacityMin 0, BaseRenditionIsHDR
    /// False); `Version`, `GainMapMax` and `HDRCapacityMax` are required.
    ///
    /// - Throws: `MetadataFormatError` when the packet is not XML, lacks a required value, holds a
    ///   value that is not a number (or boolean), names another version, or fails `validated()`.
    public init(hdrgmXMP packet: [UInt8]) throws {
        var values: [String: [String]] = [:]
        for property in try XMPPacket.properties(in: packet) where property.namespace == HDRGainMapXMP.namespace {
            if values[property.name] == nil { values[property.name] = property.values }
        }
        guard let version = values["Version"]?.first else { throw Self.invalid("no hdrgm:Version") }
        guard version == HDRGainMapXMP.version else { throw Self.invalid("unsupported hdrgm:Version \(version)") }
        func numbers(_ name: String, default fallback: Double?) throws -> [Double] {
            guard let texts = values[name], !texts.isEmpty else {
                guard let fallback else { throw Self.invalid("no hdrgm:\(name)") }
                return [fallback]
            }
            return try texts.map { text in
                guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else { throw Self.invalid("hdrgm:\(name) \"\(text)\" is not a number") }
                return number
            }
        }
        let baseIsHDR: Bool
        switch values["BaseRenditionIsHDR"]?.first {
        case nil, "False": baseIsHDR = false
        case "True": baseIsHDR = true
        case let other?: throw Self.invalid("hdrgm:BaseRenditionIsHDR \"\(other)\" is neither True nor False")
        }
        self.init(gainMapMin: try numbers("GainMapMin", default: 0), gainMapMax: try numbers("GainMapMax", default: nil),
                  gamma: try numbers("Gamma", default: 1), offsetSDR: try numbers("OffsetSDR", default: Self.defaultOffset),
                  offsetHDR: try numbers("OffsetHDR", default: Self.defaultOffset),
                  hdrCapacityMin: try numbers("HDRCapacityMin", default: 0)[0], hdrCapacityMax: try numbers("HDRCapacityMax", default: nil)[0],
                  baseRenditionIsHDR: baseIsHDR)
        _ = try validated()
    }

    /// A complete XMP packet for the gain map image: `hdrgm:Version="1.0"` and every value, a
    /// list of three as an `rdf:Seq` element, a single value as an attribute.
    public func hdrgmXMP() -> [UInt8] {
        var attributes = [("Version", HDRGainMapXMP.version)]
        var elements: [String] = []
        let lists = [("GainMapMin", gainMapMin), ("GainMapMax", gainMapMax), ("Gamma", gamma),
                     ("OffsetSDR", offsetSDR), ("OffsetHDR", offsetHDR)]
        for (name, list) in lists {
            if list.count == 1 || list.allSatisfy({ $0 == list.first }) {
                attributes.append((name, Self.text(list.first ?? 0)))
            } else {
                let items = list.map { "      <rdf:li>\(Self.text($0))</rdf:li>\n" }.joined()
                elements.append("    <hdrgm:\(name)>\n     <rdf:Seq>\n\(items)     </rdf:Seq>\n    </hdrgm:\(name)>\n")
            }
        }
        attributes += [("HDRCapacityMin", Self.text(hdrCapacityMin)), ("HDRCapacityMax", Self.text(hdrCapacityMax)),
                       ("BaseRenditionIsHDR", baseRenditionIsHDR ? "True" : "False")]
        let attributeText = attributes.map { "\n    hdrgm:\($0.0)=\"\($0.1)\"" }.joined()
        let description = "  <rdf:Description rdf:about=\"\"\n    xmlns:hdrgm=\"\(HDRGainMapXMP.namespace)\"\(attributeText)"
            + (elements.isEmpty ? "/>\n" : ">\n" + elements.joined() + "  </rdf:Description>\n")
        return XMPWriting.packet(descriptions: description)
    }

    /// A number as XMP writes it: the shortest text that reads back as the same double.
    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}

/// The wrapper around the `rdf:Description`s this module writes from scratch.
enum XMPWriting {
    static func packet(descriptions: String) -> [UInt8] {
        Array(("<?xpacket \(XMPPacket.defaultPacketBegin)?>\n<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n"
            + " <rdf:RDF xmlns:rdf=\"\(XMPPacket.rdfNamespace)\">\n" + descriptions
            + " </rdf:RDF>\n</x:xmpmeta>\n<?xpacket \(XMPPacket.defaultPacketEnd)?>").utf8)
    }
}
