import Foundation
import MediaBatchCore
import MediaTestSupport
import TestSupport
import XCTest

/// An input another program cuts short after it was listed (fault injection truncates it in the
/// worker, as the pixel phase starts): what was read is published as nothing, the item fails
/// `inputChanged`, and the next run, which sees a changed file, does it again.
final class ChangingInputTests: XCTestCase {
    func testAnInputCutShortWhileReadIsNotPublished() throws {
        let input = Fixtures.temporaryFolder("changing-in"), output = Fixtures.temporaryFolder("changing-out")
        for name in ["a.jpg", "b.jpg"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg"), toPath: input.appendingPathComponent(name).path)
        }
        // A copy with its location removed: nothing decodes the pixels, so only the check sees the cut.
        let pipeline = Fixtures.temporaryFolder("changing-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "stages": [{"stage": "stripLocation"}, {"stage": "write"}]}"#.utf8).write(to: pipeline)
        let report = Fixtures.temporaryFolder("changing-report").appendingPathComponent("r.json")
        let arguments = ["run", pipeline.path, "--input", input.path, "--output", output.path, "--quiet", "--report", report.path]
        let cut = try runProcess(Fixtures.executable.path, arguments, environment: ["MEDIABATCH_FAULT_INJECTION": "pixels:truncate:a.jpg"])
        XCTAssertEqual(cut.exitCode, 1, cut.stderr)
        let items = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report)).items
        XCTAssertEqual(items.map { $0.error?.code }, [.inputChanged, nil])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("a.jpg").path), "nothing published")
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("b.jpg").path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path)
                           .filter { $0.hasSuffix(".jpg") }, [], "no temporary output left")
        let again = try runProcess(Fixtures.executable.path, arguments)
        XCTAssertEqual(again.exitCode, 0, again.stderr)
        XCTAssertEqual(try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report)).items.map(\.status), [.ok, .unchanged])
    }
}
