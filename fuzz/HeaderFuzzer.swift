import Foundation
import MediaFormats
@testable import MetadataKit
import PipelineModel

// libFuzzer harness for everything that reads an untrusted file's header before a pixel is
// decoded, compiled with FormatSniffer.swift and GeoPosition.swift against the PipelineModel
// and MetadataKit modules (see fuzz/run.sh). The input is dispatched as the runner would: by
// its sniffed format, or, for the metadata blocks libvips hands over on their own, by its first
// byte. Throwing or answering nil is fine; a trap, a hang, huge memory or a broken promise is a
// finding.

/// The path-based readers (JPEGStructure, PNGStructure, HEIFStructure, the movie readers) get
/// the input as this file, one per fuzzing process.
private let inputPath = "/dev/shm/mediabatch-header-fuzz-\(getpid())"
private let removeInputFileAtExit: Void = { atexit { unlink(inputPath) } }()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    // A TIFF's directories decide between an image and a camera's RAW: sniffed from the file.
    var format: MediaFormat?
    withInputFile(bytes) { format = try? FormatSniffer.format(of: $0) }
    switch format {
    case .jpeg?:
        readJPEG(bytes)
        withInputFile(bytes) { readContainer(JPEGMetadata.self, bytes, $0) }
    case .png?:
        withInputFile(bytes) { path in
            _ = try? PNGStructure(path: path)
            readContainer(PNGMetadata.self, bytes, path)
        }
    case .heic?, .avif?:
        withInputFile(bytes) { path in
            if let structure = try? HEIFStructure(path: path) { _ = HEIFStructure.isSequence(structure) }
            readContainer(HEIFMetadata.self, bytes, path)
        }
    case let format? where format.row.container == .quickTime:
        withInputFile(bytes, readMovie)
    case let format? where format.row.container == .matroska:
        withInputFile(bytes, readMatroska)
    case let format? where format.row.container == .tiff: // TIFF and the TIFF-based camera RAWs
        withInputFile(bytes) { readContainer(TIFFMetadata.self, bytes, $0) }
    case .webp?:
        withInputFile(bytes) { readContainer(WebPMetadata.self, bytes, $0) }
    case .cr3?:
        withInputFile(bytes) { readContainer(CR3Metadata.self, bytes, $0) }
    case .some:
        break // read by libvips or libavformat alone, or not at all (a camera RAW mediabatch cannot edit)
    case nil:
        readMetadataBlock(bytes)
    }
    return 0
}

/// Blocks as libvips hands them over (`exif-data`, `xmp-data`, `iptc-data`), told apart by the
/// way each begins. A leading NUL may start a HEIF EXIF item (its header offset) or UTF-16 XMP.
private func readMetadataBlock(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    if [UInt8(ascii: "E"), UInt8(ascii: "I"), UInt8(ascii: "M"), 0x00].contains(first) { // "Exif\0\0", a TIFF header
        ExifData(bytes).map(exercise)
    }
    if [UInt8(ascii: "<"), 0xEF, 0xFE, 0xFF, 0x00].contains(first) { // markup, a UTF-8, UTF-16 or UTF-32 start
        readXMP(bytes)
    }
    switch first {
    case UInt8(ascii: "A"): // "Apple iOS\0"
        AppleMakerNote(bytes).map(exercise)
    case 0x1C, UInt8(ascii: "P"), UInt8(ascii: "8"): // an IIM dataset tag, "Photoshop 3.0\0", "8BIM"
        readIPTC(bytes)
    case UInt8(ascii: "+"), UInt8(ascii: "-"): // ISO 6709 text from a movie
        _ = GeoPosition(iso6709: String(decoding: bytes, as: UTF8.self))
    default:
        break
    }
}

private func withInputFile(_ bytes: [UInt8], _ body: (String) -> Void) {
    _ = removeInputFileAtExit
    guard FileManager.default.createFile(atPath: inputPath, contents: Data(bytes)) else {
        fatalError("cannot write \(inputPath)")
    }
    body(inputPath)
}

// MARK: JPEG

