/// Every copy of each kind of block a container holds, checked as it is found and merged into
/// the one `MetadataBlocks` the stages edit. A copy that does not parse is named in
/// `unreadable` and left out: what it hides cannot be edited, so it must not be written.
struct MetadataCopies {
    /// EXIF and XMP copies with the container's rank for their place (lower: the standard
    /// place) and the order they were found in.
    private var exif: [(rank: Int, order: Int, data: ExifData)] = []
    private var xmp: [(rank: Int, order: Int, packet: [UInt8])] = []
    private var iim: [[UInt8]] = []
    /// Photoshop resources other than IIM and its digest, one block per copy.
    private var photoshop: [[UInt8]] = []
    private var unreadable: [String] = []
    private var found = 0

    /// An EXIF block (a TIFF structure, with or without `Exif\0\0` before it) found at `place`.
    mutating func addExif(_ bytes: [UInt8], rank: Int, place: String) {
        found += 1
        guard let data = ExifData(bytes) else { return addUnreadable("EXIF", place: place, reason: "no TIFF header") }
        guard data.hasReadableFirstDirectory else { return addUnreadable("EXIF", place: place, reason: "its first directory is not there") }
        exif.append((rank, found, data))
    }

    /// A packet whose bytes may name a place is parsed: one that is not well-formed XML then
    /// goes (what it hides cannot be checked); one that cannot name a place is kept unparsed.
    mutating func addXMP(_ packet: [UInt8], rank: Int, place: String) {
        found += 1
        do {
            if XMPPacket.mayPlacePhoto(packet) { _ = try XMPPacket.properties(in: packet) }
            xmp.append((rank, found, packet))
        } catch {
            addUnreadable("XMP", place: place, reason: "\(error)")
        }
    }

    /// Bare IPTC-IIM datasets, or Photoshop image resources (with or without their
    /// `Photoshop 3.0` header) holding IIM as resource 0x0404 among others.
    mutating func addIPTC(_ block: [UInt8], place: String) {
        do {
            if block.first == IPTCBlock.datasetTag {
                _ = try IPTCBlock.datasets(in: block[...])
                iim.append(block)
                return
            }
            let (copies, others) = try IPTCBlock.splitting(photoshopResources: block)
            for copy in copies { _ = try IPTCBlock.datasets(in: copy[...]) }
            iim += copies
            if let others { photoshop.append(others) }
        } catch {
            addUnreadable("IPTC", place: place, reason: "\(error)")
        }
    }

    mutating func addUnreadable(_ kind: String, place: String, reason: String) {
        unreadable.append("\(kind) in \(place) (\(reason))")
    }

    /// What a container's own walk left out, already described ("EXIF gps directory (…)").
    mutating func addUnreadable(_ described: [String]) {
        unreadable += described
    }

    /// EXIF: the copy in the best-ranked place, the first there. Copies of a TIFF structure
    /// cannot be merged tag by tag without moving values a MakerNote's offsets rely on; the
    /// standard place is what current readers take, other places hold older tools' copies.
    /// XMP: likewise, one packet. IPTC: every copy's datasets (`IPTCBlock.merging`). Photoshop
    /// resources: each resource id once, its first copy.
    var blocks: MetadataBlocks {
        // Each IIM copy was parsed when it was added, so merging them cannot fail.
        let mergedIIM = (try? IPTCBlock.merging(iim)) ?? nil
        return MetadataBlocks(exif: exif.min { ($0.rank, $0.order) < ($1.rank, $1.order) }?.data,
                              xmp: xmp.min { ($0.rank, $0.order) < ($1.rank, $1.order) }?.packet,
                              iptc: mergedIIM, photoshop: mergedPhotoshop, unreadable: unreadable)
    }

    private var mergedPhotoshop: [UInt8]? {
        var seen: Set<UInt16> = []
        var merged: [UInt8] = []
        for block in photoshop {
            // Parsed when it was split out of its copy.
            guard let resources = try? IPTCBlock.resources(in: block, from: 0).resources else { continue }
            for resource in resources where seen.insert(resource.id).inserted { merged += block[resource.bytes] }
        }
        return merged.isEmpty ? nil : merged
    }
}
