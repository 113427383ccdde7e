import Foundation
import MediaFormats
import PipelineModel
import RunState
import VipsKit

/// Decides, before admission, whether and how each item runs, in two parts. `read`, for several
/// items at once: refuse what must not be opened, check the size limit (from stat), ask the state
/// database, sniff the format, have the executor run the header stages and the stages' plan.
/// `settle`, in listing order on the listing thread: claim the planned outputs (so that of two
/// inputs for one output, the first listed keeps it) and admit.
struct HeaderPhase: Sendable {
    let pipeline: Pipeline
    let stages: [any PipelineStage]
    let executor: ItemExecutor
    let ledger: RunLedger
    let claims: OutputClaims
    let dryRun: Bool

    /// What `read` learnt of an item: it is decided, or its outputs are planned and to be claimed.
    enum Reading {
        case decided(PreparedItem)
        case planned(Planned)

        static func decided(_ result: ItemResult, _ findings: ItemFindings) -> Reading {
            .decided(PreparedItem.decided(result, findings))
        }
    }

    struct Planned {
        let item: ItemFindings
        let job: ItemJob
        let plan: ItemPlan
        let assessment: RunLedger.Assessment
        let note: String?
    }

    func read(_ input: InputItem) -> Reading {
        var item = ItemFindings(input: input)
        if let refusal = input.refusal {
            return .decided(refusal.isBroken ? item.failed(.unreadable, refusal.reason) : item.skipped(refusal.reason), item)
        }
        guard let stamp = FileStamp(path: input.path) else {
            let result = errno == ENOENT ? item.skipped("vanished after it was listed") : item.failed(.unreadable, "cannot read the file")
            return .decided(result, item)
        }
        item.bytesIn = Int(stamp.size)
        let limit = pipeline.limits.maxFileBytes
        guard item.bytesIn <= limit.bytes else {
            return .decided(item.failed(.fileTooLarge, "\(ByteSize.format(item.bytesIn)), over limits.maxFileBytes (\(limit))"), item)
        }
        let assessment: RunLedger.Assessment
        do {
            assessment = try ledger.assess(input, stamp: stamp) { fingerprints(input, $0) }
        } catch {
            return .decided(item.failed(.stateUnreadable, "cannot read the state database: \(error)"), item)
        }
        item.change = assessment.change
        if assessment.change == .unchanged, let previous = assessment.previous {
            ledger.markSeen(input.relativePath, stamp: stamp)
            return .decided(item.unchanged(previous, outputs: ledger.recordedOutputs(of: input.relativePath)), item)
        }
        return identify(item, stamp, assessment)
    }

    /// Sniffs and hashes the file, and checks that its format is one to read.
    private func identify(_ item: ItemFindings, _ stamp: FileStamp, _ assessment: RunLedger.Assessment) -> Reading {
        var item = item
        let input = item.input
        let contentHash: String?
        do {
            item.format = try FormatSniffer.format(of: input.path)
            // A dry run records nothing: it hashes only for a `{hash:N}` path (see `ItemContext`).
            contentHash = try assessment.contentHash ?? (dryRun ? nil : ContentHash.ofFile(atPath: input.path))
        } catch {
            return .decided(item.failed(.unreadable, "cannot read the file"), item)
        }
        item.entry = RunLedger.Entry(stamp: stamp, contentHash: contentHash, format: item.format, contentIdentifier: nil,
                                     fingerprints: fingerprints(input, item.format), pairedWith: input.rawJpegPair?.partner)
        guard let format = item.format else {
            guard MediaFormat.promised(byExtension: input.pathExtension) != nil else { return .decided(item.skipped("not a media file"), item) }
            let what = item.bytesIn == 0 ? "the file is empty" : "its content is not a recognised image or video format"
            return .decided(item.failed(.unsupportedFormat, "named .\(input.pathExtension) but \(what)"), item)
        }
        guard pipeline.input.formats.contains(format) else {
            return .decided(item.skipped("a \(format.rawValue) file, not in input.formats"), item)
        }
        if let pair = input.rawJpegPair, !pair.processed { return .decided(item.skipped(pair.skipReason), item) }
        var note: String?
        if let promised = FormatSniffer.contradiction(fileExtension: input.pathExtension, content: format) {
            let mismatch = "named .\(input.pathExtension) (\(promised.rawValue)) but its content is \(format.rawValue)"
            guard pipeline.input.extensionMismatch == .process else {
                let how = "(input.extensionMismatch: \"process\" reads it as \(format.rawValue))"
                return .decided(item.failed(.formatMismatch, "\(mismatch) \(how)"), item)
            }
            note = "\(mismatch): processed as \(format.rawValue)"
        }
        let job = ItemJob(input: input, format: format, bytesIn: item.bytesIn, contentHash: contentHash, listedModified: stamp.modifiedNanoseconds)
        return readHeader(item, job, assessment, note: note)
    }

