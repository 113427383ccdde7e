import Foundation

/// What `PipelineRunner.run` leaves: the summary, every item's result in the spool, read back in
/// input order as the reports and a dry run's listing are written, and the manifest, read from the
/// state database as it is written. The spool goes when this does.
public final class FinishedRun {
    public let summary: RunSummary
    private let spool: ResultSpool
    private let spoolFolder: URL?
    /// With `options.makesManifest`, unless a dry run: every item's outputs as the state database records them.
    public let manifest: ManifestStream?
    /// The output volume filled up and the run stopped admitting items (see `RunRecorder`).
    public let stoppedByFullDisk: Bool
    /// How many items in a row failing `diskFull` stop a run.
    public static let fullDiskStreak = RunRecorder.fullDiskStreak

    /// `spoolFolder`: removed with the spool when it is the run's own (a dry run's).
    init(summary: RunSummary, spool: ResultSpool, removing spoolFolder: URL?, manifest: ManifestStream?, stoppedByFullDisk: Bool = false) {
        self.summary = summary
        self.spool = spool
        self.spoolFolder = spoolFolder
        self.manifest = manifest
        self.stoppedByFullDisk = stoppedByFullDisk
    }

    deinit {
        spool.remove()
        if let spoolFolder { rmdir(spoolFolder.path) }
    }

    /// Every item's result, in input order.
    public var items: ItemStream {
        { [spool] body in try spool.forEachInOrder(body) }
    }
}
