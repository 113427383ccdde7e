import Foundation

/// How a HEIF file's primary image is coded, read from its `meta` box alone: an image
/// mediabatch's own HEVC path decodes (`HEVCCodedImage`), or why that path leaves it to libheif
/// (overlays, derived images, AV1, depths other than 8, 10 and 12 bits, sequences, properties it does
/// not know that the file marks essential, damage…).
public enum HEIFCoding: Equatable, Sendable {
    case hevc(HEVCCodedImage)
    case declines(String)

    public static let alphaTypes: Set<String> = ["urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"]

    /// The sample depths the path decodes (libavcodec's HEVC decoder; libheif's conversions at each).
    static let bitDepths: Set<Int> = [8, 10, 12]

    /// Properties whose meaning the path applies; any other marked essential declines the image.
    static let understood: Set<String> = ["hvcC", "ispe", "colr", "pixi", "irot", "imir", "clap", "auxC"]

    public static func read(path: String) -> HEIFCoding {
        reading(path) { try $0.primary() }
    }

    /// The primary image's first thumbnail item (`thmb`), coded as the path decodes it: what
    /// libvips' thumbnail reads instead of the photo when a picture asked is smaller.
    public static func readThumbnail(path: String) -> HEIFCoding {
        reading(path) { try $0.thumbnail() }
    }

    /// The primary image's first auxiliary image of `type` (an iPhone's HDR gain map), coded as the path decodes
    /// it: 8-bit luma alone (Samsung's colour gain map is declined), its own transformations applied as libheif
    /// applies them.
    public static func readAuxiliary(path: String, type: String) -> HEIFCoding {
        reading(path) { try $0.auxiliary(type) }
    }

    /// `body` over the file's `meta` box; what it declines, or a structure that cannot be read, as the reason.
    private static func reading(_ path: String, _ body: (HEIFCodingReader) throws -> HEIFCoding) -> HEIFCoding {
        do {
            return try body(HEIFCodingReader(path: path))
        } catch let declined as Declined {
            return .declines(declined.reason)
        } catch {
            return .declines("its structure cannot be read: \(error)")
        }
    }

