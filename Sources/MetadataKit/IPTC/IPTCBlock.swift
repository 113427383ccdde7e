import Foundation

/// Reads and removes location in an IPTC-IIM block: either bare IIM datasets, or the Photoshop
/// APP13 payload libvips hands JPEG IPTC over as (`Photoshop 3.0\0`, then image resources, IIM
/// being resource 0x0404). Everything kept is copied byte-exact.
public enum IPTCBlock {
    /// Datasets that name a place (exiftool's Location group), by record and number, with
    /// exiftool's tag names: the application record's place names and the envelope's Destination.
    static let locationDatasets: [UInt16: String] = [
        0x0105: "Destination",
        0x021A: "ContentLocationCode", 0x021B: "ContentLocationName", 0x025A: "City", 0x025C: "Sub-location",
        0x025F: "Province-State", 0x0264: "Country-PrimaryLocationCode", 0x0265: "Country-PrimaryLocationName",
    ]
    static let datasetTag: UInt8 = 0x1C

    static let photoshopHeader = Array("Photoshop 3.0\0".utf8)
    /// Image-resource signatures; exiftool accepts the same set.
    static let resourceSignatures: Set<String> = ["8BIM", "PHUT", "AgHg", "DCSR", "MeSa"]
    static let iimResourceID: UInt16 = 0x0404
    /// Photoshop's MD5 of the IIM data, which tells it whether IPTC changed since XMP was synced.
    /// It is dropped, not recomputed: without a digest readers reconcile IIM with XMP (both lose
    /// location alike here), whereas a stale one makes exiftool warn; and no MD5 code is needed.
    static let iimDigestResourceID: UInt16 = 0x0425

    struct Dataset {
        let record: UInt8
        let number: UInt8
        let bytes: Range<Int>
        let data: Range<Int>

        var locationName: String? {
            IPTCBlock.locationDatasets[UInt16(record) << 8 | UInt16(number)]
        }
    }

    struct Resource {
        let id: UInt16
        let bytes: Range<Int>
        let data: Range<Int>
    }

    /// The block without location datasets, or `nil` when it had none. Other resources and
    /// datasets are kept byte-exact; the IIM resource's size is rewritten and its digest dropped.
    ///
    /// - Throws: `MetadataFormatError` when a length runs past the block or unknown bytes follow
    ///   the last dataset or resource; the caller then drops the whole block.
    /// JPEG keeps IPTC in APP13 as Photoshop image resource 0x0404; HEIF keeps bare IIM.
    /// Wraps bare IIM for a JPEG output; a block already wrapped is returned as is.
    public static func photoshopResources(wrapping block: [UInt8]) -> [UInt8] {
        guard !block.starts(with: photoshopHeader) else { return block }
        var wrapped = photoshopHeader + Array("8BIM".utf8) + [UInt8(iimResourceID >> 8), UInt8(iimResourceID & 0xFF), 0, 0]
        wrapped += [0, 0, 0, 0]
        wrapped.setUInt32(UInt32(block.count), at: wrapped.count - 4)
        wrapped += block
        if block.count % 2 == 1 { wrapped.append(0) }
        return wrapped
    }

    /// Bare IIM without its location at its own length, for a copy that cannot move (a TIFF tag's
    /// value, a maker note's record): the datasets kept move up and zeros fill the rest (IIM
    /// readers stop at the padding); nil when nothing places the photo.
    public static func removingLocationInPlace(from iim: [UInt8]) throws -> MetadataRemoval? {
        guard let edited = try removingLocation(from: iim) else { return nil }
        return MetadataRemoval(bytes: edited.bytes + [UInt8](repeating: 0, count: max(0, iim.count - edited.bytes.count)), removed: edited.removed)
    }