    /// The executor's header stages and the stages' plan.
    private func readHeader(_ item: ItemFindings, _ job: ItemJob, _ assessment: RunLedger.Assessment, note: String?) -> Reading {
        var item = item
        let verdict = executor.header(job)
        item.kinds = verdict.kinds
        item.entry?.contentIdentifier = verdict.contentIdentifier
        item.entry?.caption = verdict.caption
        if let error = verdict.error { return .decided(item.failed(error), item) }
        if let reason = verdict.skipReason { return .decided(item.skipped(reason), item) }
        guard let plan = verdict.plan else { return .decided(item.failed(.workerCrashed, "the header phase planned nothing"), item) }
        item.entry?.upright = plan.upright
        return .planned(Planned(item: item, job: job, plan: plan, assessment: assessment, note: note))
    }

    /// In listing order: the output claims, then admission.
    func settle(_ reading: Reading) -> PreparedItem {
        switch reading {
        case .decided(let prepared): return prepared
        case .planned(let planned): return settle(planned)
        }
    }

    private func settle(_ planned: Planned) -> PreparedItem {
        var item = planned.item
        let (job, assessment) = (planned.job, planned.assessment)
        if let collision = claim(planned.plan, for: job.input) {
            executor.forget(job)
            return .decided(item.failed(.outputCollision, collision, stage: .write), item)
        }
        if assessment.outputsStandIfSelected, let previous = assessment.previous {
            // Only the filter changed and it still selects the item: its outputs stand.
            executor.forget(job)
            return standing(item, previous, ledger.recordedOutputs(of: job.input.relativePath), recording: nil)
        }
        item.note = planned.note
        return admit(item, job, planned.plan, assessment)
    }

    /// Claims the planned outputs; the reason when one is taken, or planned twice for the item.
    /// A path waiting for its output's hash is claimed once it has it (`claimNamed`). A RAW+JPEG
    /// pair's file that stands for the photo now (input.rawJpegPairs changed) takes over its partner's outputs.
    private func claim(_ plan: ItemPlan, for input: InputItem) -> String? {
        let paths = plan.paths.filter { !PathTemplate.awaitsOutputHash($0) }
        if let twice = Dictionary(grouping: paths, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            return "\(twice) would be written twice: write.path does not tell this item's outputs apart"
        }
        let successorOf = input.rawJpegPair.flatMap { pipeline.input.rawJpegPairs == .both ? nil : $0.partner }
        return claims.claim(paths, for: input.relativePath, successorOf: successorOf).map {
            "\($0.output) is already the output of \($0.holder)"
        }
    }

    /// After the pixel phase, on the lane: claims the outputs named by their hash (`{hash}`), of
    /// `planned` as written; the reason when another input holds one (its bytes are the same).
    func claimNamed(_ written: [WrittenOutput], planned: ItemPlan, for input: String) -> String? {
        let named = zip(planned.outputs.filter { $0.path != nil }, written)
            .filter { PathTemplate.awaitsOutputHash($0.0.path!) && !$0.0.reused }.map(\.1.path)
        guard !named.isEmpty else { return nil }
        return claims.claim(named, for: input).map { "\($0.output) is already the output of \($0.holder), with the same bytes" }
    }

