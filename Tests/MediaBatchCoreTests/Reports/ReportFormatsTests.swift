import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import MediaBatchCore
import MediaTestSupport
import TestSupport
import XCTest

/// The JUnit and Prometheus renderings of a report, read back the way CI and Prometheus read them.
final class ReportFormatsTests: XCTestCase {
    static let report = report(
        pipeline: "nightly \"web\".json", milliseconds: 2500, interrupted: false, dryRun: false, shard: "1/4",
        items: [
            ItemResult(.init(input: "a/ok.heic", format: "heic", kinds: [.images], livePhoto: nil, status: .ok, change: .new,
                       output: "a/ok.jpg", reason: nil, removedMetadata: nil, error: nil, bytesIn: 100, bytesOut: 40,
                       milliseconds: 300, estimatedBytes: 1000)),
            ItemResult(.init(input: "a/bad <1>.jpg", format: "jpeg", kinds: nil, livePhoto: nil, status: .failed, change: .failedBefore,
                       output: nil, reason: nil, removedMetadata: nil,
                       error: .init(code: .decodeFailed, stage: "write", message: "VipsJpeg: Premature end & \u{1}"),
                       bytesIn: 50, bytesOut: 0, milliseconds: 20, estimatedBytes: nil)),
            ItemResult(.init(input: "b.png", format: "png", kinds: [.images, .screenshots], livePhoto: nil, status: .skipped,
                       change: .unchanged, output: nil, reason: "filtered out (png: images, screenshots)", removedMetadata: nil,
                       error: nil, bytesIn: 0, bytesOut: 0, milliseconds: 1, estimatedBytes: nil)),
            ItemResult(.init(input: "c.jpg", format: "jpeg", kinds: nil, livePhoto: nil, status: .unchanged, change: .unchanged,
                       output: "c.jpg", reason: nil, removedMetadata: nil, error: nil, bytesIn: 0, bytesOut: 0,
                       milliseconds: 0, estimatedBytes: nil)),
        ],
        orphans: [OrphanedOutputs(input: "gone.heic", outputs: ["gone.jpg"], removed: false)], staleOutputs: [])

    static func report(pipeline: String, milliseconds: Int, interrupted: Bool, dryRun: Bool, shard: String?, items: [ItemResult],
                       orphans: [OrphanedOutputs], staleOutputs: [String]) -> RunReport {
        RunReport(summary: RunSummary(
            pipeline: pipeline, inputRoot: URL(fileURLWithPath: "/in"), outputRoot: URL(fileURLWithPath: "/out"),
            startedAt: Date(timeIntervalSince1970: 1_700_000_000), milliseconds: milliseconds, interrupted: interrupted,
            stoppedByFailure: false, dryRun: dryRun, shard: shard, totals: .init(items), orphans: orphans, staleOutputs: staleOutputs),
            items: items)
    }

    /// What a renderer writes, as text.
    final class TextBuffer: TextSink {
        var text = ""
        func write(_ text: String) { self.text += text }
    }

    static func rendered(_ render: (TextSink) throws -> Void) rethrows -> String {
        let buffer = TextBuffer()
        try render(buffer)
        return buffer.text
    }

    static func junit(_ report: RunReport) throws -> Data {
        Data(try rendered { try JUnitReport.write(report.summary, items: report.itemStream, to: $0) }.utf8)
    }

    /// Test cases as a JUnit consumer sees them: name → "passed", "skipped" or the failure's type.
    final class TestCases: NSObject, XMLParserDelegate {
        var outcomes: [String: String] = [:]
        var failureText = ""
        private var current: String?
        private var inFailure = false

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            switch element {
            case "testcase": current = attributes["name"]; outcomes[current!] = "passed"
            case "skipped": outcomes[current!] = "skipped"
            case "failure": outcomes[current!] = attributes["type"]; inFailure = true
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inFailure { failureText += string }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "failure" { inFailure = false }
        }
    }

