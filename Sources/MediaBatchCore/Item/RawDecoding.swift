import PipelineModel

/// Where a camera RAW's picture comes from, decided from its header and the largest picture the
/// stages planned: its embedded preview, or LibRaw's develop of the sensor data (at half size
/// where that is enough). Sizes are upright; a develop's is the full sensor's.
struct RawDecoding: Codable, Hashable, Sendable {
    /// `decode`'s `raw`.
    let mode: DecodeStage.RawSource
    /// What a full-size develop makes, upright.
    let developed: PixelSize
    /// The embedded JPEG preview LibRaw chooses, upright; nil when the RAW has none.
    let preview: PixelSize?
    /// Why a develop would fail, known from the header (the file is cut off): it is not tried.
    var undevelopable: String? = nil
    /// EXIF's 1...8: how the RAW is turned upright (its develop is by LibRaw; its preview, stored
    /// as the sensor is, by this alone, whatever tag the JPEG carries).
    let orientation: Int

    enum Choice: Equatable {
        case preview
        case develop(halfSize: Bool)
    }

    /// For pictures whose largest is `needed` on its longest side (nil: the whole picture):
    /// `auto` takes the preview when it is at least that large; a develop is half-size when
    /// half the sensor's size is enough.
    func choice(needing needed: Int?) -> Choice {
        let needed = needed ?? developed.longestSide
        if mode == .preview || mode == .auto && previewCovers(needed) { return .preview }
        return developing(needed)
    }

    /// A develop for pictures of `needed` px at most: at half size where that is enough.
    func developing(_ needed: Int) -> Choice {
        .develop(halfSize: needed <= developed.longestSide / 2)
    }

    /// How many times smaller libjpeg may decode the preview (1, 2, 4 or 8) and still cover
    /// `needed` on its longest side (libjpeg rounds its sides up).
    func previewShrink(needing needed: Int) -> Int {
        let longest = preview?.longestSide ?? 0
        return [8, 4, 2].first { (longest + $0 - 1) / $0 >= needed } ?? 1
    }

    /// The preview is at least `needed` on its longest side.
    func previewCovers(_ needed: Int) -> Bool {
        (preview?.longestSide ?? 0) >= needed
    }
}
