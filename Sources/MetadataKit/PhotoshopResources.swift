/// IPTC-IIM blocks as JPEG and HEIF carry them.
public enum PhotoshopResources {
    static let photoshopHeader = Array("Photoshop 3.0\0".utf8)

    /// JPEG keeps IPTC in APP13 as Photoshop image resource 0x0404; HEIF keeps the bare IIM
    /// datasets. Wraps bare IIM for a JPEG output; a block already wrapped is returned as is.
    public static func wrapping(iptc block: [UInt8]) -> [UInt8] {
        guard !block.starts(with: photoshopHeader) else { return block }
        let length = UInt32(block.count)
        var resource = photoshopHeader + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
        resource += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        resource += block
        if block.count % 2 == 1 { resource.append(0) }
        return resource
    }
}
