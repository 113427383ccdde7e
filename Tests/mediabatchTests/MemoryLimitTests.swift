import Foundation
import MediaBatchCore
import MediaTestSupport
import TestSupport
import XCTest

/// A run under a real memory limit, as a Slurm or Kubernetes job runs: the run and its workers in
/// a memory cgroup of their own (v2's `memory.max`, or v1's `memory.limit_in_bytes` where only v1
/// has the memory controller; root only, skipped with the reason otherwise). A photo that needs
/// more than the limit gets its worker killed by the kernel's OOM killer: that item fails
/// `workerCrashed` naming the signal, the run goes on with the others and ends with exit 1, and a
/// rerun with room finishes exactly that item, byte for byte what an unlimited run writes.
final class MemoryLimitTests: XCTestCase {
    private var group: MemoryCgroup?

    override func tearDown() {
        group?.remove()
    }

    func testAWorkerTheOOMKillerKillsFailsOnlyItsItem() throws {
        let input = Fixtures.temporaryFolder("memory-limit-in")
        // 5500 × 5500 RGB, turned upright (EXIF orientation 6) so decoded whole into memory: 91 MB
        // (under libvips' 100 MiB threshold for decoding to a disk file instead), over the limit; a
        // run of the small photo alone peaks at 37 MiB.
        let huge = input.appendingPathComponent("huge.jpg").path
        let made = try runProcess("vips", ["black", huge, "5500", "5500", "--bands", "3"])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        XCTAssertEqual(try runProcess("exiftool", ["-q", "-n", "-Orientation=6", "-overwrite_original", huge]).exitCode, 0)
        for name in ["a.jpg", "b.jpg", "c.jpg"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent(name).path)
        }
        let reference = Fixtures.temporaryFolder("memory-limit-reference")
        XCTAssertEqual(try run(input, reference).report.totals.ok, 4)
        let inputsBefore = try Self.contents(of: input)
        group = try MemoryCgroup.make(limitBytes: 64 << 20)
        let group = try XCTUnwrap(group)

        let output = Fixtures.temporaryFolder("memory-limit-out")
        let (limited, report) = try run(input, output, in: group)
        XCTAssertEqual(limited.exitCode, 1, limited.stderr)
        XCTAssertGreaterThan(try group.oomKills(), 0, "the kernel's OOM killer struck")
        let killed = try XCTUnwrap(report.items.first { $0.input == "huge.jpg" })
        XCTAssertEqual(killed.error?.code, .workerCrashed)
        XCTAssertTrue(killed.error?.message.contains("died of signal 9 (Killed): killed from outside, out of memory?") == true, "\(killed)")
        XCTAssertEqual(report.items.filter { $0.status == .ok }.map(\.input).sorted(), ["a.jpg", "b.jpg", "c.jpg"], "the run went on")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path)
                           .filter { !$0.hasSuffix(".bin") && !$0.hasPrefix("spool") }, [], "no temporary output left")
        XCTAssertEqual(try Self.contents(of: input), inputsBefore, "inputs untouched")

        let (rerun, again) = try run(input, output)
        XCTAssertEqual(rerun.exitCode, 0, rerun.stderr)
        XCTAssertEqual(again.items.filter { $0.status == .ok }.map(\.input), ["huge.jpg"], "exactly the killed item redone")
        for name in ["huge.png", "a.png", "b.png", "c.png"] {
            XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent(name)), try Data(contentsOf: reference.appendingPathComponent(name)), name)
        }
    }

    /// Every photo decoded whole and written as a PNG, one item at a time; in `group` when given.
    private func run(_ input: URL, _ output: URL, in group: MemoryCgroup? = nil) throws -> (result: ProcessResult, report: RunReport) {
        let pipeline = Fixtures.temporaryFolder("memory-limit-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "stages": [{"stage": "decode"}, {"stage": "transcode", "to": "png"}, {"stage": "write"}]}"#.utf8).write(to: pipeline)
        let report = Fixtures.temporaryFolder("memory-limit-report").appendingPathComponent("report.json")
        let command = [Fixtures.executable.path, "run", pipeline.path, "--input", input.path, "--output", output.path,
                       "--quiet", "--jobs", "1", "--report", report.path]
        // The shell joins the group, then becomes mediabatch: the run and every worker it starts are in it.
        let result = try group.map { try runProcess("sh", ["-c", #"echo $$ > "$0" && exec "$@""#, $0.procs.path] + command) }
            ?? (try runProcess(command[0], Array(command.dropFirst())))
        return (result, try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report)))
    }

    private static func contents(of folder: URL) throws -> [String: Data] {
        Dictionary(uniqueKeysWithValues: try FileManager.default.contentsOfDirectory(atPath: folder.path).map {
            ($0, try Data(contentsOf: folder.appendingPathComponent($0)))
        })
    }
}

/// A memory cgroup made for a test: in the unified hierarchy (v2) when it has the memory
/// controller, else in v1's memory hierarchy; no swap, so the limit is the limit.
struct MemoryCgroup {
    let folder: URL
    let unified: Bool

    /// Where writing a pid moves that process into the group.
    var procs: URL { folder.appendingPathComponent("cgroup.procs") }

    static func make(limitBytes: Int) throws -> MemoryCgroup {
        let name = "mediabatch-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        let v2 = URL(fileURLWithPath: "/sys/fs/cgroup"), v1 = URL(fileURLWithPath: "/sys/fs/cgroup/memory")
        if let controllers = try? String(contentsOf: v2.appendingPathComponent("cgroup.controllers"), encoding: .utf8),
           controllers.split(separator: " ").contains(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "memory" }) {
            try? Data("+memory".utf8).write(to: v2.appendingPathComponent("cgroup.subtree_control"))
            let group = try create(MemoryCgroup(folder: v2.appendingPathComponent(name), unified: true))
            try group.set("memory.max", "\(limitBytes)")
            try? group.set("memory.swap.max", "0")
            return group
        }
        try XCTSkipUnless(FileManager.default.fileExists(atPath: v1.appendingPathComponent("memory.limit_in_bytes").path),
                          "no memory cgroup controller here (neither cgroup v2's nor v1's)")
        let group = try create(MemoryCgroup(folder: v1.appendingPathComponent(name), unified: false))
        try group.set("memory.limit_in_bytes", "\(limitBytes)")
        try? group.set("memory.swappiness", "0")
        return group
    }

    private static func create(_ group: MemoryCgroup) throws -> MemoryCgroup {
        do {
            try FileManager.default.createDirectory(at: group.folder, withIntermediateDirectories: false)
        } catch {
            throw XCTSkip("cannot make a memory cgroup here (root needed): \(error.localizedDescription)")
        }
        return group
    }

    private func set(_ file: String, _ value: String) throws {
        try Data(value.utf8).write(to: folder.appendingPathComponent(file))
    }

    /// How many processes of the group the OOM killer has killed.
    func oomKills() throws -> Int {
        let text = try String(contentsOf: folder.appendingPathComponent(unified ? "memory.events" : "memory.oom_control"), encoding: .utf8)
        let line = text.split(separator: "\n").first { $0.hasPrefix("oom_kill ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    /// Once its processes have ended.
    func remove() {
        rmdir(folder.path)
    }
}
