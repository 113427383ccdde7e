import Foundation
import RunState
import XCTest

final class StateStoreTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func item(_ input: String, status: ItemRecord.Status = .ok, run: Int64) -> ItemRecord {
        ItemRecord(input: input, stamp: FileStamp(size: 10, modifiedNanoseconds: 20), contentHash: "h-\(input)",
                   format: "jpeg", contentIdentifier: nil, recipe: "r", selection: "s", status: status,
                   milliseconds: 5, run: run)
    }

    func testRecordsReplaceOutputsAndKeepDroppedOnesAsStale() throws {
        let store = try StateStore(path: folder.appendingPathComponent("a/state.sqlite").path)
        let run = try store.beginRun(pipeline: "p.json", shard: nil, toolVersion: "v")
        let stamp = FileStamp(size: 1, modifiedNanoseconds: 2)
        try store.record(item("x.heic", run: run), outputs: [OutputRecord(path: "x.jpg", input: "x.heic", contentHash: "o", stamp: stamp)])
        XCTAssertEqual(try store.outputs(of: "x.heic").map(\.path), ["x.jpg"])
        XCTAssertEqual(try store.outputs(atPaths: ["x.jpg", "y.jpg"]).mapValues(\.input), ["x.jpg": "x.heic"])

        // The template changed: x.heic now writes web/x.jpg; x.jpg stays on disk, stale.
        let stale = try store.record(item("x.heic", run: run),
                                     outputs: [OutputRecord(path: "web/x.jpg", input: "x.heic", contentHash: "o", stamp: stamp)])
        XCTAssertEqual(stale.map(\.path), ["x.jpg"])
        XCTAssertEqual(try store.outputs(of: "x.heic").map(\.path), ["web/x.jpg"])
        XCTAssertEqual(try store.staleOutputs().map(\.path), ["x.jpg"])
        try store.forget(output: "x.jpg")
        XCTAssertEqual(try store.staleOutputs(), [])
        XCTAssertEqual(try store.integrityCheck(), "ok")
    }

    func testABatchRecordsEachItemAsAloneAndReturnsEachOnesStaleOutputs() throws {
        let store = try StateStore(path: folder.appendingPathComponent("state.sqlite").path)
        let run = try store.beginRun(pipeline: "p.json", shard: nil, toolVersion: "v")
        let stamp = FileStamp(size: 1, modifiedNanoseconds: 2)
        func output(_ path: String, of input: String) -> OutputRecord {
            OutputRecord(path: path, input: input, contentHash: "o", stamp: stamp)
        }
        try store.record(item("a.heic", run: run), outputs: [output("a.jpg", of: "a.heic"), output("a.webp", of: "a.heic")])
        let stale = try store.record([(item("a.heic", run: run), [output("a.jpg", of: "a.heic")]),
                                      (item("b.heic", status: .failed, run: run), []),
                                      (item("c.heic", run: run), nil)])
        XCTAssertEqual(stale.map { $0.map(\.path) }, [["a.webp"], [], []])
        XCTAssertEqual(try store.countsByStatus(), [.ok: 2, .failed: 1])
        XCTAssertEqual(try store.outputs(of: "a.heic").map(\.path), ["a.jpg"])
        XCTAssertEqual(try store.record([]), [])
    }

    func testProducedOutputsAreEachOkItemWithItsStandingOutputsInInputOrder() throws {
        let store = try StateStore(path: folder.appendingPathComponent("state.sqlite").path)
        let run = try store.beginRun(pipeline: "p.json", shard: nil, toolVersion: "v")
        let stamp = FileStamp(size: 1, modifiedNanoseconds: 2)
        // Byte order, as SQLite sorts text: "Z" < "a" < "e" < "é"; a failed item keeps outputs it had.
        for (input, status, outputs) in [("é.jpg", ItemRecord.Status.ok, ["é-2.jpg", "é-1.jpg"]), ("a.jpg", .failed, ["a.webp"]),
                                         ("e.jpg", .ok, ["e.webp"]), ("Z.jpg", .ok, ["Z.webp"]), ("n.jpg", .ok, [])] {
            try store.record(item(input, status: status, run: run),
                             outputs: outputs.map { OutputRecord(path: $0, input: input, contentHash: "o", stamp: stamp) })
        }
        try store.record(item("e.jpg", run: run), outputs: [OutputRecord(path: "e.jpg", input: "e.jpg", contentHash: "o", stamp: stamp)])
        var produced: [String] = []
        try store.forEachProducedOutput { item, outputs in produced.append("\(item.input): \(outputs.map(\.path))") }
        XCTAssertEqual(produced, [#"Z.jpg: ["Z.webp"]"#, #"e.jpg: ["e.jpg"]"#, #"é.jpg: ["é-1.jpg", "é-2.jpg"]"#])
    }

    func testUnseenItemsAreThoseALaterRunDidNotList() throws {
        let store = try StateStore(path: folder.appendingPathComponent("state.sqlite").path)
        let first = try store.beginRun(pipeline: "p.json", shard: nil, toolVersion: "v")
        for name in ["a.jpg", "b.jpg", "c.jpg"] { try store.record(item(name, run: first), outputs: []) }
        let second = try store.beginRun(pipeline: "p.json", shard: nil, toolVersion: "v")
        try store.markSeen([("a.jpg", FileStamp(size: 11, modifiedNanoseconds: 30))], run: second)
        try store.record(item("b.jpg", status: .failed, run: second), outputs: [])
        try store.record(item("c.jpg", run: first), outputs: [OutputRecord(path: "c-out.jpg", input: "c.jpg", contentHash: "h",
                                                                             stamp: FileStamp(size: 1, modifiedNanoseconds: 1))])
        XCTAssertEqual(try store.unseen(by: second).map(\.input), ["c.jpg"])
        XCTAssertEqual(try store.unseen(by: second).map(\.outputs), [["c-out.jpg"]])
        XCTAssertEqual(try store.item("a.jpg")?.stamp, FileStamp(size: 11, modifiedNanoseconds: 30), "seen updates the stamp")
        XCTAssertEqual(try store.countsByStatus(), [.ok: 2, .failed: 1])
        XCTAssertEqual(try store.failures(limit: 10).map(\.input), ["b.jpg"])
        XCTAssertEqual(try store.failures(limit: 0), [])
        try store.finishRun(second, interrupted: false, totals: "{}")
        XCTAssertEqual(try store.lastRun()?.id, second)
        XCTAssertNotNil(try store.lastRun()?.finishedAt)
        try store.forget(inputs: ["c.jpg"])
        XCTAssertEqual(try store.unseen(by: second).map(\.input), [])
        XCTAssertNil(try store.output("c-out.jpg"))
    }

    /// A reading's long strings (a fingerprint's picture) are kept apart: `forEachReadings` gives the
    /// rest, everything else the whole; a later record without them, and forgetting, remove them.
    func testLongStringsOfReadingsAreKeptApartAndGivenBackWhole() throws {
        let store = try StateStore(path: folder.appendingPathComponent("state.sqlite").path)
        let run = try store.beginRun(pipeline: "p.json", shard: nil, toolVersion: "v")
        let picture = String(repeating: "A", count: 5464)
        let whole = #"{"fingerprint":{"flat":true,"hashes":["00ff"],"picture":"\#(picture)","width":4032},"other":{"n":1}}"#
        var recorded = item("a.jpg", run: run)
        recorded.readings = whole
        try store.record(recorded, outputs: [])
        var short: [String: String] = [:]
        try store.forEachReadings { short[$0] = $1 }
        XCTAssertEqual(short, ["a.jpg": #"{"fingerprint":{"flat":true,"hashes":["00ff"],"width":4032},"other":{"n":1}}"#])
        XCTAssertEqual(try store.item("a.jpg")?.readings, #"{"fingerprint":{"picture":"\#(picture)","flat":true,"hashes":["00ff"],"width":4032},"other":{"n":1}}"#,
                       "the picture back, first")
        let merged = try XCTUnwrap(store.item("a.jpg")?.readings)
        XCTAssertEqual(try store.readings(of: ["a.jpg", "b.jpg"]), ["a.jpg": merged])
        var produced: [String?] = []
        try store.record(item("b.jpg", run: run), outputs: [OutputRecord(path: "b.webp", input: "b.jpg", contentHash: "o", stamp: recorded.stamp)])
        recorded.readings = whole
        try store.record(recorded, outputs: [OutputRecord(path: "a.webp", input: "a.jpg", contentHash: "o", stamp: recorded.stamp)])
        try store.forEachProducedOutput { item, _ in produced.append(item.readings) }
        XCTAssertEqual(produced, [merged, nil], "the manifest's items whole")

        recorded.readings = #"{"other":{"n":2}}"#
        try store.record(recorded, outputs: nil)
        XCTAssertEqual(try store.item("a.jpg")?.readings, #"{"other":{"n":2}}"#)
        recorded.readings = whole
        try store.record(recorded, outputs: nil)
        try store.forget(inputs: ["a.jpg"])
        recorded.readings = #"{"fingerprint":{"flat":true}}"#
        try store.record(recorded, outputs: nil)
        XCTAssertEqual(try store.item("a.jpg")?.readings, #"{"fingerprint":{"flat":true}}"#, "nothing of the forgotten item's left to merge")
        XCTAssertEqual(try store.integrityCheck(), "ok")
    }

    /// Put back as text, the readings parse as they were written, whatever their strings hold.
    func testReadingsComeBackWholeWhateverTheyHold() throws {
        let store = try StateStore(path: folder.appendingPathComponent("state.sqlite").path)
        let run = try store.beginRun(pipeline: "p.json", shard: nil, toolVersion: "v")
        let long = String(repeating: #"}{\",["#, count: 300)
        let readings = #"{"a":{"s":"x}\"{,","list":[1,{"b":[2]}],"long":"\#(long)","z":null},"b":{"only":"\#(long)"},"c":{}}"#
        var recorded = item("a.jpg", run: run)
        recorded.readings = readings
        try store.record(recorded, outputs: nil)
        func parsed(_ text: String?) throws -> NSDictionary {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(text).utf8)) as? NSDictionary)
        }
        XCTAssertEqual(try parsed(store.item("a.jpg")?.readings), try parsed(readings))
        var short: [String: String] = [:]
        try store.forEachReadings { short[$0] = $1 }
        XCTAssertEqual(try parsed(short["a.jpg"]), try parsed(#"{"a":{"s":"x}\"{,","list":[1,{"b":[2]}],"z":null},"b":{},"c":{}}"#))
    }

    func testReadOnlyOpeningFindsNothingWhereThereIsNoDatabase() throws {
        XCTAssertNil(try StateStore(readingExisting: folder.appendingPathComponent("none.sqlite").path))
        let path = folder.appendingPathComponent("state.sqlite").path
        let store = try StateStore(path: path)
        try store.record(item("a.jpg", run: try store.beginRun(pipeline: "p", shard: nil, toolVersion: "v")), outputs: [])
        let reader = try XCTUnwrap(try StateStore(readingExisting: path))
        XCTAssertEqual(try reader.item("a.jpg")?.contentHash, "h-a.jpg")
        XCTAssertThrowsError(try reader.record(item("b.jpg", run: 1), outputs: []), "a read-only store refuses writes")
    }

    func testContentHashIsSHA256() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("abc.txt")
        try Data("abc".utf8).write(to: file)
        XCTAssertEqual(try ContentHash.ofFile(atPath: file.path),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(ContentHash.of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
