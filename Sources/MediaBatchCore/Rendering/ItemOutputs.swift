import Foundation
import PipelineModel
import RunState
import VipsKit

/// The files `write` publishes for one item, as its plan says: an output whose picture no stage
/// changed (or a movie, or an image no stage decoded) is the input's own bytes with the metadata
/// edited (`OriginalCopy`); every other output is its picture, rendered from one decode of the
/// input for all of them (`PictureRenderer`), encoded by its format (`PictureEncoder`) with the
/// item's metadata as the stages edited it.
final class ItemOutputs {
    private let item: ItemContext
    private let plan: ItemPlan
    private let renderer: PictureRenderer
    private let gainMaps: GainMapRenderer
    private let renditionCache: RenditionCache
    /// The item's metadata, every copy merged, with the planned edits applied: for encoded outputs.
    private lazy var metadata: ImageMetadata? = item.metadata.map { metadata in
        var metadata = metadata
        metadata.apply(plan.metadataEdits)
        return metadata
    }
    /// What the outputs do not carry, each named once, in the order first met.
    /// The same for an output written without the input's gain map: its XMP no longer points
    /// at one (parsed once an item, not once an output).
    private lazy var metadataWithoutGainMap: ImageMetadata? = metadata.map { metadata in
        var edited = metadata
        edited.removeGainMapReferences()
        return edited
    }
    private(set) var removedMetadata: [String] = []
    /// The outputs, by path, whose picture's gain map was to go in and could not be read.
    private(set) var gainMapsLeftOut: Set<String> = []
    /// The movie's location keys, read once for all its renditions.
    private lazy var renditionRemoved = MovieRendition.removed(from: item)
    /// Each rendition's RFC 6381 `codecs`, by path.
    private(set) var renditionCodecs: [String: String] = [:]
    /// For `PhotoReader`s: the smallest picture written of the whole photo (its longest side), as its
    /// luma added up in `photoSide` × `photoSide` cells while it streamed into its encoder.
    private var photo: (side: Int, luma: [UInt8])?
    private let readsPhoto: Bool
    /// A picture tallied is 5 pixels a cell along its longest side, and a pixel a cell at least
    /// across: a smaller one is not (the reader decodes its own, `FingerprintStage.decodedSide`).
    static let photoSide = 64

    /// `made`: the outputs to make now (not those an earlier run's files stand for).
    init(_ item: ItemContext, _ plan: ItemPlan, making made: [PlannedOutput], renditionCache: RenditionCache) {
        self.item = item
        self.plan = plan
        self.renditionCache = renditionCache
        let encoded = made.filter { !$0.isCopy(of: item.format) }.compactMap(\.picture)
        readsPhoto = !item.environment.photoReaders.isEmpty
        renderer = PictureRenderer(path: item.input.path, pictures: encoded, decoderThreads: item.threads,
                                   effects: item.environment.effects)
        gainMaps = GainMapRenderer(item)
    }

    /// Where a camera RAW's picture came from, once rendered.
    var rawSource: ItemResult.RawSource? { renderer.rawSource }

    /// Which decoder made a HEIC's pictures, once rendered.
    var decoder: ItemResult.DecoderUse? { renderer.decoder }

    /// Writes `output`'s file to `path`; returns its SHA-256, from the bytes written (a copy's
    /// as edited).
    func write(_ output: PlannedOutput, to path: String) throws -> String {
        switch output.content {
        case .original: return try copy(to: path)
        case .picture(let picture), .poster(let picture):
            return try output.isCopy(of: item.format) ? copy(to: path) : encode(picture, as: output, to: path)
        case .rendition(let rendition, _):
            let written = try MovieRendition.write(item, rendition, editing: plan.metadataEdits, to: path, cache: renditionCache)
            note(renditionRemoved)
            renditionCodecs[output.path ?? ""] = written.codecs
            return written.contentHash
        case .sidecar(let sidecar, _):
            let copy = try sidecar.bytes(root: item.input.root, editing: plan.metadataEdits)
            note(copy.removed)
            try FileWriting.write(copy.bytes, to: path)
            return ContentHash.of(bytes: copy.bytes)
        }
    }

    /// The input's own bytes, its metadata edited.
    private func copy(to path: String) throws -> String {
        let copy = try OriginalCopy.write(item, editing: plan.metadataEdits, to: path)
        note(copy.removed)
        return try copy.contentHash ?? ContentHash.ofFile(atPath: path)
    }

    /// `picture`, rendered from the item's one decode, encoded as `output`'s format with the item's metadata.
    private func encode(_ picture: Picture, as output: PlannedOutput, to path: String) throws -> String {
        var image = try renderer.image(for: picture, alpha: output.format.row.encoder?.codec.keepsAlpha == true)
        let tallies = readsPhoto && picture.showsWholePhoto && picture.frames == 1
            && min(picture.scaled.width, picture.scaled.height) >= Self.photoSide && picture.scaled.longestSide >= 5 * Self.photoSide
            && picture.scaled.longestSide < photo?.side ?? .max
        if tallies { image = try failingDecode { try image.tallied(side: Self.photoSide) } }
        let gainMap = output.format.carriesGainMap && picture.keepsGainMap
            ? gainMaps.gainMap(for: picture, smartCut: renderer.smartCut(of: picture)) : nil
        let metadata = gainMap == nil && picture.source.gainMap != nil ? metadataWithoutGainMap : self.metadata
        if gainMap == nil, output.plansGainMap { gainMapsLeftOut.insert(output.path ?? "") }
        let encoded = try PictureEncoder.encode(image, metadata, as: output, gainMap: gainMap)
        if tallies, let luma = image.talliedGrid(side: Self.photoSide) { photo = (picture.scaled.longestSide, luma) }
        note((metadata?.removed ?? []) + encoded.notCarried + gainMapNotes(picture, output, written: gainMap != nil))
        try FileWriting.write(encoded.bytes, to: path)
        return ContentHash.of(bytes: encoded.bytes)
    }

    /// The ThumbHash of the smallest picture rendered, when the plan asks for a placeholder.
    func placeholder() throws -> String? {
        guard plan.placeholder == .thumbhash, let smallest = try renderer.smallest() else { return nil }
        do {
            return try ThumbHash.base64(of: smallest)
        } catch let error as VipsError {
            throw StageFailure(.decodeFailed, error.message)
        }
    }

    /// For `PhotoReader`s: the smallest picture written of the whole photo, squeezed to `photoSide` ×
    /// `photoSide` (its luma, one band); nil where none was.
    func wholePhoto() throws -> VImage? {
        guard let photo else { return nil }
        return try failingDecode { try VImage.fromPixels(photo.luma, width: Self.photoSide, height: Self.photoSide, bands: 1) }
    }

    /// Why a picture's gain map is not in its output, if it is not.
    private func gainMapNotes(_ picture: Picture, _ output: PlannedOutput, written: Bool) -> [String] {
        guard picture.source.gainMap != nil, !written else { return [] }
        if !picture.keepsGainMap { return ["HDR gain map (hdr: drop)"] }
        if !output.format.carriesGainMap { return ["HDR gain map: \(output.format.rawValue) has no place for it"] }
        return gainMaps.dropped.map { [$0] } ?? []
    }

    private func note(_ removed: [String]) {
        for name in removed where !removedMetadata.contains(name) { removedMetadata.append(name) }
    }
}

/// `step`, libvips' errors failing the item's decode: they come from computing pixels.
func failingDecode<T>(_ step: () throws -> T) throws -> T {
    do {
        return try step()
    } catch let error as VipsError {
        throw StageFailure(.decodeFailed, error.message)
    }
}
