import Foundation
import MetadataKit

/// The XMP and Photoshop (IPTC) APP segments of a JPEG, read and replaced by walking markers up
/// to the scan; enough to feed the filters real blocks and hand exiftool the edited file.
struct JPEGMetadataSegments {
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let photoshopSignature = Array("Photoshop 3.0\0".utf8)

    private(set) var bytes: [UInt8]

    init(contentsOf path: String) throws {
        bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The XMP packet, without its APP1 signature.
    var xmpPacket: [UInt8]? { payload(marker: 0xE1, signature: Self.xmpSignature).map { Array($0.dropFirst(Self.xmpSignature.count)) } }

    /// The whole APP13 payload, `Photoshop 3.0\0` included, as libvips hands it over.
    var photoshopBlock: [UInt8]? { payload(marker: 0xED, signature: Self.photoshopSignature).map(Array.init) }

    mutating func replaceXMPPacket(with packet: [UInt8]) {
        replacePayload(marker: 0xE1, signature: Self.xmpSignature, with: Self.xmpSignature + packet)
    }

    mutating func replacePhotoshopBlock(with block: [UInt8]) {
        replacePayload(marker: 0xED, signature: Self.photoshopSignature, with: block)
    }

    func write(to url: URL) throws {
        try Data(bytes).write(to: url)
    }

    private var segments: [JPEGSegments.Segment] { JPEGSegments.segments(of: bytes) ?? [] }

    private func payload(marker: UInt8, signature: [UInt8]) -> ArraySlice<UInt8>? {
        segments.first { $0.marker == marker && bytes[$0.payload].starts(with: signature) }.map { bytes[$0.payload] }
    }

    private mutating func replacePayload(marker: UInt8, signature: [UInt8], with payload: [UInt8]) {
        guard let segment = segments.first(where: { $0.marker == marker && bytes[$0.payload].starts(with: signature) })
        else { preconditionFailure("no such segment to replace") }
        let length = payload.count + 2
        precondition(length <= 0xFFFF, "payload too large for one JPEG segment")
        bytes.replaceSubrange(segment.payload.lowerBound - 2..<segment.payload.upperBound,
                              with: [UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
    }
}
