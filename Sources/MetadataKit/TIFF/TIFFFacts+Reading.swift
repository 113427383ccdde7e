import Foundation
import MediaFormats

extension TIFFFacts {
    /// Tags that tell a camera's RAW from a TIFF image.
    private static let photometric: UInt16 = 0x0106
    static let subIFDs: UInt16 = 0x014A
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
        var facts = TIFFFacts(isDNG: false, make: nil, holdsRawData: false)
        let walked = walkDirectories(source, including: [photometric, dngVersion, ExifTag.make], budget: 1 << 16) { directory, isIFD0 in
            let values = Dictionary(directory.entries.map { ($0.tag, $0.value) }) { first, _ in first }
            if isIFD0 {
                facts.isDNG = values[dngVersion] != nil
                facts.make = values[ExifTag.make].map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            if let value = values[photometric]?.uint16(at: 0, bigEndian: directory.bigEndian), rawPhotometrics.contains(value) {
                facts.holdsRawData = true
            }
        }
        return walked ? facts : nil
    }

    /// Visits IFD0, the directories chained after it and their SubIFDs (at most
    /// `directoryLimit`, each once), read with the tags `including` names (and SubIFDs); false
    /// when `source` is no classic TIFF.
    static func walkDirectories(_ source: any TIFFByteSource, including wanted: Set<UInt16>, budget: Int,
                                _ visit: (TIFFDirectory, _ isIFD0: Bool) -> Void) -> Bool {
        guard let header = source.bytes(at: 0, count: 8), case .classic(let bigEndian, let ifd0)? = TIFFHeader(header) else { return false }
        var reader = TIFFDirectoryReader(source: source, bigEndian: bigEndian, budget: budget)
        var pending = [ifd0]
        var visited: Set<Int> = []
        while let offset = pending.popLast(), visited.count < directoryLimit, visited.insert(offset).inserted {
            guard let directory = try? reader.directory(.ifd0, at: offset, including: { wanted.contains($0) || $0 == subIFDs }) else { continue }
            visit(directory, offset == ifd0)
            let children = directory.entries.first { $0.tag == subIFDs }.map { directory.numbers($0) } ?? []
            let next = source.bytes(at: offset, count: 2)?.uint16(at: 0, bigEndian: bigEndian).flatMap { count in
                source.bytes(at: offset + 2 + Int(count) * 12, count: 4)?.uint32(at: 0, bigEndian: bigEndian).map(Int.init)
            }
            pending += ([next].compactMap { $0 } + children).filter { $0 != 0 }
        }
        return true
    }
}

extension TIFFDirectory {
    /// An entry's SHORT or LONG values as numbers (none for another type).
    func numbers(_ entry: Entry) -> [Int] {
        switch entry.type {
        case 3: return stride(from: 0, to: entry.value.count - 1, by: 2).compactMap { entry.value.uint16(at: $0, bigEndian: bigEndian).map(Int.init) }
        case 4, 13: return stride(from: 0, to: entry.value.count - 3, by: 4).compactMap { entry.value.uint32(at: $0, bigEndian: bigEndian).map(Int.init) }
        default: return []
        }
    }
}