private func readJPEG(_ bytes: [UInt8]) {
    withInputFile(bytes) { path in
        guard let structure = try? JPEGStructure(path: path) else { return }
        for packet in structure.auxiliaryXMP { _ = try? XMPPacket.properties(in: packet) }
        _ = JPEGStructure.endsWithMovie(path, length: structure.pictures.last?.size ?? 0)
        _ = structure.gainMapKind
        if let gainMap = try? JPEGGainMap.read(path: path) { readGainMap(gainMap, primary: bytes) }
    }
    // The blocks libvips would hand over, taken from the segments directly.
    guard let segments = JPEGSegments.segments(of: bytes) else { return }
    for segment in segments {
        let payload = Array(bytes[segment.payload])
        switch segment.marker {
        case 0xE1 where payload.starts(with: JPEGSegments.exifHeader):
            guard var exif = ExifData(payload) else { continue }
            exercise(exif)
            exif.remove(ExifTag.gpsPointer, from: .ifd0)
            if let spliced = JPEGSegments.replacingExif(in: bytes, with: exif) {
                require(JPEGSegments.segments(of: spliced) != nil, "splicing EXIF broke the JPEG's segments")
            }
        case 0xE1 where payload.starts(with: JPEGStructure.xmpSignature):
            readXMP(Array(payload.dropFirst(JPEGStructure.xmpSignature.count)))
        case 0xED:
            readIPTC(payload)
        default:
            break
        }
    }
}

// MARK: Gain maps

/// A gain map's metadata written back in both forms reads back as it was, and an Ultra HDR file
/// assembled from the input and its map is a JPEG whose index finds the map where it put it.
private func readGainMap(_ gainMap: JPEGGainMap, primary: [UInt8]) {
    guard let metadata = try? gainMap.metadata?.validated() else { return }
    guard let iso = try? GainMapMetadata(iso21496: metadata.iso21496Body()), let xmp = try? GainMapMetadata(hdrgmXMP: metadata.hdrgmXMP()) else {
        fatalError("gain map metadata written cannot be read back")
    }
    require(iso.gainMapMax.count == metadata.gainMapMax.count && xmp.gainMapMax.count == metadata.gainMapMax.count,
            "gain map metadata changed its channels when written")
    guard let assembled = try? UltraHDR.assemble(primary: primary, gainMap: gainMap.jpeg, metadata: metadata) else { return }
    withInputFile(assembled) { path in
        guard let structure = try? JPEGStructure(path: path) else { fatalError("an assembled Ultra HDR file is no JPEG") }
        require(structure.pictures.count == 2 && structure.pictures[1].offset + structure.pictures[1].size == assembled.count,
                "the MPF index does not find the gain map where it was put")
    }
}

// MARK: Containers

/// The model a container reads, written back into the same file, reads back from it whole: no
/// block the writer wrote is unreadable, and XMP and IPTC come back as they went.
private func readContainer<Container: MetadataContainer>(_ container: Container.Type, _ bytes: [UInt8], _ path: String) {
    rewriteInPlace(container, path)
    guard let blocks = try? Container.readMetadata(path: path) else { return }
    blocks.exif.map(exercise)
    guard let written = try? Container.writingMetadata(blocks, into: bytes) else { return }
    guard FileManager.default.createFile(atPath: path, contents: Data(written.bytes)) else { fatalError("cannot write \(path)") }
    guard let again = try? Container.readMetadata(path: path) else { fatalError("a written file cannot be read back") }
    require(again.unreadable.isEmpty, "what was written reads back unreadable: \(again.unreadable)")
    require(again.xmp == blocks.xmp && again.iptc == blocks.iptc, "XMP or IPTC changed on the way")
}

/// The file with its location removed from every copy, as `stripLocation` rewrites a copy in
/// place: it reads back if the input did, and no GPS is left.
private func rewriteInPlace<Container: MetadataContainer>(_ container: Container.Type, _ path: String) {
    guard (try? Container.readMetadata(path: path)) != nil,
          let rewritten = try? Container.rewritingMetadata(path: path, editing: withoutLocation) else { return }
    let copy = path + ".rewritten"
    guard FileManager.default.createFile(atPath: copy, contents: Data(rewritten.bytes)) else { fatalError("cannot write \(copy)") }
    defer { unlink(copy) }
    do {
        let again = try Container.readMetadata(path: copy)
        require(again.exif?.hasGPS != true, "GPS survived the rewrite")
    } catch {
        fatalError("a rewritten file cannot be read back: \(error)")
    }
}

/// What `stripLocation` does to each copy's blocks, in MetadataKit's own terms.
private let withoutLocation = BlockEdit(removesLocation: true) { blocks in
    blocks.exif?.remove(ExifTag.gpsPointer, from: .ifd0)
    if let xmp = blocks.xmp, let removal = try? XMPPacket.removingLocation(from: xmp) { blocks.xmp = removal.bytes }
    if let iptc = blocks.iptc, let removal = try? IPTCBlock.removingLocation(from: iptc) { blocks.iptc = removal.bytes }
}

// MARK: EXIF