    public static func removingLocation(from block: [UInt8]) throws -> MetadataRemoval? {
        guard let resourcesStart = try resourcesStart(in: block) else {
            let filtered = try withoutLocation(block[...])
            return filtered.removed.isEmpty ? nil : MetadataRemoval(bytes: filtered.bytes, removed: filtered.removed.uniqued())
        }
        let (resources, tail) = try self.resources(in: block, from: resourcesStart)
        var filteredIIM: [Int: [UInt8]] = [:]
        var removed: [String] = []
        for (index, resource) in resources.enumerated() where resource.id == iimResourceID {
            let filtered = try withoutLocation(block[resource.data])
            if !filtered.removed.isEmpty {
                filteredIIM[index] = filtered.bytes
                removed += filtered.removed
            }
        }
        guard !removed.isEmpty else { return nil }

        var output = Array(block[..<resourcesStart])
        for (index, resource) in resources.enumerated() where resource.id != iimDigestResourceID {
            guard let data = filteredIIM[index] else {
                output += block[resource.bytes]
                continue
            }
            // Signature, id and name stay; the size is new, and data is padded to even length.
            output += block[resource.bytes.lowerBound..<resource.data.lowerBound - 4]
            output += [0, 0, 0, 0]
            output.setUInt32(UInt32(data.count), at: output.count - 4)
            output += data
            if data.count % 2 == 1 { output.append(0) }
        }
        output += block[tail]
        return MetadataRemoval(bytes: output, removed: removed.uniqued())
    }

    /// Resources that copy what other blocks carry, or show the input: the IIM digest (it
    /// describes the IIM as it was), EXIF (0x0422) and XMP (0x0424) copies, which would carry
    /// location past every edit of the real blocks, and thumbnails (0x0409, 0x040C) of the
    /// input's framing.
    static let copiesOfOtherBlocks: Set<UInt16> = [iimDigestResourceID, 0x0422, 0x0424, 0x0409, 0x040C]

    /// The IIM copies and the other resources of a Photoshop image-resource block, with or
    /// without its `Photoshop 3.0` header; of other resources sharing an id, the first; none of
    /// `copiesOfOtherBlocks`.
    public static func splitting(photoshopResources block: [UInt8]) throws -> (iim: [[UInt8]], others: [UInt8]?) {
        let start = block.starts(with: photoshopHeader) ? photoshopHeader.count : 0
        let (resources, _) = try resources(in: block, from: start)
        var iim: [[UInt8]] = [], others: [UInt8] = [], seen: Set<UInt16> = []
        for resource in resources where !copiesOfOtherBlocks.contains(resource.id) {
            if resource.id == iimResourceID {
                iim.append(Array(block[resource.data]))
            } else if seen.insert(resource.id).inserted { // a second copy's resources repeat the first's
                others += block[resource.bytes]
            }
        }
        return (iim, others.isEmpty ? nil : others)
    }

    /// One IIM block holding every dataset of `copies`: the first copy's datasets, then those of
    /// later copies not already there byte for byte, ordered by record as IIM requires. Nil
    /// when the copies hold no dataset.
    public static func merging(_ copies: [[UInt8]]) throws -> [UInt8]? {
        var merged: [(record: UInt8, bytes: [UInt8])] = []
        var seen: Set<[UInt8]> = []
        for (index, copy) in copies.enumerated() {
            for dataset in try datasets(in: copy[...]).datasets {
                let bytes = Array(copy[dataset.bytes])
                guard index == 0 || !seen.contains(bytes) else { continue }
                seen.insert(bytes)
                merged.append((dataset.record, bytes))
            }
        }
        guard !merged.isEmpty else { return nil }
        return merged.enumerated().sorted { ($0.element.record, $0.offset) < ($1.element.record, $1.offset) }
            .flatMap(\.element.bytes)
    }

