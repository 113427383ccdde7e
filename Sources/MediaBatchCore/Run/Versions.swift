/// mediabatch's release: `mediabatch --version` prints it, and reports and the state database
/// record which release wrote them.
public enum MediaBatchVersion {
    public static let current = "0.1.0"
}

/// mediabatch's version as far as outputs go: bump it when a change makes the same input and
/// pipeline give different outputs, so that the state database redoes them. 2: every output's
/// metadata written by mediabatch (MakerNotes and every block in PNG, WebP, HEIF and TIFF too).
/// 3: an image no stage changes a pixel of is its input's bytes, edited in place, under its own
/// extension (before: encoded again); PNG text compressed by zlib.
public enum OutputVersion {
    public static let current = "mediabatch-output-3"
}
