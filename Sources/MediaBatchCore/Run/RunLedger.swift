import Foundation
import MediaFormats
import PipelineModel
import RunState

/// The state database as one run sees it: what an item's last decision was and whether it still
/// stands, and the record of each new decision (prepared on the item's lane, committed in batches).
final class RunLedger: @unchecked Sendable {
    /// What an item's decision depends on beyond its bytes.
    struct Fingerprints {
        /// The output version and every stage that applies to it.
        let recipe: String
        /// What every output of the item shares: the recipe but for which outputs there are.
        let shared: String
        /// The filter (and, for a Live Photo movie kept with its still, the still's stamp).
        let selection: String
    }

    struct Assessment {
        let stamp: FileStamp
        /// Set when the content had to be hashed to compare it.
        let contentHash: String?
        let previous: ItemRecord?
        let change: ItemChange
        /// Only the filter changed: if it still selects the item, the outputs stand.
        let outputsStandIfSelected: Bool
    }

    /// What is recorded for an item besides its result.
    struct Entry {
        let stamp: FileStamp
        /// Nil in a dry run, which records nothing.
        let contentHash: String?
        let format: MediaFormat?
        /// Known once the header has been read.
        var contentIdentifier: String?
        let fingerprints: Fingerprints
        /// An image's size as shown, once planned.
        var upright: PixelSize?
        /// Its placeholder, once its variants are made.
        var placeholder: String?
        /// What stages read of it (`ItemResult.readings`), once made.
        var readings: [String: JSONValue] = [:]
        /// A photo's own caption, once its header is read.
        var caption: String?
        /// The other file of a camera's RAW+JPEG pair.
        var pairedWith: String?
    }

    private let store: StateStore?
    private let run: Int64
    private let outputRoot: URL
    private let force: Bool
    private let prune: Bool
    private let writes: Bool
    private let durability: Durability
    private let lock = NSLock()
    private var seen: [(input: String, stamp: FileStamp)] = []

    /// `store` is nil for a dry run over an output root that has no database yet.
    init(store: StateStore?, run: Int64, outputRoot: URL, force: Bool, prune: Bool, writes: Bool, durability: Durability = .full) {
        self.store = store
        self.run = run
        self.outputRoot = outputRoot
        self.force = force
        self.prune = prune
        self.writes = writes
        self.durability = durability
    }

    /// Compares the item with its last decision, reading nothing of it but its stamp unless the
    /// stamp changed.
    ///
    /// - Throws: when the database cannot be read: an item it cannot say anything about is not
    ///   new (taking it for one would redo it over outputs the database may still own).
    func assess(_ input: InputItem, stamp: FileStamp, fingerprints: (MediaFormat?) -> Fingerprints) throws -> Assessment {
        func verdict(_ change: ItemChange, hash: String? = nil, previous: ItemRecord? = nil, standIfSelected: Bool = false) -> Assessment {
            Assessment(stamp: stamp, contentHash: hash, previous: previous, change: change, outputsStandIfSelected: standIfSelected)
        }
        guard let previous = try store?.item(input.relativePath) else { return verdict(.new) }
        var hash: String?
        if previous.stamp != stamp {
            hash = try? ContentHash.ofFile(atPath: input.path)
            guard hash == previous.contentHash else { return verdict(.inputChanged, hash: hash, previous: previous) }
        }
        if force { return verdict(.forced, hash: hash, previous: previous) }
        if previous.status == .failed { return verdict(.failedBefore, hash: hash, previous: previous) }
        let current = fingerprints(previous.format.flatMap(MediaFormat.init(rawValue:)))
        guard previous.recipe == current.recipe else { return verdict(.pipelineChanged, hash: hash, previous: previous) }
        if previous.status == .ok, let damage = try outputDamage(of: input.relativePath) {
            return verdict(damage, hash: hash, previous: previous)
        }
        guard previous.selection == current.selection else {
            return verdict(.pipelineChanged, hash: hash, previous: previous, standIfSelected: previous.status == .ok)
        }
        return verdict(.unchanged, hash: hash, previous: previous)
    }

    /// Missing or altered outputs of the item's last run, if any.
    private func outputDamage(of input: String) throws -> ItemChange? {
        (try store?.outputs(of: input) ?? []).lazy.compactMap(damage(of:)).first
    }

    private func damage(of output: OutputRecord) -> ItemChange? {
        let path = outputRoot.appending(path: output.path).path
        guard let stamp = FileStamp(path: path) else { return .outputMissing }
        if stamp != output.stamp, (try? ContentHash.ofFile(atPath: path)) != output.contentHash { return .outputAltered }
        return nil
    }

