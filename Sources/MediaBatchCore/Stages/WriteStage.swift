import Foundation
import MediaFormats
import PipelineModel
import RunState

extension StageName {
    public static let write = StageName("write")
}

/// Writes each planned output whole, for the run to publish: `ItemOutputs` makes each file (the
/// input's own bytes, its metadata edited, where no pixel changes; the picture encoded
/// otherwise), and this stage names them, refuses to write over the input, and stages them
/// together (`AtomicFile`) once the input is found unchanged. A path with `{hash}` is planned with
/// the placeholder and named once its file's bytes are known (the run claims it then).
struct WriteStage: PipelineStage, Equatable {
    var path = Self.defaultPath
    /// Where a movie's poster goes (with a `poster` stage): beside the movie's own output.
    var posterPath = Self.defaultPosterPath

    static let defaultPath = try! PathTemplate("{dir}/{stem}.{ext}")
    static let defaultPosterPath = try! PathTemplate("{dir}/{stem}.poster.{ext}")

    enum Keys {
        static let path = Key("path", .pathTemplate, .value(defaultPath),
                              "Output path relative to the output root: {dir}, {stem}, {ext}, {inputExt} (the input's own extension), "
                              + "{date:yyyy-MM-dd}, {hash} (the output's own bytes' SHA-256, 10 hex digits; {hash:N} for N, 4–64), "
                              + "{inputHash} (the input's; {inputHash:N}), and with variants {size}, {width}, {height}; {stem}, {hash} or "
                              + "{inputHash} required.")
        static let posterPath = Key("posterPath", .pathTemplate, .value(defaultPosterPath),
                                    "With a poster stage, where a movie's poster goes: the placeholders of path, {ext} the poster's format's.")
    }

    static let syntax = [StageSyntax(
        spelling: "write",
        help: "Writes each item's output atomically under the output root; the last stage.",
        options: [Keys.path.described, Keys.posterPath.described]) { object in
            WriteStage(path: try object.value(Keys.path), posterPath: try object.value(Keys.posterPath))
        }]

    static let placement = StagePlacement(rules: [], isLast: true)

    /// The poster's path only where it is not the default, so pipelines that do not name it keep the
    /// fingerprint their items were recorded with.
    var fingerprint: String {
        "write(\(path.text)\(posterPath.text == Self.defaultPosterPath.text ? "" : ",posterPath=\(posterPath.text)"))"
    }

    func explanation(among stages: [any Stage]) -> String? {
        path.text + (stages.contains { $0.name == .poster } ? ", posters at \(posterPath.text)" : "")
    }

    /// Every output of an item has a path of its own (and a RAW's from its JPEG's when both are
    /// processed): each stage that makes several outputs says what tells them apart.
    func checkAmong(_ context: StageListContext, index: Int, at reader: JSONReader) throws {
        let before = context.stages[...index]
        // Without `decode` every output is a copy under its input's own extension: a pair's files stay apart.
        let bothPairFilesEncoded = context.rawJpegPairs == .both && before.contains { $0.name == .decode }
        try checkNames(path, reader.child(Keys.path.name, .string(path.text)), context, bothPairFilesEncoded: bothPairFilesEncoded, posters: false)
        if before.contains(where: { $0.name == .poster }) {
            try checkNames(posterPath, reader.child(Keys.posterPath.name, .string(posterPath.text)), context, bothPairFilesEncoded: false, posters: true)
        }
    }