    struct Declined: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

/// The reading behind `HEIFCoding.read`: the `meta` box in memory, the file open for a grid's
/// descriptor.
private struct HEIFCodingReader {
    typealias Declined = HEIFCoding.Declined
    let handle: FileHandle
    let bytes: [UInt8]
    let meta: HEIFMetaBox
    let properties: ItemProperties

    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MovieFileError("cannot open \(path)") }
        self.handle = handle
        let boxes = try ISOBox.topLevelBoxes(of: handle)
        if boxes.contains(where: { $0.type == "moov" }) { throw Declined("it is an image sequence (a 'moov' box)") }
        guard let metaBox = boxes.first(where: { $0.type == "meta" }), metaBox.size <= HEIFStructure.largestMeta else {
            throw Declined("it has no readable 'meta' box")
        }
        bytes = try handle.readBytes(at: metaBox.start, count: metaBox.size)
        let box = try ISOBox.parse(header: Array(bytes.prefix(16)), at: 0, limit: bytes.count)
        meta = try HEIFMetaBox(bytes, box)
        properties = try ItemProperties(bytes, meta: meta.children)
    }

    func primary() throws -> HEIFCoding {
        defer { try? handle.close() }
        let id = meta.primary
        var coded: HEVCCodedImage
        switch type(of: id) {
        case "hvc1": coded = try single(id)
        case "grid": coded = try grid(id)
        case let other: throw Declined("its primary image is '\(other)' coded")
        }
        guard HEIFCoding.bitDepths.contains(coded.bitDepth) else { throw Declined("its primary image has \(coded.bitDepth)-bit samples") }
        coded.thumbnail = thumbnail(of: id)
        return .hevc(coded)
    }

    func thumbnail() throws -> HEIFCoding {
        defer { try? handle.close() }
        guard let id = meta.references.references.first(where: { $0.type == "thmb" && $0.to.contains(meta.primary) })?.from else {
            throw Declined("it has no thumbnail item")
        }
        guard type(of: id) == "hvc1" else { throw Declined("its thumbnail is '\(type(of: id))' coded") }
        let coded = try single(id)
        guard HEIFCoding.bitDepths.contains(coded.bitDepth) else { throw Declined("its thumbnail has \(coded.bitDepth)-bit samples") }
        return .hevc(coded)
    }

    func auxiliary(_ wanted: String) throws -> HEIFCoding {
        defer { try? handle.close() }
        let auxiliaries = meta.references.references.filter { $0.type == "auxl" && $0.to.contains(meta.primary) }.map(\.from)
        guard let id = auxiliaries.first(where: { auxiliary in
            properties.of(auxiliary).contains { $0.box.type == "auxC" && ItemProperties.auxiliaryType($0.box, in: bytes) == wanted }
        }) else { throw Declined("it has no auxiliary image of type \(wanted)") }
        let coded: HEVCCodedImage
        switch type(of: id) {
        case "hvc1": coded = try single(id)
        case "grid": coded = try grid(id)
        case let other: throw Declined("its auxiliary image is '\(other)' coded")
        }
        guard coded.bitDepth == 8, coded.isMonochrome else { throw Declined("its auxiliary image is not 8-bit luma alone") }
        return .hevc(coded)
    }

    private func type(of id: Int) -> String {
        meta.items.first { $0.id == id }?.type ?? "none"
    }

    /// One `hvc1` item as its own picture.
    private func single(_ id: Int) throws -> HEVCCodedImage {
        let tile = try hevcItem(id, transformable: true)
        return HEVCCodedImage(configuration: tile.configuration, tileWidth: tile.width, tileHeight: tile.height, columns: 1, rows: 1,
                              width: tile.width, height: tile.height, tiles: [tile.extents], colour: tile.colour,
                              iccProfile: tile.icc, transforms: tile.transforms, alpha: try alpha(of: id, depth: HEVCConfiguration(tile.configuration)?.bitDepth))
    }

    /// A `grid` item (ISO/IEC 23008-12, 6.6.2.3): its descriptor, then its `dimg` tiles row by row.
    private func grid(_ id: Int) throws -> HEVCCodedImage {
        let own = try gridProperties(id)
        let descriptor = try data(of: id, allowingIdat: true)
        var fields = ItemLocations.FieldReader(bytes: descriptor, offset: 0, end: descriptor.count)
        _ = try fields.read(1) // version
        let fieldSize = try fields.read(1) & 1 == 0 ? 2 : 4
        let rows = try fields.read(1) + 1, columns = try fields.read(1) + 1
        let width = try fields.read(fieldSize), height = try fields.read(fieldSize)
        let tileIDs = meta.references.references.first { $0.type == "dimg" && $0.from == id }?.to ?? []
        guard tileIDs.count == rows * columns else {
            throw Declined("its grid of \(columns)×\(rows) names \(tileIDs.count) tiles")
        }
        let tiles = try tileIDs.map { tileID in
            guard type(of: tileID) == "hvc1" else { throw Declined("a tile of its grid is '\(type(of: tileID))' coded") }
            return try hevcItem(tileID, transformable: false)
        }
        guard let first = tiles.first, tiles.allSatisfy({ $0.configuration == first.configuration && $0.width == first.width
                  && $0.height == first.height && $0.colour == first.colour }) else {
            throw Declined("its grid's tiles differ in configuration, size or colour")
        }
        guard width > 0, height > 0, width <= columns * first.width, height <= rows * first.height else {
            throw Declined("its grid's \(width)×\(height) is not covered by \(columns)×\(rows) tiles of \(first.width)×\(first.height)")
        }
        return HEVCCodedImage(configuration: first.configuration, tileWidth: first.width, tileHeight: first.height, columns: columns,
                              rows: rows, width: width, height: height, tiles: tiles.map(\.extents), colour: first.colour,
                              iccProfile: own.icc ?? first.icc, transforms: own.transforms,
                              alpha: try alpha(of: id, depth: HEVCConfiguration(first.configuration)?.bitDepth))
    }
}