    /// Image resources (no header) carrying `others` as they are, then `iim` as resource 0x0404.
    public static func photoshopResources(iim: [UInt8]?, others: [UInt8]?) -> [UInt8]? {
        var resources = others ?? []
        if let iim {
            resources += Array("8BIM".utf8) + [UInt8(iimResourceID >> 8), UInt8(iimResourceID & 0xFF), 0, 0, 0, 0, 0, 0]
            resources.setUInt32(UInt32(iim.count), at: resources.count - 4)
            resources += iim
            if iim.count % 2 == 1 { resources.append(0) }
        }
        return resources.isEmpty ? nil : resources
    }

    /// Bare IIM with only the datasets in `kept` (record << 8 | number) and, when any of them
    /// is there, the records' version and character-set datasets that frame them; nil when
    /// nothing else was there. Empty bytes when nothing of `kept` was there.
    public static func keepingOnly(_ kept: Set<UInt16>, from iim: [UInt8]) throws -> MetadataRemoval? {
        let framing: Set<UInt16> = [0x0100, 0x015A, 0x0200] // record versions and the coded character set
        let datasets = try datasets(in: iim[...]).datasets
        let id = { (dataset: Dataset) in UInt16(dataset.record) << 8 | UInt16(dataset.number) }
        let keeps = datasets.contains { kept.contains(id($0)) }
        let (stay, go) = datasets.reduce(into: ([Dataset](), [Dataset]())) { split, dataset in
            if kept.contains(id(dataset)) || keeps && framing.contains(id(dataset)) { split.0.append(dataset) } else { split.1.append(dataset) }
        }
        guard !go.isEmpty else { return nil }
        let removed = go.map { dataset in
            dataset.locationName.map { "IPTC:\($0)" } ?? "IPTC \(dataset.record):\(String(format: "%02d", dataset.number))"
        }
        return MetadataRemoval(bytes: stay.flatMap { Array(iim[$0.bytes]) }, removed: removed.uniqued())
    }

    /// The location datasets present, e.g. `["IPTC:City": "Mainz"]`; repeated datasets are
    /// joined with "; ".
    public static func locationValues(in block: [UInt8]) throws -> [String: String] {
        var values: [String: String] = [:]
        for iim in try iimSections(of: block) {
            for dataset in try datasets(in: iim).datasets {
                guard let name = dataset.locationName else { continue }
                let key = "IPTC:\(name)", text = decodedText(block[dataset.data])
                values[key] = values[key].map { "\($0); \(text)" } ?? text
            }
        }
        return values
    }

    /// The text of the first dataset `record`:`number` (2:120 is Caption-Abstract), if any.
    public static func text(ofDataset record: UInt8, _ number: UInt8, in block: [UInt8]) throws -> String? {
        for iim in try iimSections(of: block) {
            if let dataset = try datasets(in: iim).datasets.first(where: { $0.record == record && $0.number == number }) {
                return decodedText(block[dataset.data])
            }
        }
        return nil
    }

    /// The block's IIM: itself, or each IIM resource of its Photoshop image resources.
    private static func iimSections(of block: [UInt8]) throws -> [ArraySlice<UInt8>] {
        guard let resourcesStart = try resourcesStart(in: block) else { return [block[...]] }
        return try resources(in: block, from: resourcesStart).resources.filter { $0.id == iimResourceID }.map { block[$0.data] }
    }

    /// Where image resources start, or nil when the block is bare IIM.
    private static func resourcesStart(in block: [UInt8]) throws -> Int? {
        // Zero padding alone is IIM without datasets: what removing every dataset leaves.
        if block.first == datasetTag || block.allSatisfy({ $0 == 0 }) { return nil }
        if block.starts(with: photoshopHeader) { return photoshopHeader.count }
        if let signature = block.fourCC(at: 0), resourceSignatures.contains(signature) { return 0 }
        throw MetadataFormatError(message: "IPTC block is neither IIM nor Photoshop image resources")
    }