    /// Whether an earlier run wrote `output` for `input` from the same recipe, and it is still as written.
    func reusablePath(of output: PlannedOutput, for input: String, shared: String) -> String? {
        guard let path = output.path else { return nil }
        // A name waiting for its file's hash is the one an earlier output of the same recipe got from its own.
        let candidates = PathTemplate.awaitsOutputHash(path)
            ? ((try? store?.outputs(of: input)) ?? []).filter { PathTemplate.resolvingOutputHash(path, hash: $0.contentHash) == $0.path }
            : ((try? store?.output(path)) ?? nil).map { [$0] } ?? []
        let recipe = Self.recipe(of: output, shared: shared)
        return candidates.first { $0.input == input && !$0.stale && $0.recipe == recipe && damage(of: $0) == nil }?.path
    }

    private static func recipe(of output: PlannedOutput, shared: String) -> String {
        ContentHash.of(shared + "\n" + output.spec)
    }

    /// Every item whose outputs stand, with them, in input order, read as it is written.
    var manifestItems: ManifestStream {
        { [store] body in try store?.forEachProducedOutput { try body(Manifest.item($0, $1)) } }
    }

    /// The outputs the last run recorded for `input`, relative to the output root.
    func recordedOutputs(of input: String) -> [String] {
        ((try? store?.outputs(of: input)) ?? []).map(\.path)
    }

    /// What pairing needs of an unchanged file, from the last run instead of its header.
    func knownHalf(_ item: InputItem) -> LivePhotoPairer.KnownHalf? {
        guard let stamp = FileStamp(path: item.path), let previous = try? store?.item(item.relativePath),
              previous.stamp == stamp, previous.status != .failed else { return nil }
        return LivePhotoPairer.KnownHalf(format: previous.format.flatMap(MediaFormat.init(rawValue:)),
                                         contentIdentifier: previous.contentIdentifier)
    }

    /// The input an earlier run wrote each of `outputs` for, while that input is still there. A
    /// database that cannot be read owns every output itself: a claim on one fails rather than
    /// risk writing over another input's output.
    func recordedOwners(ofOutputs outputs: [String], inputRoot: URL) -> [String?] {
        let records: [String: OutputRecord]
        do {
            records = try store?.outputs(atPaths: outputs) ?? [:]
        } catch {
            return outputs.map { _ in "the state database, which cannot be read (\(error))" }
        }
        return outputs.map { output in
            records[output].map(\.input).flatMap { FileManager.default.fileExists(atPath: inputRoot.appending(path: $0).path) ? $0 : nil }
        }
    }

    /// The last decision stands: remember that this run saw the item (batched).
    func markSeen(_ input: String, stamp: FileStamp) {
        guard writes, store != nil else { return }
        lock.lock()
        seen.append((input, stamp))
        let batch = seen.count >= 512 ? seen : []
        if !batch.isEmpty { seen.removeAll(keepingCapacity: true) }
        lock.unlock()
        try? store?.markSeen(batch, run: run)
    }

    /// A decision ready to be committed with others: its outputs stat'ed and hashed.
    struct PendingRecord {
        let item: ItemRecord
        let outputs: [OutputRecord]?
    }

    /// What `commit` will record for a decision; nil when nothing is (a dry run). Reads the
    /// database and hashes the outputs `hashes` (by path) has no hash of, so it runs on the
    /// item's own lane, not in the commit. A `staged` output is stamped as it waits to be
    /// published (the rename keeps its size and time).
    func prepare(_ input: String, _ entry: Entry, status: ItemRecord.Status, outputs: [PlannedOutput]?, hashes: [String: String],
                 staged: [StagedFile],
                 reason: String?, error: ItemResult.ErrorInfo?, milliseconds: Int) throws -> PendingRecord? {
        guard writes, let store, let contentHash = entry.contentHash else { return nil }
        let previous = try store.item(input)
        var record = ItemRecord(
            input: input, stamp: entry.stamp, contentHash: contentHash, format: entry.format?.rawValue,
            contentIdentifier: entry.contentIdentifier, recipe: entry.fingerprints.recipe,
            selection: entry.fingerprints.selection, status: status, reason: reason ?? error?.message,
            errorCode: error?.code.rawValue, errorStage: error?.stage, milliseconds: milliseconds, run: run)
        record.width = entry.upright?.width ?? previous?.width
        record.height = entry.upright?.height ?? previous?.height
        // Variants all kept from an earlier run make no new placeholder: the recorded one stands.
        record.placeholder = entry.placeholder ?? previous?.placeholder
        // Outputs all kept read nothing again: what was read stands.
        record.readings = Readings.text(entry.readings) ?? previous?.readings
        record.caption = entry.caption
        record.pairedWith = entry.pairedWith
        let recorded = try store.outputs(atPaths: outputs?.compactMap(\.path) ?? [])
        return PendingRecord(item: record, outputs: try outputs?.map { output in
            try outputRecord(output, of: input, shared: entry.fingerprints.shared, hash: output.path.flatMap { hashes[$0] },
                             staged: staged.first { $0.relativePath == output.path }, recorded: output.path.flatMap { recorded[$0] })
        })
    }

