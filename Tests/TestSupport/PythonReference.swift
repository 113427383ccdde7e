import Foundation

/// Reference implementations from PyPI, for tests that compare mediabatch's own code with
/// them: installed once into a virtual environment under `.build/` (python3 and its venv module
/// come from `scripts/install-deps.sh`).
public enum PythonReference {
    static let environment = Fixtures.repositoryRoot.appendingPathComponent(".build/test-python")

    /// The environment's python, with `packages` installed.
    public static func python(with packages: [String]) throws -> String {
        let python = environment.appendingPathComponent("bin/python").path
        if !FileManager.default.isExecutableFile(atPath: python) {
            try check(runProcess("python3", ["-m", "venv", environment.path]))
        }
        let missing = try packages.filter { package in
            try runProcess(python, ["-m", "pip", "show", "-q", package]).exitCode != 0
        }
        if !missing.isEmpty { try check(runProcess(python, ["-m", "pip", "install", "-q"] + missing)) }
        return python
    }

    /// Runs `script` with `arguments` in the environment and returns what it printed.
    public static func run(_ script: String, _ arguments: [String] = [], with packages: [String]) throws -> String {
        let result = try runProcess(try python(with: packages), ["-c", script] + arguments)
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
}
