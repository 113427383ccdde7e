import Foundation
import MediaFormats

extension TIFFFacts {
    /// Tags that tell a camera's RAW from a TIFF image.
    private static let photometric: UInt16 = 0x0106
    private static let subIFDs: UInt16 = 0x014A
    private static let dngVersion: UInt16 = 0xC612
    /// Colour filter array and linear raw: sensor data.
    private static let rawPhotometrics: Set<UInt16> = [32803, 34892]
    /// A RAW's directories are a handful (IFD0, a thumbnail, previews, the raw); a damaged file
    /// may chain or point to thousands.
    private static let directoryLimit = 16

    /// What the classic TIFF at `path` holds in IFD0, the directories after it and their
    /// SubIFDs; nil when it is no classic TIFF.
    public static func read(path: String) -> TIFFFacts? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        return read(TIFFFileSource(handle: handle, size: Int(size)))
    }

    static func read(_ source: any TIFFByteSource) -> TIFFFacts? {
        guard let header = source.bytes(at: 0, count: 8), case .classic(let bigEndian, let ifd0)? = TIFFHeader(header) else { return nil }
        var reader = TIFFDirectoryReader(source: source, bigEndian: bigEndian, budget: 1 << 16)
        let wanted: Set<UInt16> = [photometric, subIFDs, dngVersion, ExifTag.make]
        var facts = TIFFFacts(isDNG: false, make: nil, holdsRawData: false)
        var pending = [ifd0]
        var visited: Set<Int> = []
        while let offset = pending.popLast(), visited.count < directoryLimit, visited.insert(offset).inserted {
            guard let directory = try? reader.directory(.ifd0, at: offset, including: wanted.contains) else { continue }
            let values = Dictionary(directory.entries.map { ($0.tag, $0.value) }) { first, _ in first }
            if offset == ifd0 {
                facts.isDNG = values[dngVersion] != nil
                facts.make = values[ExifTag.make].map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            if let value = values[photometric]?.uint16(at: 0, bigEndian: bigEndian), rawPhotometrics.contains(value) {
                facts.holdsRawData = true
            }
            let children = values[subIFDs].map { value in
                stride(from: 0, to: value.count - 3, by: 4).compactMap { value.uint32(at: $0, bigEndian: bigEndian).map(Int.init) }
            } ?? []
            let next = source.bytes(at: offset, count: 2)?.uint16(at: 0, bigEndian: bigEndian).flatMap { count in
                source.bytes(at: offset + 2 + Int(count) * 12, count: 4)?.uint32(at: 0, bigEndian: bigEndian).map(Int.init)
            }
            pending += ([next].compactMap { $0 } + children).filter { $0 != 0 }
        }
        return facts
    }
}