    /// The image resources from `start`, and the zero padding some writers leave after them.
    static func resources(in block: [UInt8], from start: Int) throws -> (resources: [Resource], tail: Range<Int>) {
        var resources: [Resource] = []
        var offset = start
        while let signature = block.fourCC(at: offset), resourceSignatures.contains(signature) {
            guard let id = block.uint16(at: offset + 4), block.indices.contains(offset + 6) else {
                throw MetadataFormatError(message: "image resource at offset \(offset) is truncated")
            }
            // The name is a Pascal string (length byte, then bytes) padded to an even total.
            let nameFieldLength = (1 + Int(block[offset + 6]) + 1) & ~1
            let sizeOffset = offset + 6 + nameFieldLength
            guard let size = block.uint32(at: sizeOffset).map(Int.init), size <= block.count - (sizeOffset + 4) else {
                throw MetadataFormatError(message: "image resource 0x\(String(id, radix: 16)) at offset \(offset) runs past the block")
            }
            let data = sizeOffset + 4..<sizeOffset + 4 + size
            // Data is padded to even length; a final pad byte left off at the very end is forgiven.
            let end = min(data.upperBound + size % 2, block.count)
            resources.append(Resource(id: id, bytes: offset..<end, data: data))
            offset = end
        }
        guard block[offset...].allSatisfy({ $0 == 0 }) else {
            throw MetadataFormatError(message: "unrecognised bytes after image resources at offset \(offset)")
        }
        return (resources, offset..<block.count)
    }

    /// The IIM datasets in `iim`, and the zero padding some writers leave after them.
    static func datasets(in iim: ArraySlice<UInt8>) throws -> (datasets: [Dataset], tail: Range<Int>) {
        var datasets: [Dataset] = []
        var offset = iim.startIndex
        while offset < iim.endIndex, iim[offset] == datasetTag {
            guard let lengthField = iim.uint16(at: offset + 3) else {
                throw MetadataFormatError(message: "IIM dataset at offset \(offset) is truncated")
            }
            var dataStart = offset + 5
            var length = Int(lengthField)
            if lengthField & 0x8000 != 0 {
                // Extended dataset: the low 15 bits count the big-endian length bytes that follow.
                let lengthByteCount = Int(lengthField & 0x7FFF)
                guard (1...4).contains(lengthByteCount), lengthByteCount <= iim.endIndex - dataStart else {
                    throw MetadataFormatError(message: "IIM dataset at offset \(offset) has a bad extended length")
                }
                length = iim[dataStart..<dataStart + lengthByteCount].reduce(0) { $0 << 8 | Int($1) }
                dataStart += lengthByteCount
            }
            guard length <= iim.endIndex - dataStart else {
                throw MetadataFormatError(message: "IIM dataset at offset \(offset) runs past the block")
            }
            datasets.append(Dataset(record: iim[offset + 1], number: iim[offset + 2],
                                    bytes: offset..<dataStart + length, data: dataStart..<dataStart + length))
            offset = dataStart + length
        }
        guard iim[offset...].allSatisfy({ $0 == 0 }) else {
            throw MetadataFormatError(message: "unrecognised bytes after IIM datasets at offset \(offset)")
        }
        return (datasets, offset..<iim.endIndex)
    }

    /// `iim` without its location datasets; the rest, zero padding included, byte-exact.
    private static func withoutLocation(_ iim: ArraySlice<UInt8>) throws -> (bytes: [UInt8], removed: [String]) {
        let (datasets, tail) = try datasets(in: iim)
        var kept: [UInt8] = []
        var removed: [String] = []
        for dataset in datasets {
            if let name = dataset.locationName {
                removed.append("IPTC:\(name)")
            } else {
                kept += iim[dataset.bytes]
            }
        }
        return (kept + iim[tail], removed)
    }

    /// IIM text is UTF-8 when dataset 1:90 says so and usually otherwise; Latin-1 decodes the rest.
    private static func decodedText(_ bytes: ArraySlice<UInt8>) -> String {
        String(bytes: bytes, encoding: .utf8) ?? String(bytes: bytes, encoding: .isoLatin1) ?? ""
    }
}
