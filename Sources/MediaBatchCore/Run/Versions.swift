/// mediabatch's release: `mediabatch --version` prints it, and reports and the state database
/// record which release wrote them.
public enum MediaBatchVersion {
    public static let current = "0.1.0"
}

/// mediabatch's version as far as outputs go: bump it when a change makes the same input and
/// pipeline give different outputs, so that the state database redoes them (it is part of every
/// item's fingerprint). CHANGELOG.md says what each bump changed.
public enum OutputVersion {
    public static let current = "mediabatch-output-3"
}
