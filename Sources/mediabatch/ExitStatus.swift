import Foundation

/// The exit codes mediabatch documents besides 0 (130 and 143 come from the signal that stopped a run).
enum ExitStatus {
    static let itemsFailed: Int32 = 1
    static let invalid: Int32 = 2
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