    /// Outputs an earlier run wrote from the same recipe, still intact, are kept (a variant
    /// size or format was added, or a file went missing); when that is every one, nothing runs.
    private func admit(_ item: ItemFindings, _ job: ItemJob, _ plan: ItemPlan, _ assessment: RunLedger.Assessment) -> PreparedItem {
        var plan = plan
        if let change = item.change, [.pipelineChanged, .outputMissing, .outputAltered].contains(change), let entry = item.entry {
            for index in plan.outputs.indices {
                guard let path = ledger.reusablePath(of: plan.outputs[index], for: job.input.relativePath,
                                                     shared: entry.fingerprints.shared) else { continue }
                plan.outputs[index].reused = true
                plan.outputs[index].path = path
            }
            if let previous = assessment.previous, !plan.paths.isEmpty, plan.outputs.allSatisfy(\.reused) {
                executor.forget(job)
                return standing(item, previous, plan.paths, recording: plan.outputs)
            }
        }
        // A dry run decodes nothing, so it reserves nothing.
        if dryRun { plan.estimatedBytes = 0 }
        return PreparedItem(findings: item, decision: .admitted(job, plan))
    }

    /// The item's outputs stand as an earlier run wrote them: reported unchanged, recorded as
    /// done (by `RunRecorder`, with the item's new fingerprints) with `recording` as its outputs
    /// (nil: those recorded).
    private func standing(_ item: ItemFindings, _ previous: ItemRecord, _ outputs: [String], recording: [PlannedOutput]?) -> PreparedItem {
        var item = item
        item.change = .unchanged
        return PreparedItem(findings: item, decision: .standing(item.unchanged(previous, outputs: outputs), outputs: recording,
                                                                milliseconds: previous.milliseconds))
    }

    /// What an item's outputs and selection depend on, for its format (nil: not media).
    func fingerprints(_ input: InputItem, _ format: MediaFormat?) -> RunLedger.Fingerprints {
        var fingerprint = ItemFingerprint(recipe: [OutputVersion.current, "libvips \(Vips.version)"])
        for stage in stages { stage.fingerprint(&fingerprint, format: format) }
        if let pair = input.livePhoto, pair.role == .video {
            // The movie goes where its still goes, and is named after it.
            fingerprint.recipe.append("named after \(pair.partner)")
            let still = FileStamp(path: input.root.appending(path: pair.partner).path)
            fingerprint.selection.append("still \(still?.size ?? -1) \(still?.modifiedNanoseconds ?? -1)")
        }
        if let pair = input.rawJpegPair {
            // Which file of the pair stands for the photo changes with its partner and the policy.
            fingerprint.selection.append("\(pair.role.rawValue) paired with \(pair.partner), processed: \(pair.processed)")
        }
        // Its sidecars are copied with it and may date it; the library's zone places its times.
        // Outputs, not recipe: an edited sidecar is copied again, the photo's outputs kept.
        for sidecar in input.sidecars {
            let stamp = FileStamp(path: input.root.appending(path: sidecar.relativePath).path)
            fingerprint.outputs.append("sidecar \(sidecar.relativePath) \(stamp?.size ?? -1) \(stamp?.modifiedNanoseconds ?? -1)")
        }
        if !input.sidecars.isEmpty, pipeline.input.sidecars != Defaults.sidecars { fingerprint.outputs.append("sidecars \(pipeline.input.sidecars.rawValue)") }
        if let zone = pipeline.input.timeZone { fingerprint.outputs.append("timeZone \(zone.identifier)") }
        return .init(recipe: ContentHash.of((fingerprint.recipe + fingerprint.outputs).joined(separator: "\n")),
                     shared: ContentHash.of(fingerprint.recipe.joined(separator: "\n")),
                     selection: ContentHash.of(fingerprint.selection.joined(separator: "\n")))
    }
}