/// Every read and edit the pipeline makes, then what the edits promise.
private func exercise(_ exif: ExifData) {
    let directories: [ExifData.Directory] = [.ifd0, .exif, .gps, .interoperability, .ifd1]
    for directory in directories {
        // Every lookup walks the directory again: 32 entries reach every value type without
        // making a 65535-entry directory cost billions of steps.
        for entry in exif.entries(in: directory).prefix(32) {
            _ = exif.string(entry.tag, in: directory)
            _ = exif.numbers(entry.tag, in: directory)
            _ = exif.bytes(entry.tag, in: directory)
        }
    }
    _ = exif.userComment
    _ = GeoPosition(exif: exif)
    exif.appleMakerNote.map(exercise)

    let originalSize = exif.tiff.count
    var stripped = exif
    for (tag, directory) in [(ExifTag.gpsPointer, ExifData.Directory.ifd0), (ExifTag.bodySerialNumber, .exif),
                             (ExifTag.lensSerialNumber, .exif), (ExifTag.cameraSerialNumber, .ifd0),
                             (ExifTag.ownerName, .exif), (ExifTag.makerNote, .exif)] {
        stripped.remove(tag, from: directory)
    }
    require(stripped.tiff.count == originalSize, "removing tags moved bytes")
    require(!stripped.hasGPS && !stripped.contains(ExifTag.gpsPointer, in: .ifd0), "GPS survived its removal")

    var output = stripped
    output.setInteger(ExifTag.orientation, in: .ifd0, to: 1)
    output.setInteger(ExifTag.pixelXDimension, in: .exif, to: 640)
    output.removeThumbnail()
    require(!output.hasThumbnail, "the thumbnail survived its removal")
    output.trimUnreferencedTail()
    require(!output.hasGPS, "trimming the tail brought GPS back")
    _ = output.app1Payload
}

private func exercise(_ note: AppleMakerNote) {
    _ = note.contentIdentifier
    _ = note.burstUUID
    _ = note.hdrImageType
}

// MARK: XMP and IPTC

private func readXMP(_ packet: [UInt8]) {
    _ = XMPPacket.carriesLocation(packet) // properties(in:), then placesPhoto
    _ = try? XMPPacket.locationValues(in: packet)
    guard let removal = try? XMPPacket.removingLocation(from: packet) else { return }
    require(!removal.removed.isEmpty)
    // What stripLocation writes must still be XMP, and carry no location by either reader.
    guard let values = try? XMPPacket.locationValues(in: removal.bytes) else {
        fatalError("the packet without location is not well-formed")
    }
    require(values.isEmpty, "location survived its removal: \(values.keys.sorted())")
}

private func readIPTC(_ block: [UInt8]) {
    _ = try? IPTCBlock.locationValues(in: block)
    _ = IPTCBlock.photoshopResources(wrapping: block)
    guard let removal = try? IPTCBlock.removingLocation(from: block) else { return }
    guard let values = try? IPTCBlock.locationValues(in: removal.bytes) else {
        fatalError("the block without location cannot be read back")
    }
    require(values.isEmpty, "location survived its removal: \(values.keys.sorted())")
}

// MARK: Movies

private func readMovie(_ path: String) {
    let metadata = try? MovieMetadata(contentsOfFile: path)
    if let metadata {
        _ = (metadata.make, metadata.model, metadata.creationDate, metadata.contentIdentifier, metadata.carriesLocation)
        _ = metadata.iso6709.flatMap(GeoPosition.init(iso6709:))
    }
    guard let edit = try? MovieLocationEditor.removingLocation(fromFileAt: path) else { return }
    guard let original = try? MovieFile(path: path) else { fatalError("an edited movie cannot be read") }
    require(edit.moov.count == original.moov.count && edit.moovOffset == original.moovBox.start,
            "the rewritten moov changed size or place: chunk offsets would break")
    if metadata != nil {
        guard let after = try? MovieMetadata(moov: edit.moov) else { fatalError("the rewritten moov cannot be read") }
        require(!after.carriesLocation, "location survived its removal")
    }
}

/// Location tags voided in place: the copy has the input's size, walks again, and has none left.
private func readMatroska(_ path: String) {
    let carries = MatroskaLocationEditor.carriesLocation(path: path)
    let copy = path + ".copy"
    defer { unlink(copy) }
    guard let report = try? MatroskaLocationEditor.writeWithoutLocation(from: path, to: copy) else { return }
    require(report.removed.isEmpty != carries, "found location \(carries), removed \(report.removed)")
    let sizes = [path, copy].map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? -1 }
    require(sizes[0] == sizes[1], "the copy changed size: \(sizes)")
    require(!MatroskaLocationEditor.carriesLocation(path: copy), "location survived its removal")
    guard let again = try? MatroskaLocationEditor.writeWithoutLocation(from: copy, to: copy + ".again") else {
        fatalError("the edited file cannot be walked")
    }
    unlink(copy + ".again")
    require(again.removed.isEmpty, "a second pass found \(again.removed)")
}

/// `precondition` without its message in -O builds: a finding should say what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "") {
    if !condition { fatalError("broken promise: \(message())") }
}