extension HEIFCodingReader {
    /// What one `hvc1` item says of itself.
    struct Item {
        var configuration: [UInt8] = []
        var width = 0, height = 0
        var colour: HEVCCodedImage.Colour?
        var icc: [UInt8]?
        var transforms: [HEVCCodedImage.Transform] = []
        var extents: [Range<Int>] = []
        /// What `pixi` says: each channel's bits.
        var channelBits: [Int] = []
    }

    func hevcItem(_ id: Int, transformable: Bool) throws -> Item {
        var item = try read(properties: id)
        guard !item.configuration.isEmpty, item.width > 0, item.height > 0 else {
            throw Declined("its image \(id) lacks 'hvcC' or 'ispe'")
        }
        guard transformable || item.transforms.isEmpty else { throw Declined("a tile of its grid is rotated, mirrored or cut") }
        guard let configuration = HEVCConfiguration(item.configuration), configuration.chromaBitDepth == configuration.bitDepth else {
            throw Declined("its image \(id) has an unreadable 'hvcC', or chroma and luma of different depths")
        }
        guard item.channelBits.allSatisfy({ $0 == configuration.bitDepth }) else {
            throw Declined("its image \(id) has \(item.channelBits) bits per channel ('pixi'), its 'hvcC' \(configuration.bitDepth)")
        }
        item.extents = try extents(of: id)
        return item
    }

    /// A grid's own properties: its colour profile and transformations.
    func gridProperties(_ id: Int) throws -> Item {
        try read(properties: id)
    }

    func read(properties id: Int) throws -> Item {
        var item = Item()
        for association in properties.of(id) {
            let box = association.box, payload = Array(bytes[box.payloadStart..<box.end])
            switch box.type {
            case "hvcC": item.configuration = payload
            case "ispe": (item.width, item.height) = (Int(payload.uint32(at: 4) ?? 0), Int(payload.uint32(at: 8) ?? 0))
            case "colr": try colour(payload, into: &item)
            case "pixi": item.channelBits = payload.count > 4 ? payload[5...].prefix(Int(payload[4])).map(Int.init) : []
            case "irot": item.transforms.append(.rotation(counterClockwise: Int((payload.first ?? 0) & 3) * 90))
            case "imir": item.transforms.append(.mirror(leftRight: (payload.first ?? 0) & 1 == 1))
            case "clap": item.transforms.append(.cleanAperture(try cleanAperture(payload)))
            default:
                if association.essential && !HEIFCoding.understood.contains(box.type) {
                    throw Declined("its image \(id) has an essential '\(box.type)' property")
                }
            }
        }
        return item
    }

    /// `colr`: an `nclx` (primaries, transfer, matrix: 16 bits each, then the full-range bit) or
    /// an ICC profile (`prof`, `rICC`).
    func colour(_ payload: [UInt8], into item: inout Item) throws {
        switch payload.fourCC(at: 0) {
        case "nclx":
            guard payload.count >= 11, let primaries = payload.uint16(at: 4), let transfer = payload.uint16(at: 6),
                  let matrix = payload.uint16(at: 8) else { throw Declined("its 'nclx' is cut off") }
            item.colour = .init(primaries: Int(primaries), transfer: Int(transfer), matrix: Int(matrix), fullRange: payload[10] & 0x80 != 0)
        case "prof", "rICC": item.icc = Array(payload[4...])
        case let other: throw Declined("its colour is '\(other ?? "?")'")
        }
    }

