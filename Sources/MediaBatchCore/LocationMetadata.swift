import MetadataKit

/// Which libvips metadata fields carry location.
///
/// libvips savers rebuild EXIF from the `exif-ifdN-*` fields, so removing every `exif-ifd3-*`
/// field (IFD 3 is GPS) drops the GPS IFD and its pointer. XMP and IPTC are opaque blobs to
/// libvips; until they are edited surgically, a block that carries location goes whole.
enum LocationMetadata {
    static let gpsFieldPrefix = "exif-ifd3-"

    /// IPTC-IIM application record (2) datasets that name a place: 26 location code, 27 location
    /// name, 90 city, 92 sub-location, 95 province/state, 100 country code, 101 country name.
    static let iptcLocationDatasets: Set<UInt8> = [26, 27, 90, 92, 95, 100, 101]

    static func fieldsCarryingLocation(in names: [String], blob: (String) -> [UInt8]?) -> [String] {
        var doomed = names.filter { $0.hasPrefix(gpsFieldPrefix) }
        if names.contains("xmp-data"), let xmp = blob("xmp-data"), xmpCarriesLocation(xmp) {
            doomed.append("xmp-data")
        }
        if names.contains("iptc-data"), let iptc = blob("iptc-data"), iptcCarriesLocation(iptc) {
            doomed.append("iptc-data")
        }
        return doomed
    }

    static func xmpCarriesLocation(_ packet: [UInt8]) -> Bool {
        XMPLocation.isPresent(in: packet)
    }

    /// Walks the IIM records (tag 0x1C, record, dataset, 16-bit length, data) wherever they sit
    /// in the block: libvips hands JPEG IPTC over inside its Photoshop APP13 resource wrapper.
    static func iptcCarriesLocation(_ block: [UInt8]) -> Bool {
        var start = 0
        while start + 5 <= block.count {
            guard block[start] == 0x1C, block[start + 1] == 0x01 || block[start + 1] == 0x02 else {
                start += 1
                continue
            }
            var offset = start
            while offset + 5 <= block.count, block[offset] == 0x1C {
                let record = block[offset + 1], dataset = block[offset + 2]
                let length = Int(block[offset + 3]) << 8 | Int(block[offset + 4])
                guard length < 0x8000 else { break } // extended lengths carry no location text
                if record == 2, iptcLocationDatasets.contains(dataset) { return true }
                offset += 5 + length
            }
            start = max(offset, start + 1)
        }
        return false
    }
}
