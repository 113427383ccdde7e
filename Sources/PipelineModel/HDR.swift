import MediaFormats

/// What becomes of an HDR photo's gain map in the outputs of `transcode` and `variants`.
public enum HDR: String, CaseIterable, Codable, Sendable {
    /// Written where the output format carries one (JPEG, as Ultra HDR), resized with the picture.
    case keep
    /// SDR only: smaller files.
    case drop

    /// What becomes of an HDR photo's gain map in `formats`, for `validate`.
    public func explanation(formats: [MediaFormat]) -> String {
        let carrying = formats.filter(\.carriesGainMap).map(\.rawValue)
        switch self {
        case .drop: return "gain maps dropped (SDR only)"
        case .keep where carrying.isEmpty: return "gain maps dropped: \(formats.map(\.rawValue).joined(separator: ", ")) carries none"
        case .keep: return "gain maps kept in \(carrying.joined(separator: ", ")) (Ultra HDR), resized with the picture"
        }
    }

    /// Empty for the default, so pipelines that do not name `hdr` keep the fingerprint their items
    /// were recorded with.
    public var fingerprint: String { self == Defaults.hdr ? "" : ",hdr=\(rawValue)" }
}

/// `hdr`, of the stages that encode pictures.
public enum HDRKeys {
    public static let hdr = Key("hdr", ValueSyntax<HDR>.choice("keep or drop"), .value(Defaults.hdr),
                                "An HDR photo's gain map: keep writes it where the output format carries one (JPEG, as Ultra HDR: "
                                + "SDR viewers see the same picture, HDR screens brighter highlights), resized with the picture; "
                                + "drop writes SDR only, smaller.")
}
