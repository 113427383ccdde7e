import Foundation

/// Reference implementations from PyPI, for tests that compare mediabatch's own code with
/// them: `scripts/test-python.sh` installs them, pinned, into a venv under `.build/` (one per
/// Python version, so a Debian 13 root sharing the checkout gets its own).
public enum PythonReference {
    /// The venv's python, made on first use; checked once a test process (the check imports every
    /// package, as long as the reference's own run).
    public static func python() throws -> String {
        try venvPython.get()
    }

    private static let venvPython = Result<String, Error> {
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/test-python.sh").path
        let result = try runProcess(script, [])
        try check(result)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `script` with `arguments` in the venv and returns what it printed.
    public static func run(_ script: String, _ arguments: [String] = []) throws -> String {
        let result = try runProcess(try python(), ["-c", script] + arguments)
        try check(result)
        return result.stdout
    }

    /// Runs `script` with the system's python3 and its standard library alone (zlib, struct): for
    /// references that need no package, so no venv is made.
    public static func runStandardLibrary(_ script: String, _ arguments: [String] = []) throws -> String {
        let result = try runProcess("python3", ["-c", script] + arguments)
        try check(result)
        return result.stdout
    }

    private static func check(_ result: ProcessResult) throws {
        guard result.exitCode == 0 else { throw PythonReferenceError(message: result.stderr) }
    }
}

public struct PythonReferenceError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
