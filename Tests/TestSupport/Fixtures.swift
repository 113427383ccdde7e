import Foundation
import XCTest

/// Paths into the repository: tests use the committed samples; the shared corpus only where it
/// is, as a test that skips without it.
public enum Fixtures {
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url
    }()

    public static let samples = repositoryRoot.appendingPathComponent("samples")
    public static let broken = repositoryRoot.appendingPathComponent("Tests/Fixtures/broken")
    public static let pipelines = repositoryRoot.appendingPathComponent("pipelines")
    public static let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures")

    /// The shared corpus of real-world media where `MEDIABATCH_CORPUS` names it (`make test-corpus`
    /// gives `../shared/corpus`). Without it the checks over it skip, as in CI, whose clone has none:
    /// `make test` runs the same tests everywhere.
    public static let corpus = URL(fileURLWithPath: ProcessInfo.processInfo.environment["MEDIABATCH_CORPUS"] ?? "/nonexistent/corpus")

    /// A corpus file's path, or a skip of the test when the corpus is not here.
    public static func corpusFile(_ relativePath: String) throws -> String {
        let path = corpus.appendingPathComponent(relativePath).path
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("\(path) is not here") }
        return path
    }

    /// The content identifier that pairs the sample Live Photo's halves, `livephoto/train.jpg` and `train.mov`.
    public static let livePhotoIdentifier = "E905E6C6-C747-4805-942F-9904A0281F02"

    public static func sample(_ relativePath: String) -> String {
        samples.appendingPathComponent(relativePath).path
    }

    /// The built `mediabatch` executable, next to the test bundle.
    public static let executable: URL = {
        let candidates = [
            Bundle.main.bundleURL,
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for folder in candidates {
            let url = folder.appendingPathComponent("mediabatch")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return repositoryRoot.appendingPathComponent(".build/debug/mediabatch")
    }()

    /// A fresh empty folder, removed when the process exits.
    public static func temporaryFolder(_ name: String = "mediabatch-test") -> URL {
        let url = temporaryRoot.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static let temporaryPrefix = "mediabatch-tests-"

    /// This test process' folder of temporary folders, removed at its exit; made once, after removing those of
    /// test processes that are gone (killed, crashed). A suite's folders once filled a developer's /tmp (43 GB).
    private static let temporaryRoot: URL = {
        let base = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix(temporaryPrefix) {
            guard let pid = Int32(name.dropFirst(temporaryPrefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            remove(base.appendingPathComponent(name))
        }
        let root = base.appendingPathComponent("\(temporaryPrefix)\(getpid())")
        try! FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { Fixtures.remove(Fixtures.temporaryRoot) }
        return root
    }()

    /// `folder` and all in it, after detaching the file systems tests mounted in it (a tmpfs they filled, one
    /// still busy when its test unmounted it), which would stop the removal.
    private static func remove(_ folder: URL) {
        // Read to its end: Foundation's String(contentsOfFile:) reads a /proc file's stated size, 0.
        let mounts = String(decoding: FileHandle(forReadingAtPath: "/proc/self/mounts")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        for point in mounts.split(separator: "\n").compactMap({ $0.split(separator: " ").dropFirst().first })
        where point.hasPrefix(folder.path + "/") {
            umount2(String(point), Int32(MNT_DETACH))
        }
        try? FileManager.default.removeItem(at: folder)
    }
}
