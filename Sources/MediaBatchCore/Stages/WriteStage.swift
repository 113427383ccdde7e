import AVFormatKit
import Foundation
import MediaFormats
import MetadataKit
import PipelineModel
import RunState
import VipsKit

/// Writes each planned output atomically under the output root: images are encoded (this is
/// where libvips computes pixels) with the metadata the stages left them; videos are copied,
/// without their location metadata when `stripMetadata` asked; and what no stage decoded (a
/// pipeline without `decode`) is copied byte for byte.
struct WriteStage: PipelineStage {
    let options: Stage.Write
    let environment: RunEnvironment
    var name: Stage.Name { .write }
    var phase: StagePhase { .pixels }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard format != nil else { return }
        fingerprint.recipe.append(Stage.write(options).fingerprint)
    }

    /// Placed before any pixel stage runs, so that collisions are caught before work is spent.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        for index in plan.outputs.indices {
            plan.outputs[index].path = Self.relativeOutput(options.path, for: item, output: plan.outputs[index])
        }
    }

    /// Every output of the item or none (see `AtomicFile`); outputs an earlier run wrote from
    /// the same recipe are left as they are.
    func run(_ item: ItemContext) throws {
        let planned = item.plan.outputs.filter { $0.path != nil }
        let fresh = planned.filter { !$0.reused }
        for output in fresh { try refuseOverwritingInput(output.path!, item) }
        let files = fresh.map { output in
            AtomicFile.File(relativePath: output.path!) { temporary in try produce(output, for: item, at: temporary) }
        }
        let sizes = try AtomicFile.write(files, under: environment.outputRoot, via: environment.temporaryFolder)
        let written = Dictionary(uniqueKeysWithValues: zip(fresh.map(\.path!), sizes))
        item.written = planned.map { output in
            WrittenOutput(planned: output, bytes: written[output.path!] ?? Self.size(of: output.path!, under: environment.outputRoot))
        }
    }

    private func refuseOverwritingInput(_ relative: String, _ item: ItemContext) throws {
        let destination = environment.outputRoot.appendingPathComponent(relative).standardizedFileURL
        guard destination.resolvingSymlinksInPath().path != item.input.url.resolvingSymlinksInPath().path else {
            throw StageFailure(.wouldOverwriteInput, "refusing to write \(relative) over its own input")
        }
    }

    /// Writes one output's content, turning every failure into the item's reason.
    private func produce(_ output: PlannedOutput, for item: ItemContext, at temporary: String) throws {
        let relative = output.path!
        do {
            if let image = output.variant.flatMap({ item.renditions[$0.size] }) ?? item.image {
                let notCarried = try writeImage(image, item.metadata, as: output, to: temporary)
                var seen: Set<String> = [] // every output's format adds what it cannot carry, once
                item.removedMetadata = ((item.metadata?.removed ?? []) + item.removedMetadata + notCarried).filter { seen.insert($0).inserted }
            } else if item.stripVideoLocation, let video = item.video {
                item.removedMetadata = try writeVideoWithoutLocation(item.input.path, video, to: temporary)
            } else {
                try FileManager.default.copyItem(atPath: item.input.path, toPath: temporary)
            }
        } catch let error as VipsError {
            throw Self.classify(error, writing: relative)
        } catch let error as MovieFileError {
            throw StageFailure(.unsupportedMetadata, "cannot remove location from this \(item.format.rawValue): \(error.message)")
        } catch let failure as StageFailure {
            throw failure
        } catch {
            throw StageFailure(.writeFailed, "cannot write \(relative): \(Self.systemReason(error))")
        }
    }

    private static func size(of relative: String, under root: URL) -> Int {
        Int(FileStamp(path: root.appendingPathComponent(relative).path)?.size ?? 0)
    }

    /// Where an output goes, relative to the output root. A Live Photo's movie is named after
    /// its still, so the pair stays a pair whatever the still becomes.
    private static func relativeOutput(_ template: PathTemplate, for item: ItemContext, output: PlannedOutput) -> String {
        let input = item.input
        let namedAfter = input.livePhoto.flatMap { pair in
            pair.role == .video ? InputItem(root: input.root, relativePath: pair.partner) : nil
        } ?? input
        return template.render(PathTemplate.Values(
            dir: namedAfter.relativeFolder, stem: namedAfter.stem, ext: output.format.fileExtension,
            captured: item.facts.capture.map { ($0.date, $0.utcOffsetSeconds) },
            contentHash: template.usesHash ? item.contentHash : nil, // a dry run hashes only for this
            size: output.variant?.size, width: output.variant?.pixels.width, height: output.variant?.pixels.height))
    }

    /// Encodes pixels (and the ICC profile) with libvips, then writes the item's metadata into
    /// the encoded file through its container, every block once. Returns what the format has
    /// no place for.
    private func writeImage(_ image: VImage, _ metadata: ImageMetadata?, as output: PlannedOutput, to path: String) throws -> [String] {
        if let planned = output.variant?.pixels, planned != PixelSize(width: image.width, height: image.height) {
            throw StageFailure(.encodeFailed, "\(output.path ?? ""): libvips made \(image.width)×\(image.height), "
                               + "planned \(planned.width)×\(planned.height)")
        }
        guard let codec = output.format.row.encoder?.codec else {
            throw StageFailure(.encodeFailed, "cannot encode an image as \(output.format.rawValue)")
        }
        // Readers of HEIF, AVIF and JPEG XL take EXIF's orientation as information only.
        let image = output.format.row.honoursExifOrientation || image.orientation == 1 ? image : try image.upright()
        let bare = try image.withoutMetadataBlocks(keepingICC: metadata?.keepsICC ?? true)
        let encoded = try bare.encoded(as: codec, quality: output.quality, effort: output.effort ?? 0)
        let url = URL(fileURLWithPath: path)
        guard let metadata, let container = output.format.row.container?.metadata else {
            try Data(encoded).write(to: url)
            return []
        }
        let written: MetadataWriting
        do {
            written = try container.writingMetadata(metadata.blocks(for: image), into: encoded)
        } catch let error as MetadataFormatError {
            throw StageFailure(.encodeFailed, "cannot write the metadata into \(output.path ?? ""): \(error.message)")
        }
        try Data(written.bytes).write(to: url)
        return written.notCarried.map { "\($0): \(output.format.rawValue) has no place for it" }
    }

    /// Edits the movie's metadata boxes in place (every track and media byte kept; a remux
    /// cannot carry iPhone `mebx` tracks), then has libavformat read the result back: the same
    /// streams and duration, or the output is not published.
    private func writeVideoWithoutLocation(_ input: String, _ video: VideoProbe, to path: String) throws -> [String] {
        let report = try MovieLocationEditor.writeWithoutLocation(from: input, to: path)
        let written = try? AVFormat.probe(path: path)
        guard let written, written.streams == video.streams, written.durationSeconds == video.durationSeconds else {
            throw StageFailure(.encodeFailed, "the edited movie does not read back with the same streams and duration")
        }
        return report.removed
    }

    /// Encoding is when a lazy libvips pipeline runs, so a truncated input fails here too:
    /// VipsKit says which side failed.
    static func classify(_ error: VipsError, writing relative: String) -> StageFailure {
        switch error.side {
        case .decode: return StageFailure(.decodeFailed, error.message)
        case .encode: return StageFailure(.encodeFailed, "cannot encode \(relative): \(error.message)")
        }
    }

    /// The system's words for a Foundation I/O error: its own description ("There isn’t enough
    /// space") hides the errno that its underlying POSIX error names ("No space left on device").
    static func systemReason(_ error: Error) -> String {
        let outer = error as NSError
        // On Linux the underlying error is a Swift POSIXError: bridged, not stored as an NSError.
        let underlying = (outer.userInfo[NSUnderlyingErrorKey] as? Error).map { $0 as NSError }
        guard let posix = [outer, underlying].compactMap({ $0 }).first(where: { $0.domain == NSPOSIXErrorDomain }) else {
            return error.localizedDescription
        }
        return String(cString: strerror(Int32(posix.code)))
    }
}
