import MediaFormats
import PipelineModel

extension StageName {
    public static let stripMetadata = StageName("stripMetadata")
}

/// Removes metadata from every output: the groups a pipeline names (`stripLocation`: location
/// only; everything else stays: camera, capture date, copyright, the Live Photo content
/// identifier), or, with a keep-list, everything but what it names. The edit is planned here and
/// applied by `write` to every copy of every block: in the file's own container, in place, when no
/// pixel changes (nothing else in the file moves or is encoded again); into the encoder's file
/// otherwise. A movie loses its location in either case.
///
/// A keep-list that drops the ICC profile or the orientation tag first makes the pictures what a
/// reader assumes without them: sRGB without a profile, and upright.
struct StripMetadataStage: PipelineStage, Equatable {
    var edit: MetadataEdit

    enum Keys {
        static let remove = Key("remove", ValueSyntax<MetadataGroup>.choice("a metadata group").list(minItems: 1, empty: "expected at least one metadata group"),
                                .noDefault, "The groups removed; what is not named stays. Not with keep.")
        static let keep = Key("keep", ValueSyntax<KeptMetadata>.choice("kept metadata").distinctList(of: "name", allowingEmpty: true), .noDefault,
                              "All that stays (copyright, icc, orientation, camera, date, livePhoto, xmp, iptc); everything else goes, "
                              + "location always. An empty list keeps nothing. Not with remove.")
    }

    static let syntax = [
        StageSyntax(
            spelling: "stripMetadata",
            help: "Removes metadata: the groups remove names (what is not named stays), or all but what keep names.",
            options: [Keys.remove.described, Keys.keep.described], exclusive: [Keys.remove.name, Keys.keep.name]) { object in
                let remove = try object.optionalValue(Keys.remove), keep = try object.optionalValue(Keys.keep)
                switch (remove, keep) {
                case (let remove?, nil): return StripMetadataStage(edit: .remove(Set(remove)))
                case (nil, let keep?): return StripMetadataStage(edit: .keep(Set(keep)))
                case (nil, nil): throw object.reader.fail("expected \"remove\" (the groups that go) or \"keep\" (all that stays)")
                case (.some, .some):
                    throw try object.required(Keys.keep.name)
                        .fail("keep and remove cannot be combined: keep names all that stays, remove what goes")
                }
            },
        StageSyntax(
            spelling: "stripLocation", name: .stripMetadata,
            help: "stripMetadata with remove: [\"location\"]: GPS, place names and QuickTime location go; everything else stays.",
            options: []) { _ in StripMetadataStage(edit: .remove([.location])) },
    ]

    static let placement = StagePlacement(needsLast: true)

    /// A keep-list that drops the profile or the orientation converts or turns the pictures, so
    /// needs a `decode` before it; any other edit is applied to the file as it is.
    var placement: StagePlacement {
        guard case .keep(let kept) = edit, !kept.isSuperset(of: [.icc, .orientation]) else { return Self.placement }
        var placement = Self.placement
        placement.rules = [.after(.decode, why: " (a keep-list without icc or orientation converts or turns the pictures)"), .notAfterLast]
        return placement
    }

    var fingerprint: String {
        switch edit {
        case .remove(let groups): return "stripMetadata(\(groups.map(\.rawValue).sorted().joined(separator: ",")))"
        case .keep(let kept): return "stripMetadata(keep:\(kept.map(\.rawValue).sorted().joined(separator: ",")))"
        }
    }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard format != nil else { return }
        fingerprint.recipe.append(self.fingerprint)
    }

    /// A still copied with its metadata edited is held in memory twice, as read and as rewritten.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        plan.metadataEdits.append(edit)
        if !item.format.isVideo, plan.outputs.contains(where: { $0.isCopy(of: item.format) }) {
            plan.estimatedBytes = max(plan.estimatedBytes, CostEstimator.copyBytes + 2 * item.bytesIn)
        }
        guard case .keep(let kept) = edit else { return }
        if !kept.contains(.icc) { plan.mapPictures { $0.withoutProfile() } }
        if !kept.contains(.orientation) { plan.mapPictures { $0.turnedUpright() } }
    }
}
