import AVFormatKit
import Foundation
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
                try writeImage(image, item.metadata, as: output, to: temporary)
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

    private func writeImage(_ image: VImage, _ metadata: ImageMetadata?, as output: PlannedOutput, to path: String) throws {
        if let planned = output.variant?.pixels, planned != PixelSize(width: image.width, height: image.height) {
            throw StageFailure(.encodeFailed, "\(output.path ?? ""): libvips made \(image.width)×\(image.height), "
                               + "planned \(planned.width)×\(planned.height)")
        }
        // libvips' jpegsave writes IPTC as an APP13 segment as it is: Photoshop resources there.
        let iptc = metadata?.iptc.map { output.format == .jpeg ? IPTCBlock.photoshopResources(wrapping: $0) : $0 }
        let carrying = try image.carryingMetadata(xmp: metadata?.xmp, iptc: iptc, droppingExif: metadata?.droppedExifFields ?? [])
        guard let format = output.format.imageFileFormat else {
            throw StageFailure(.encodeFailed, "cannot encode an image as \(output.format.rawValue)")
        }
        try carrying.save(to: path, format: format, quality: output.quality, effort: output.effort ?? 0)
        guard let exif = metadata?.exif(for: carrying) else { return }
        try Self.splice(exif, format: output.format, into: path)
    }

    /// libvips writes EXIF through libexif, which drops MakerNotes (and with Apple's the Live
    /// Photo identifier): our own block replaces it where the container has a place for it.
    /// libvips' own stays otherwise (HEIF, TIFF, a JPEG block too big for one segment, a simple
    /// WebP); the removed tags' fields are gone from it too.
    private static func splice(_ exif: ExifData, format: MediaFormat, into path: String) throws {
        let splicers: [MediaFormat: ([UInt8], ExifData) -> [UInt8]?] = [
            .jpeg: JPEGSegments.replacingExif, .webp: WebPChunks.replacingExif, .png: PNGChunks.replacingExif,
        ]
        guard let splice = splicers[format] else { return }
        let url = URL(fileURLWithPath: path)
        if let spliced = splice([UInt8](try Data(contentsOf: url)), exif) { try Data(spliced).write(to: url) }
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

    /// Saving is when a lazy libvips pipeline runs, so a truncated input fails here too: tell a
    /// decode failure from an encode or disk failure by what libvips says.
    static func classify(_ error: VipsError, writing relative: String) -> StageFailure {
        let message = error.message
        // The system's reasons only: libvips also says "unable to write to target" when a decoder
        // failed half way through the pipeline that was being saved.
        let writeFailures = ["No space left", "File too large", "Disk quota exceeded", "Permission denied", "Read-only file system"]
        if writeFailures.contains(where: message.contains) {
            return StageFailure(.writeFailed, "cannot write \(relative): \(message)")
        }
        if message.contains("save"), !message.contains("load") {
            return StageFailure(.encodeFailed, "cannot encode \(relative): \(message)")
        }
        return StageFailure(.decodeFailed, message)
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