    /// Records prepared decisions in one transaction; for each, its earlier outputs it no longer
    /// produces (removed with `--prune`).
    func commit(_ records: [PendingRecord]) throws -> [[String]] {
        guard let store, !records.isEmpty else { return records.map { _ in [] } }
        // The renames this batch records reach the disk first (see `Durability`).
        try durability.syncFolders(of: records.flatMap { $0.outputs ?? [] }.map(\.path), under: outputRoot)
        // An output one item gives up and another writes in the same batch (a RAW+JPEG pair's
        // outputs changing hands) is not stale.
        let written = Set(records.flatMap { $0.outputs ?? [] }.map(\.path))
        let stale = try store.record(records.map { ($0.item, $0.outputs) }).map { $0.filter { !written.contains($0.path) } }
        if prune { stale.joined().forEach(removeOutput) }
        return stale.map { $0.map(\.path) }
    }

    /// An output as written, hashed unless its hash is known (from the bytes written) or its
    /// recorded stamp shows it untouched since.
    private func outputRecord(_ output: PlannedOutput, of input: String, shared: String, hash: String?,
                              staged: StagedFile?, recorded: OutputRecord?) throws -> OutputRecord {
        let relative = output.path ?? ""
        let path = staged?.temporaryPath ?? outputRoot.appending(path: relative).path
        guard let stamp = FileStamp(path: path) else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        let earlier = recorded.flatMap { $0.stamp == stamp && $0.input == input ? $0 : nil }
        let recorded = hash ?? earlier?.contentHash
        var record = OutputRecord(path: relative, input: input, contentHash: try recorded ?? ContentHash.ofFile(atPath: path), stamp: stamp)
        record.recipe = Self.recipe(of: output, shared: shared)
        record.format = output.formatName
        record.variant = output.variant?.size
        record.width = output.variant?.pixels.width
        record.height = output.variant?.pixels.height
        record.gainMap = output.carriesGainMap ? true : nil
        record.role = output.role?.rawValue
        if let picture = output.picture, output.variant == nil { (record.width, record.height) = (picture.size.width, picture.size.height) }
        record.frames = output.animation?.frames
        record.duration = output.animation?.duration ?? output.movie?.seconds
        if let movie = output.movie { (record.width, record.height, record.codec) = (movie.size.width, movie.size.height, movie.codec) }
        // A rendition kept from an earlier run keeps the codecs that run read from it.
        record.codecs = output.movie?.codecs ?? (output.rendition != nil ? earlier?.codecs : nil)
        return record
    }

    /// After a run that listed every input: the outputs of inputs that vanished (or left the
    /// shard or the include globs), removed with `--prune` and forgotten.
    func finish() -> [OrphanedOutputs] {
        guard writes, let store else { return [] }
        lock.lock()
        let batch = seen
        seen.removeAll()
        lock.unlock()
        try? store.markSeen(batch, run: run)
        let unseen = (try? store.unseen(by: run)) ?? []
        if prune {
            for path in unseen.flatMap(\.outputs) { OutputTree.remove(path, under: outputRoot) }
            try? store.forget(inputs: unseen.map(\.input))
        }
        let orphans = unseen.filter { !$0.outputs.isEmpty || prune }
            .map { OrphanedOutputs(input: $0.input, outputs: $0.outputs, removed: prune) }
        if prune {
            for output in (try? store.staleOutputs()) ?? [] { removeOutput(output) }
        }
        return orphans
    }

    /// Outputs no longer produced by their input, still on disk (without `--prune`).
    func staleOutputs() -> [String] {
        ((try? store?.staleOutputs()) ?? []).map(\.path)
    }

    private func removeOutput(_ output: OutputRecord) {
        OutputTree.remove(output.path, under: outputRoot)
        try? store?.forget(output: output.path)
    }
}
