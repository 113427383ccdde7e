import Foundation

/// Small camera RAW files laid out as cameras lay them out, made here (no camera's file is
/// committed): IFD0 an 8×6 RGB thumbnail with the camera's tags and an EXIF directory, the sensor
/// data a 32×24 16-bit colour filter array in a SubIFD (DNG, NEF) or the next directory (CR2,
/// after its `CR` marker). Enough for libraw-less readers: exiftool reads and writes them.
public enum CameraRawFile: String, CaseIterable {
    case dng, nef, cr2

    /// A TIFF value: what an entry holds, or where a directory or blob of the file is.
    private enum Value {
        case short([UInt16]), long([UInt32]), byte([UInt8]), ascii(String), undefined([UInt8])
        /// Numerator, denominator, numerator…
        case rational([UInt32])
        /// The offset of directory N, or of blob N.
        case directory(Int), blob(Int)
        /// The size of blob N.
        case blobSize(Int)
    }

    private typealias Directory = [(tag: UInt16, value: Value)]

    /// The thumbnail's pixels (blob 0) are a flat grey; the sensor data (blob 1) a ramp, so a
    /// copy that moved or changed it shows.
    public static let thumbnail = [UInt8](repeating: 0x80, count: 8 * 6 * 3)
    public static let sensorData: [UInt8] = (0..<(32 * 24)).flatMap { index -> [UInt8] in
        let value = UInt16(index * 80)
        return [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    public var make: String { self == .nef ? "NIKON CORPORATION" : "Canon" }

    /// The file's bytes.
    public var bytes: [UInt8] { bytes(makerNote: nil) }

    /// The file's bytes, its EXIF directory holding `makerNote` where one is given.
    public func bytes(makerNote: [UInt8]?) -> [UInt8] {
        let image: Directory = [(0x0100, .long([32])), (0x0101, .long([24])), (0x0102, .short([16])), (0x0103, .short([1])),
                                (0x0106, .short([32803])), (0x0111, .blob(1)), (0x0115, .short([1])), (0x0116, .long([24])),
                                (0x0117, .blobSize(1)), (0x828D, .short([2, 2])), (0x828E, .byte([0, 1, 1, 2]))]
        var ifd0: Directory = [(0x00FE, .long([1])), (0x0100, .long([8])), (0x0101, .long([6])), (0x0102, .short([8, 8, 8])),
                               (0x0103, .short([1])), (0x0106, .short([2])), (0x010F, .ascii(make)), (0x0110, .ascii("Test \(rawValue.uppercased())")),
                               (0x0111, .blob(0)), (0x0112, .short([1])), (0x0115, .short([3])), (0x0116, .long([6])),
                               (0x0117, .blobSize(0)), (0x0132, .ascii("2024:05:01 10:11:12")), (0x8769, .directory(1))]
        if self != .cr2 { ifd0.append((0x014A, .directory(2))) }
        if self == .dng { ifd0 += [(0xC612, .byte([1, 4, 0, 0])), (0xC614, .ascii("Test DNG"))] }
        var exif: Directory = [(0x9003, .ascii("2024:05:01 10:11:12")), (0x829A, .rational([1, 250]))]
        if let makerNote { exif.append((0x927C, .undefined(makerNote))) }
        // CR2 chains its raw directory after IFD0; the others point to it from IFD0.
        var (file, offsets) = Self.layout([ifd0, exif, image], chained: self == .cr2 ? [0: 2] : [:], blobs: [Self.thumbnail, Self.sensorData],
                                          headerSize: self == .cr2 ? 16 : 8)
        // CR2's header: `CR`, version 2.0, then where its raw directory is.
        if self == .cr2 { file.replaceSubrange(8..<16, with: Array("CR".utf8) + [2, 0] + Self.le32(offsets[2])) }
        return file
    }

    /// A Canon CR3 laid out as the camera lays it out, in small: `ftyp` of brand `crx `, Canon's
    /// `uuid` box in `moov` with IFD0 (CMT1), the EXIF directory (CMT2) and, `withLocation`, the
    /// GPS directory (CMT4), each a TIFF structure; then an XMP `uuid` box (with a city when
    /// `withLocation`) and the sensor data in `mdat`.
    public static func cr3(withLocation: Bool) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = 8 + payload.count
            return [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + payload
        }
        func tiff(_ directory: Directory) -> [UInt8] { layout([directory], chained: [:], blobs: [], headerSize: 8).file }
        let canon: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
        let xmpID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]
        var cmt = box("CMT1", tiff([(0x010F, .ascii("Canon")), (0x0110, .ascii("Test CR3")), (0x0132, .ascii("2024:05:01 10:11:12"))]))
            + box("CMT2", tiff([(0x829A, .rational([1, 250])), (0x9003, .ascii("2024:05:01 10:11:12"))]))
        if withLocation {
            cmt += box("CMT4", tiff([(0x0000, .byte([2, 3, 0, 0])), (0x0001, .ascii("N")), (0x0002, .rational([49, 1, 10, 1, 48, 1])),
                                     (0x0003, .ascii("E")), (0x0004, .rational([1, 1, 39, 1, 0, 1]))]))
        }
        let city = withLocation ? #" photoshop:City="Caen""# : ""
        let xmp = #"<?xpacket begin="\#u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3""# + city
            + #"/></rdf:RDF></x:xmpmeta>"# + String(repeating: " ", count: 200) + #"<?xpacket end="w"?>"#
        return box("ftyp", Array("crx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8)) + box("moov", box("uuid", canon + cmt))
            + box("uuid", xmpID + Array(xmp.utf8)) + box("mdat", sensorData)
    }

    /// Names a camera gives them, each kind once, and a CR3.
    public static let cameraNames: [(name: String, file: CameraRawFile?)] = [
        ("IMG_0001.DNG", .dng), ("DSC_0002.NEF", .nef), ("IMG_0003.CR2", .cr2), ("IMG_0004.CR3", nil),
    ]

    /// Writes `cameraNames` into `folder`, `withLocation` with a position: the TIFF-based ones in
    /// their EXIF GPS directory and XMP (written by exiftool, as a geotagging tool would), the CR3
    /// in its own GPS box and XMP.
    public static func writeCameraFolder(_ folder: URL, withLocation: Bool) throws {
        for (name, file) in cameraNames {
            let path = folder.appendingPathComponent(name).path
            guard let file else {
                try Data(cr3(withLocation: withLocation)).write(to: URL(fileURLWithPath: path))
                continue
            }
            try file.write(to: path)
            guard withLocation else { continue }
            let tagged = try runProcess("exiftool", ["-q", "-overwrite_original", "-GPSLatitude=49.18", "-GPSLatitudeRef=N",
                                                     "-GPSLongitude=1.65", "-GPSLongitudeRef=E", "-XMP-photoshop:City=Caen",
                                                     "-XMP-xmp:Rating=3", path])
            precondition(tagged.exitCode == 0, "\(name): \(tagged.stderr)")
        }
    }

    /// Writes the file; returns its path.
    @discardableResult
    public func write(to path: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Directories one after another after the header, each with its values after it, then the blobs.
    private static func layout(_ directories: [Directory], chained: [Int: Int], blobs: [[UInt8]],
                               headerSize: Int) -> (file: [UInt8], directoryOffsets: [Int]) {
        func size(_ value: Value) -> Int {
            switch value {
            case .short(let values): return values.count * 2
            case .long(let values), .rational(let values): return values.count * 4
            case .byte(let values), .undefined(let values): return values.count
            case .ascii(let text): return text.utf8.count + 1
            case .directory, .blob, .blobSize: return 4
            }
        }
        let sizes = directories.map { directory in
            2 + directory.count * 12 + 4 + directory.map { size($0.value) > 4 ? (size($0.value) + 1) & ~1 : 0 }.reduce(0, +)
        }
        let directoryOffsets = sizes.indices.map { index in headerSize + sizes[..<index].reduce(0, +) }
        var blobOffsets: [Int] = []
        var next = headerSize + sizes.reduce(0, +)
        for blob in blobs { blobOffsets.append(next); next += blob.count }
        var file = Array("II*".utf8) + [0] + le32(headerSize) + [UInt8](repeating: 0, count: headerSize - 8)
        for (index, directory) in directories.enumerated() {
            var table = le16(directory.count), values: [UInt8] = []
            let valuesStart = directoryOffsets[index] + 2 + directory.count * 12 + 4
            for (tag, value) in directory.sorted(by: { $0.tag < $1.tag }) {
                let (type, count, bytes): (Int, Int, [UInt8]) = {
                    switch value {
                    case .short(let values): return (3, values.count, values.flatMap { le16(Int($0)) })
                    case .long(let values): return (4, values.count, values.flatMap { le32(Int($0)) })
                    case .rational(let values): return (5, values.count / 2, values.flatMap { le32(Int($0)) })
                    case .byte(let values): return (1, values.count, values)
                    case .undefined(let values): return (7, values.count, values)
                    case .ascii(let text): return (2, text.utf8.count + 1, Array(text.utf8) + [0])
                    case .directory(let target): return (4, 1, le32(directoryOffsets[target]))
                    case .blob(let target): return (4, 1, le32(blobOffsets[target]))
                    case .blobSize(let target): return (4, 1, le32(blobs[target].count))
                    }
                }()
                table += le16(Int(tag)) + le16(type) + le32(count)
                if bytes.count <= 4 {
                    table += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    table += le32(valuesStart + values.count)
                    values += bytes + (bytes.count % 2 == 1 ? [0] : [])
                }
            }
            table += le32(chained[index].map { directoryOffsets[$0] } ?? 0)
            file += table + values
        }
        return (blobs.reduce(file, +), directoryOffsets)
    }

    /// A Nikon maker note as Nikon Capture NX leaves it: "Nikon\0\2\u{10}\0\0", a little-endian
    /// TIFF header its offsets count from, MakerNoteVersion and NikonCaptureData (0x0E01): a
    /// record block (`0x7A86A940`, 14 bytes, its size) holding an UnsharpMask record and an IPTC
    /// record of `iim`, zero-padded as Capture pads it. exiftool reads the IIM as `IPTC2`.
    public static func nikonCaptureNote(iim: [UInt8]) -> [UInt8] {
        func record(_ tag: Int, _ rest: String, _ data: [UInt8]) -> [UInt8] { le32(tag) + hex(rest) + le32(data.count + 4) + data }
        let records = record(0x76A4_3200, "a217d411a90a00aa00b1c1b70100", [1])
            + record(0x9EF5_F6E0, "8d15d611bff700d0b79241460100", iim + [UInt8](repeating: 0, count: 32))
        let block = le32(0x7A86_A940) + hex("1be9d211a90a00aa00b1c1b70200") + le32(records.count + 4) + records
        let directory: Directory = [(0x0001, .undefined(Array("0210".utf8))), (0x0E01, .undefined(block))]
        return Array("Nikon".utf8) + [0, 2, 0x10, 0, 0] + layout([directory], chained: [:], blobs: [], headerSize: 8).file
    }

    private static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16) }
}
