/// Google's motion photos (and its older micro videos): a JPEG with an MP4 appended, which its
/// XMP measures from the end of the file — `GCamera:MicroVideoOffset`, or the `Item:Length` of
/// an item of `Container:Directory`.
enum GoogleMotionPhoto {
    static let camera = "http://ns.google.com/photos/1.0/camera/"
    static let containerItem = "http://ns.google.com/photos/1.0/container/item/"

    /// The lengths `xmp` gives the appended video, each from the end of the file; empty for a
    /// packet that names no video (unparsed: it must say "MotionPhoto" or "MicroVideo").
    static func videoLengths(in xmp: [UInt8]) -> [Int] {
        guard xmp.firstOffset(of: Array("MotionPhoto".utf8)) != nil || xmp.firstOffset(of: Array("MicroVideo".utf8)) != nil,
              let properties = try? XMPPacket.properties(in: xmp) else { return [] }
        return properties.filter { ($0.namespace, $0.name) == (camera, "MicroVideoOffset") || ($0.namespace, $0.name) == (containerItem, "Length") }
            .flatMap(\.values).compactMap { Int($0) }.filter { $0 > 0 }
    }

    /// Where in `file` the video is: the last of `lengths` bytes that start with an `ftyp` box.
    static func video(in file: [UInt8], lengths: [Int]) -> Range<Int>? {
        lengths.first { $0 >= 16 && $0 <= file.count && file.fourCC(at: file.count - $0 + 4) == "ftyp" }
            .map { file.count - $0..<file.count }
    }
}