    func testJUnitIsWellFormedWithOneCasePerItem() throws {
        let parser = XMLParser(data: try Self.junit(Self.report))
        let cases = TestCases()
        parser.delegate = cases
        XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(cases.outcomes, ["a/ok.heic": "passed", "a/bad <1>.jpg": "decodeFailed", "b.png": "skipped", "c.jpg": "passed"])
        XCTAssertEqual(cases.failureText, "write: VipsJpeg: Premature end & ?")
        let text = String(decoding: try Self.junit(Self.report), as: UTF8.self)
        XCTAssertTrue(text.contains(#"tests="4" failures="1" skipped="1""#), text)
        XCTAssertTrue(text.contains(#"<property name="mediabatch.version" value="\#(MediaBatchVersion.current)"/>"#), text)
        XCTAssertTrue(text.contains(#"<property name="mediabatch.outputs" value="1"/>"#), "one ok item, one output: \(text)")
    }

    func testPrometheusTextHasOneGaugePerMetricLabelledByPipelineAndShard() {
        let text = PrometheusMetrics.text(Self.report.summary, peakMemoryBytes: 123_456_789, finishedAt: Date(timeIntervalSince1970: 1_700_000_003))
        let labels = #"pipeline="nightly \"web\".json",shard="1/4""#
        for line in [
            #"mediabatch_items{\#(labels),status="ok"} 1"#,
            #"mediabatch_items{\#(labels),status="failed"} 1"#,
            #"mediabatch_items{\#(labels),status="unchanged"} 1"#,
            #"mediabatch_item_changes{\#(labels),change="failedBefore"} 1"#,
            #"mediabatch_item_changes{\#(labels),change="unchanged"} 2"#,
            "mediabatch_input_bytes{\(labels)} 150",
            "mediabatch_run_duration_seconds{\(labels)} 2.5",
            "mediabatch_peak_memory_bytes{\(labels)} 123456789",
            "mediabatch_orphaned_outputs{\(labels)} 1",
            "mediabatch_last_run_timestamp_seconds{\(labels)} 1700000003",
            #"mediabatch_build_info{\#(labels),version="\#(MediaBatchVersion.current)"} 1"#,
            "mediabatch_outputs_written{\(labels)} 1",
        ] {
            XCTAssertTrue(text.contains(line + "\n"), "missing \(line) in\n\(text)")
        }
        // Every sample follows a TYPE line of its metric.
        var typed: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") { typed.insert(String(line.split(separator: " ")[2])) }
            else if !line.hasPrefix("#") { XCTAssertTrue(typed.contains(String(line.prefix { $0 != "{" })), String(line)) }
        }
    }

    /// The three renderings byte for byte (`MEDIABATCH_RECORD_GOLDENS=1` re-records them), with
    /// the items coming out of a spool in input order as after a run: what a report's readers
    /// parse must not change with how it is written. The goldens were recorded from the renderers
    /// that encoded a whole report held in memory.
    func testRenderingsFromTheSpoolMatchTheirGoldens() throws {
        let goldens = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/reports")
        var variants = ItemResult(.init(input: "ünï/çodé \"1\".heic", format: "heic", kinds: [.images, .livePhotos],
                                  livePhoto: LivePhotoPair(role: .still, partner: "ünï/çodé \"1\".mov", contentIdentifier: "6C4B3D1E-0F2A"),
                                  status: .ok, change: .pipelineChanged, output: nil, reason: nil,
                                  removedMetadata: ["EXIF GPS", "XMP photoshop:City"], error: nil,
                                  bytesIn: 2_000_000, bytesOut: 300_000, milliseconds: 812, estimatedBytes: 96_000_000))
        variants.variants = [.init(path: "ünï/w640/çodé \"1\".webp", format: "webp", size: 640, width: 640, height: 480, bytes: 30_000, reused: false),
                             .init(path: "ünï/w1280/çodé \"1\".jpg", format: "jpeg", size: 1280, width: 1280, height: 960, bytes: 270_000, reused: true)]
        variants.placeholder = "3OcRJYB4d3h/iIeHeEh3eIhw+j3A"
        let items = Self.report.items.reversed() + [variants]
        let summary = Self.report(pipeline: Self.report.pipeline, milliseconds: 2500, interrupted: true, dryRun: false, shard: nil,
                                  items: items, orphans: Self.report.orphans, staleOutputs: ["old/ü.jpg", "old/a.jpg"]).summary
        // Two to a run and two runs to a merge: a merged run, a run and results still in memory.
        let spool = ResultSpool(folder: Fixtures.temporaryFolder(), runLength: 2, fanIn: 2)
        items.forEach(spool.append)
        XCTAssertEqual(spool.total, summary.totals)
        let stream: ItemStream = { try spool.forEachInOrder($0) }
        assertMatchesGolden(try Self.rendered { try ReportJSON.write(summary, items: stream, to: $0) }, goldens.appendingPathComponent("report.json"))
        assertMatchesGolden(try Self.rendered { try JUnitReport.write(summary, items: stream, to: $0) },
                            goldens.appendingPathComponent("report.junit.xml"))
        assertMatchesGolden(PrometheusMetrics.text(summary, peakMemoryBytes: 1, finishedAt: Date(timeIntervalSince1970: 1_700_000_003)),
                            goldens.appendingPathComponent("report.prom"))
        let empty = Self.report(pipeline: "p.json", milliseconds: 0, interrupted: false, dryRun: true, shard: "0/2", items: [],
                                orphans: [], staleOutputs: [])
        assertMatchesGolden(try Self.rendered { try ReportJSON.write(empty.summary, items: empty.itemStream, to: $0) },
                            goldens.appendingPathComponent("report-empty.json"))
        assertMatchesGolden(try Self.rendered { try JUnitReport.write(empty.summary, items: empty.itemStream, to: $0) },
                            goldens.appendingPathComponent("report-empty.junit.xml"))
    }

    /// What `merge-reports` and the tests read is what the renderer wrote.
    func testTheJSONReportDecodesBackToItsSummaryAndItems() throws {
        let text = try Self.rendered { try ReportJSON.write(Self.report.summary, items: Self.report.itemStream, to: $0) }
        XCTAssertEqual(try JSONDecoder().decode(RunReport.self, from: Data(text.utf8)), Self.report)
    }
}
