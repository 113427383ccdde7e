import MediaFormats

/// The elements of an EBML file (Matroska, WebM), read where they sit: a file of gigabytes is
/// walked by its element headers, clusters skipped by their sizes.
struct MatroskaElements {
    static let segment: UInt32 = 0x1853_8067
    static let tags: UInt32 = 0x1254_C367
    static let tag: UInt32 = 0x7373
    static let simpleTag: UInt32 = 0x67C8
    static let tagName: UInt32 = 0x45A3
    static let cluster: UInt32 = 0x1F43_B675
    /// The Segment's children: where a cluster of unknown size (a live recording's) ends.
    static let segmentChildren: Set<UInt32> = [cluster, tags, 0x114D_9B74, 0x1549_A966, 0x1654_AE6B, 0x1C53_BB6B, 0x1043_A770, 0x1941_A469]
    /// More than any real SimpleTag holds (a name and a short value); its name is read from it.
    static let largestTag = 1 << 20

    struct Element {
        let id: UInt32
        /// Where its ID starts.
        let start: Int
        /// Where its data starts.
        let dataStart: Int
        /// Where it ends; for an element of unknown size, where its parent or the file does.
        let end: Int
        /// A SimpleTag's TagName, once read.
        var name: String?

        var length: Int { end - start }
    }

    let file: RandomAccessFile

    /// The children of `parent` (the file's top level for nil), in order.
    func children(of parent: Element?) throws -> [Element] {
        var found: [Element] = []
        var at = parent?.dataStart ?? 0
        let end = parent?.end ?? file.size
        while at < end {
            var element = try self.element(at: at, within: end)
            if element.end == end, parent?.id == Self.segment, element.id == Self.cluster {
                element = try clusterEnd(element, within: end)
            }
            found.append(element)
            at = element.end
        }
        return found
    }

    /// A SimpleTag with its TagName.
    func named(_ simpleTag: Element) throws -> Element {
        guard simpleTag.length <= Self.largestTag else { throw MetadataFormatError(message: "a SimpleTag of \(simpleTag.length) bytes") }
        var named = simpleTag
        if let name = try children(of: simpleTag).first(where: { $0.id == Self.tagName }) {
            named.name = String(decoding: try file.bytes(at: name.dataStart, count: name.end - name.dataStart), as: UTF8.self)
        }
        return named
    }

    /// The element whose header is at `at`, inside a parent ending at `limit`.
    private func element(at start: Int, within limit: Int) throws -> Element {
        let head = try file.bytes(at: start, count: min(12, limit - start))
        guard let (id, idLength) = EBMLHeader.vint(head, at: 0, keepingMarker: true), idLength <= 4,
              let (size, sizeLength) = EBMLHeader.vint(head, at: idLength) else {
            throw MetadataFormatError(message: "no element header at offset \(start)")
        }
        let dataStart = start + idLength + sizeLength
        // All ones: size unknown, the element runs to its parent's end.
        let unknown = size == (1 << (7 * sizeLength)) - 1
        guard unknown || size <= limit - dataStart else {
            throw MetadataFormatError(message: "element 0x\(String(id, radix: 16)) at offset \(start) runs past its parent")
        }
        return Element(id: UInt32(id), start: start, dataStart: dataStart, end: unknown ? limit : dataStart + size)
    }

    /// A cluster of unknown size ends where the next Segment child starts.
    private func clusterEnd(_ cluster: Element, within limit: Int) throws -> Element {
        var at = cluster.dataStart
        while at < limit {
            let child = try element(at: at, within: limit)
            if Self.segmentChildren.contains(child.id) { break }
            at = child.end
        }
        return Element(id: cluster.id, start: cluster.start, dataStart: cluster.dataStart, end: at)
    }
}