    func cleanAperture(_ payload: [UInt8]) throws -> HEVCCodedImage.CleanAperture {
        let fields = (0..<8).compactMap { payload.uint32(at: $0 * 4) }
        guard fields.count == 8 else { throw Declined("its 'clap' is cut off") }
        func fraction(_ index: Int, signed: Bool) -> HEVCCodedImage.Fraction {
            let numerator = signed ? Int(Int32(bitPattern: fields[index])) : Int(fields[index])
            return .init(numerator: numerator, denominator: Int(fields[index + 1]))
        }
        return .init(width: fraction(0, signed: false), height: fraction(2, signed: false),
                     horizontalOffset: fraction(4, signed: true), verticalOffset: fraction(6, signed: true))
    }

    /// Where item `id`'s bytes lie in the file: construction method 0 in this file, every extent's length stated.
    func extents(of id: Int) throws -> [Range<Int>] {
        let location = try meta.location(of: id)
        guard location.isInFile else { throw Declined("its item \(id) is stored by construction method \(location.constructionMethod)") }
        return try location.extents.map { extent in
            let start = location.baseOffset + extent.offset
            guard extent.length > 0, start >= 0, extent.length <= Int.max - start else { throw Declined("its item \(id) has an open extent") }
            return start..<start + extent.length
        }
    }

    /// Item `id`'s bytes: in the file, or in `idat` (construction method 1).
    func data(of id: Int, allowingIdat: Bool) throws -> [UInt8] {
        let location = try meta.location(of: id)
        guard allowingIdat, location.constructionMethod == 1, location.dataReference == 0 else {
            return try extents(of: id).flatMap { try handle.readBytes(at: $0.lowerBound, count: min($0.count, 1 << 16)) }
        }
        guard let idat = meta.idat else { throw Declined("its item \(id) is in an 'idat' it lacks") }
        return try location.extents.flatMap { extent in
            let start = idat.payloadStart + location.baseOffset + extent.offset
            let end = extent.length == 0 ? idat.end : start + extent.length
            guard start >= idat.payloadStart, end <= idat.end, start <= end else { throw Declined("its item \(id) lies outside 'idat'") }
            return bytes[start..<end]
        }
    }

    /// The first thumbnail of `id` (libvips takes the first libheif lists), as shown; nil where
    /// there is none or it cannot be read.
    func thumbnail(of id: Int) -> HEVCCodedImage.Size? {
        guard let thumbnail = meta.references.references.first(where: { $0.type == "thmb" && $0.to.contains(id) })?.from,
              let item = try? read(properties: thumbnail), item.width > 0, item.height > 0 else { return nil }
        let shown = HEVCCodedImage.displayed(width: item.width, height: item.height, item.transforms)
        return .init(width: shown.width, height: shown.height)
    }

    /// The alpha plane's `hvc1` image, where `id` has one: of the picture's `depth` (libheif 1.15 fails
    /// other pairs).
    func alpha(of id: Int, depth: Int?) throws -> HEVCCodedImage.Alpha? {
        let auxiliaries = meta.references.references.filter { $0.type == "auxl" && $0.to.contains(id) }.map(\.from)
        let alphas = auxiliaries.filter { auxiliary in
            properties.of(auxiliary).contains { $0.box.type == "auxC" && HEIFCoding.alphaTypes.contains(ItemProperties.auxiliaryType($0.box, in: bytes)) }
        }
        guard let alphaID = alphas.first else { return nil }
        guard type(of: alphaID) == "hvc1" else { throw Declined("its alpha image is '\(type(of: alphaID))' coded") }
        if meta.references.references.contains(where: { $0.type == "prem" && $0.from == id }) { throw Declined("its alpha is premultiplied") }
        // libheif 1.15 turns the colour planes, then attaches the alpha plane as its own item's properties left it.
        guard try read(properties: id).transforms.isEmpty else { throw Declined("it has alpha and is rotated, mirrored or cut") }
        let item = try hevcItem(alphaID, transformable: false)
        let alphaDepth = HEVCConfiguration(item.configuration)?.bitDepth
        guard alphaDepth == depth else { throw Declined("its alpha image has \(alphaDepth ?? 0)-bit samples, its picture \(depth ?? 0)") }
        return .init(configuration: item.configuration, width: item.width, height: item.height, extents: item.extents)
    }
}