    private func checkNames(_ template: PathTemplate, _ reader: JSONReader, _ context: StageListContext, bothPairFilesEncoded: Bool,
                            posters: Bool) throws {
        if bothPairFilesEncoded, !template.uses("inputExt"), !template.awaitsOutputHash, !template.usesInputHash {
            throw reader.fail("with input.rawJpegPairs \"both\", a RAW and its JPEG would be written to the same file: "
                              + "expected {inputExt}, {hash} or {inputHash} in \"\(template.text)\"")
        }
        try context.checkNames(template, reader, posters: posters)
    }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard format != nil else { return }
        fingerprint.recipe.append(self.fingerprint)
    }

    /// Placed before any pixel is decoded, so that collisions are caught before work is spent
    /// (but for `{hash}`, which waits for the bytes); the item's sidecars beside them.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        plan.captured = item.facts.capture
        // A Live Photo's movie is dated by its still, as it is named after it: the two share a folder (the
        // still's header is read only when a folder depends on it).
        let dating = path.usesDate || posterPath.usesDate ? item.stillFacts?.capture ?? plan.captured : plan.captured
        for index in plan.outputs.indices {
            let template = plan.outputs[index].posterTime == nil ? path : posterPath
            plan.outputs[index].path = Self.relativeOutput(template, for: item, output: plan.outputs[index], captured: dating)
        }
        plan.outputs += Self.sidecars(beside: plan.outputs, of: item, editing: plan.metadataEdits)
        plan.sidecarsLeftBehind = Dictionary(item.sidecarFacts.problems.map { ($0.sidecar.relativePath, $0.reason) }) { first, _ in first }
    }

    /// With `input.sidecars: copy`, each readable sidecar beside every output that keeps the input's
    /// pixels, else beside the main (first) output, named after it in the sidecar's style; none beside
    /// an output named by its bytes' hash, whose name is not known before it is written; no XMP sidecar
    /// where `stripMetadata` removes the photo's XMP.
    private static func sidecars(beside outputs: [PlannedOutput], of item: ItemContext, editing edits: [MetadataEdit]) -> [PlannedOutput] {
        let dropsXMP = edits.contains { if case .remove(let groups) = $0 { return groups.contains(.xmp) } else { return false } }
        let sidecars = item.environment.sidecars == .copy ? item.sidecarFacts.readable.filter { !dropsXMP || $0.match.kind != .xmp } : []
        guard !sidecars.isEmpty else { return [] }
        let copies = outputs.filter { $0.isCopy(of: item.format) }
        return (copies.isEmpty ? Array(outputs.prefix(1)) : copies).filter { !PathTemplate.awaitsOutputHash($0.path!) }.flatMap { output in
            sidecars.map { sidecar in
                let stamp = FileStamp(path: item.input.root.appending(path: sidecar.relativePath).path)
                var copy = PlannedOutput(format: output.format, quality: 0, effort: nil,
                                         content: .sidecar(sidecar, stamp: "\(stamp?.size ?? -1) \(stamp?.modifiedNanoseconds ?? -1)"))
                let folder = (output.path! as NSString).deletingLastPathComponent
                let name = SidecarNaming.name(for: sidecar.match, outputName: (output.path! as NSString).lastPathComponent)
                copy.path = folder.isEmpty ? name : folder + "/" + name
                return copy
            }
        }
    }

    /// The report's and the manifest's `sidecars`: each copy written (`path`, from `source`), and each
    /// sidecar left behind with why (`source`, `error`); nil when the item has none.
    private static func sidecarReading(_ outputs: [PlannedOutput], _ plan: ItemPlan) -> JSONValue? {
        let written: [JSONValue] = outputs.compactMap { output in
            output.sidecar.map { .object(["path": .string(output.path ?? ""), "source": .string($0.0.relativePath)]) }
        }
        let problems: [JSONValue] = plan.sidecarsLeftBehind.sorted { $0.key < $1.key }.map {
            .object(["source": .string($0.key), "error": .string($0.value)])
        }
        return written.isEmpty && problems.isEmpty ? nil : .array(written + problems)
    }

    /// Every output of the item or none (see `AtomicFile`); outputs an earlier run wrote from
    /// the same recipe are left as they are.
    func run(_ item: ItemContext, _ plan: ItemPlan, _ outcome: inout PixelOutcome) throws {
        let environment = item.environment
        let placed = plan.outputs.indices.filter { plan.outputs[$0].path != nil }
        var planned = placed.map { plan.outputs[$0] }
        let fresh = planned.indices.filter { !planned[$0].reused }
        for index in fresh where !PathTemplate.awaitsOutputHash(planned[index].path!) { try Self.refuseOverwritingInput(planned[index].path!, item) }
        for index in fresh { try Self.refuseTooLarge(planned[index], item.format) }
        let cache = RenditionCache(folder: environment.renditionFolder)
        // What was kept goes if the movie fails; once it is published else (`StagedFile.keptCopy`): a
        // run killed in between, even with the item staged, leaves it for the rerun.
        var handedOver = false
        defer { if !handedOver { cache.forget(item, planned.compactMap(\.rendition)) } }
        let outputs = ItemOutputs(item, plan, making: fresh.map { planned[$0] }, renditionCache: cache)
        var hashes: [Int: String] = [:]
        let files = fresh.map { index in
            AtomicFile.File(relativePath: planned[index].path!) { temporary in
                let hash = try Self.make(planned[index], with: outputs, at: temporary)
                hashes[index] = hash
                let taken = fresh.compactMap { other in other == index ? nil : hashes[other].map { PathTemplate.resolvingOutputHash(planned[other].path!, hash: $0) } }
                return try Self.name(planned[index].path!, hash: hash, item, taken: taken)
            }
        }
        var placeholder: String?
        // The placeholder comes from the pictures just rendered; its failure stages nothing.
        let staged = try AtomicFile.stage(files, under: environment.outputRoot, via: environment.temporaryFolder) {
            try item.requireUnchanged()
            placeholder = try outputs.placeholder()
            if !environment.photoReaders.isEmpty { item.renderedPhoto = try outputs.wholePhoto() }
        }
        let renditions = fresh.map { planned[$0].rendition }
        for (index, file) in zip(fresh, staged) {
            let path = planned[index].path!
            planned[index].gainMapLeftOut = outputs.gainMapsLeftOut.contains(path)
            planned[index].movie?.codecs = outputs.renditionCodecs[path]
            planned[index].path = file.relativePath
        }
        outcome.outputs = planned.indices.map { index in
            let output = planned[index], bytes = staged.first { $0.relativePath == output.path }?.bytes
            return WrittenOutput(planned: output, planIndex: placed[index],
                                 bytes: bytes ?? Self.size(of: output.path!, under: environment.outputRoot), contentHash: hashes[index])
        }
        outcome.readings[MediaFacts.Capture.readingKey] = plan.captured?.reading
        outcome.readings[Sidecar.readingKey] = Self.sidecarReading(planned, plan)
        outcome.removedMetadata = outputs.removedMetadata
        outcome.placeholder = placeholder
        outcome.rawSource = outputs.rawSource
        outcome.decoder = outputs.decoder
        outcome.staged = Self.keepingCopies(staged, of: renditions, item, cache)
        handedOver = true
    }

    /// The staged files, each rendition's naming its copy in `cache`, which publishing it removes.
    private static func keepingCopies(_ staged: [StagedFile], of renditions: [VideoRendition?], _ item: ItemContext,
                                      _ cache: RenditionCache) -> [StagedFile] {
        var files = staged
        for position in files.indices {
            if let rendition = renditions[position] { files[position].keptCopy = cache.path(item, rendition) }
        }
        return files
    }

    /// An output's path once its bytes are written: `{hash:N}` filled in from their `hash`, checked
    /// against the input and against the paths of the item's outputs already written (`taken`:
    /// byte-identical outputs would be one file). Nil where the planned path stands.
    private static func name(_ path: String, hash: String, _ item: ItemContext, taken: [String]) throws -> String? {
        guard PathTemplate.awaitsOutputHash(path) else { return nil }
        let named = PathTemplate.resolvingOutputHash(path, hash: hash)
        try refuseOverwritingInput(named, item)
        guard !taken.contains(named) else {
            throw StageFailure(.outputCollision, "\(named) would be written twice: two of this item's outputs have the same bytes")
        }
        return named
    }

    private static func refuseOverwritingInput(_ relative: String, _ item: ItemContext) throws {
        // The same file whatever links and dots its path takes, one stat each: a path that names no file is not the input.
        var destination = stat(), input = stat()
        guard stat(item.environment.outputRoot.appending(path: relative).path, &destination) == 0, stat(item.input.path, &input) == 0,
              destination.st_dev == input.st_dev, destination.st_ino == input.st_ino else { return }
        throw StageFailure(.wouldOverwriteInput, "refusing to write \(relative) over its own input")
    }

    /// Before a pixel is decoded: a picture its format cannot hold fails the item, naming both (an
    /// encoder would refuse it unnamed, or write it broken).
    private static func refuseTooLarge(_ output: PlannedOutput, _ input: MediaFormat) throws {
        guard !output.isCopy(of: input), let size = output.variant?.pixels ?? output.picture?.size,
              let limit = output.format.row.encoder?.maxSide, size.longestSide > limit else { return }
        throw StageFailure(.tooLargeForFormat, "cannot write \(output.path ?? ""): \(output.format.rawValue) holds at most \(limit) pixels a "
                           + "side, and this picture would be \(size.width)×\(size.height); downsample it to \(limit) or less first")
    }

    /// Makes one output's file, turning a failure to write it into the item's reason; returns
    /// the SHA-256 of the bytes written.
    private static func make(_ output: PlannedOutput, with outputs: ItemOutputs, at temporary: String) throws -> String {
        do {
            return try outputs.write(output, to: temporary)
        } catch let failure as StageFailure {
            throw failure
        } catch let full as OutputVolumeFull {
            throw StageFailure(.diskFull, "cannot write \(output.path ?? ""): no space left on the output volume "
                               + "(the file needed \(ByteSize(bytes: full.neededBytes)))")
        } catch {
            throw StageFailure(.writeFailed, "cannot write \(output.path ?? ""): \(systemReason(error))")
        }
    }

    private static func size(of relative: String, under root: URL) -> Int {
        Int(FileStamp(path: root.appending(path: relative).path)?.size ?? 0)
    }

    /// Where an output goes, relative to the output root. A Live Photo's movie is named after
    /// its still, so the pair stays a pair whatever the still becomes. A copy keeps the input's
    /// own extension as written (`photo.jpeg`, `IMG_0001.HEIC`); an encoded output takes its
    /// format's.
    private static func relativeOutput(_ template: PathTemplate, for item: ItemContext, output: PlannedOutput,
                                       captured: MediaFacts.Capture?) -> String {
        let input = item.input
        let namedAfter = input.livePhoto.flatMap { pair in
            pair.role == .video ? InputItem(root: input.root, relativePath: pair.partner) : nil
        } ?? input
        return template.render(PathTemplate.Values(
            dir: namedAfter.relativeFolder, stem: namedAfter.stem, ext: fileExtension(of: output, for: item),
            inputExt: namedAfter.pathExtension,
            captured: captured.map { ($0.date, $0.utcOffsetSeconds) },
            inputHash: template.usesInputHash ? item.contentHash : nil, // a dry run hashes only for this
            size: output.variant?.size, width: output.variant?.pixels.width, height: output.variant?.pixels.height,
            codec: output.rendition?.rendition.codec.rawValue))
    }

    /// The input's own extension for a copy whose name tells its format truly (a `.3g2`, a `.MOV`
    /// that is an MP4: one container family); the format's otherwise.
    private static func fileExtension(of output: PlannedOutput, for item: ItemContext) -> String {
        let own = (item.input.relativePath as NSString).pathExtension
        guard output.isCopy(of: item.format), MediaFormat.promised(byExtension: own) != nil,
              FormatSniffer.contradiction(fileExtension: own, content: item.format) == nil else { return output.format.fileExtension }
        return own
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

extension ValueSyntax where Value == PathTemplate {
    static let pathTemplate = ValueSyntax(schema: PathTemplate.schema, read: { reader in
        do {
            return try PathTemplate(reader.string())
        } catch let error as PathTemplate.TemplateError {
            throw reader.fail(error.message)
        }
    }, json: { .string($0.text) })
}
