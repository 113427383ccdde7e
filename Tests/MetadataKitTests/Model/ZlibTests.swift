import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// `Zlib` (the system zlib, fed and drained by our loop) against Python's zlib module, the same C
/// library driven by CPython: streams it writes in every block type and strategy inflate to the
/// same bytes here, streams we write inflate there, and of damaged streams we refuse exactly
/// those it refuses.
final class ZlibTests: XCTestCase {
    /// Inputs of every shape the block types handle differently, real metadata among them.
    func inputs() throws -> [String: [UInt8]] {
        var random = SplitMix(seed: 1950)
        let words = ["rdf:", "Description", " ", "photoshop:City", "=\"", "Cambridge", "\"\n", "<", ">", "0", "1f"]
        var text: [UInt8] = []
        while text.count < 200_000 { text += Array(words[Int(random.next() % UInt64(words.count))].utf8) }
        let fixture = try [UInt8](Data(contentsOf: Fixtures.fixtures.appendingPathComponent("metadata/png-location-everywhere.png")))
        return [
            "empty": [], "one": [0x41],
            "random-small": (0..<1000).map { _ in UInt8(truncatingIfNeeded: random.next()) },
            "random-large": (0..<100_000).map { _ in UInt8(truncatingIfNeeded: random.next()) },
            "text": text, "zeros": [UInt8](repeating: 0, count: 70_000), "png": fixture,
        ]
    }

    /// Writes each input to `folder`, returns the names.
    func write(_ inputs: [String: [UInt8]], to folder: URL) throws {
        for (name, bytes) in inputs { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
    }

    /// Every input compressed by Python at each level and strategy, and with a small window.
    static let pythonDeflates = """
    import os, sys, zlib
    folder = sys.argv[1]
    settings = {'stored': (0, zlib.Z_DEFAULT_STRATEGY, 15), 'fast': (1, zlib.Z_DEFAULT_STRATEGY, 15),
                'default': (6, zlib.Z_DEFAULT_STRATEGY, 15), 'best': (9, zlib.Z_DEFAULT_STRATEGY, 15),
                'filtered': (6, zlib.Z_FILTERED, 15), 'huffman': (6, zlib.Z_HUFFMAN_ONLY, 15),
                'rle': (6, zlib.Z_RLE, 15), 'fixed': (6, zlib.Z_FIXED, 15), 'window512': (9, zlib.Z_DEFAULT_STRATEGY, 9)}
    for name in sorted(os.listdir(folder)):
        data = open(os.path.join(folder, name), 'rb').read()
        for setting, (level, strategy, bits) in sorted(settings.items()):
            compressor = zlib.compressobj(level, zlib.DEFLATED, bits, 8, strategy)
            stream = compressor.compress(data) + compressor.flush()
            open(os.path.join(folder, name + '.' + setting + '.z'), 'wb').write(stream)
            print(name + '.' + setting + '.z')
    """

    func testInflatesWhatPythonsZlibDeflatesInEveryBlockType() throws {
        let folder = Fixtures.temporaryFolder()
        let inputs = try inputs()
        try write(inputs, to: folder)
        let streams = try PythonReference.runStandardLibrary(Self.pythonDeflates, [folder.path]).split(separator: "\n")
        XCTAssertEqual(streams.count, inputs.count * 9)
        var blockTypes: Set<UInt8> = []
        for name in streams {
            let stream = try [UInt8](Data(contentsOf: folder.appendingPathComponent(String(name))))
            let original = try XCTUnwrap(inputs[String(name.prefix { $0 != "." })])
            XCTAssertEqual(try Zlib.decompress(stream), original, String(name))
            blockTypes.insert(stream[2] >> 1 & 3)
        }
        XCTAssertEqual(blockTypes, [0, 1, 2], "stored, fixed and dynamic Huffman blocks all seen")
    }

    func testPythonsZlibInflatesWhatWeDeflate() throws {
        let folder = Fixtures.temporaryFolder()
        let inputs = try inputs()
        try write(inputs.mapValues(Zlib.compress), to: folder)
        try write(inputs.reduce(into: [:]) { $0[$1.key + ".original"] = $1.value }, to: folder)
        let script = """
        import os, sys, zlib
        folder = sys.argv[1]
        for name in sorted(os.listdir(folder)):
            if not name.endswith('.original'):
                same = zlib.decompress(open(os.path.join(folder, name), 'rb').read()) == open(os.path.join(folder, name + '.original'), 'rb').read()
                print(name, 'same' if same else 'different')
        """
        let verdicts = try PythonReference.runStandardLibrary(script, [folder.path]).split(separator: "\n")
        XCTAssertEqual(verdicts.sorted(), inputs.keys.sorted().map { "\($0) same" })
        for (name, bytes) in inputs { XCTAssertEqual(try Zlib.decompress(Zlib.compress(bytes)), bytes, name) }
        XCTAssertLessThan(Zlib.compress(inputs["zeros"]!).count, 1000, "compressed, not stored: 70,000 zeros")
        XCTAssertLessThan(Zlib.compress(inputs["text"]!).count, inputs["text"]!.count / 4, "XMP-like text")
    }

    /// Every cut of a small stream of each block type, random damage to bigger ones, and random
    /// bytes behind a valid header: where Python's zlib inflates, so do we, to the same bytes;
    /// where it refuses, we throw. None may trap.
    func testJudgesDamagedStreamsAsZlibDoes() throws {
        let folder = Fixtures.temporaryFolder()
        var inputs = try inputs()
        // Small, so that thousands of damaged copies inflate quickly.
        inputs["text"] = Array(inputs["text"]!.prefix(3000))
        inputs["zeros"] = Array(inputs["zeros"]!.prefix(3000))
        inputs["random-large"] = nil
        inputs["png"] = nil
        try write(inputs, to: folder)
        var damaged: [[UInt8]] = []
        var random = SplitMix(seed: 1951)
        for name in try PythonReference.runStandardLibrary(Self.pythonDeflates, [folder.path]).split(separator: "\n") {
            let stream = try [UInt8](Data(contentsOf: folder.appendingPathComponent(String(name))))
            if name.hasPrefix("text."), ["stored", "fixed", "default"].contains(name.split(separator: ".")[1]) {
                damaged += (0..<stream.count).map { Array(stream.prefix($0)) }
            }
            for _ in 0..<60 {
                var copy = stream
                let at = 2 + Int(random.next() % UInt64(max(1, copy.count - 2)))
                if at < copy.count { copy[at] ^= UInt8(1 << (random.next() % 8)) }
                damaged.append(copy)
            }
        }
        for _ in 0..<500 { damaged.append([0x78, 0x9C] + (0..<(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }) }
        try assertJudgedAsPythonDoes(damaged, in: folder)
    }

    /// Python reports each stream's fate as `ok LENGTH CRC32` or `error`.
    func assertJudgedAsPythonDoes(_ streams: [[UInt8]], in folder: URL, line: UInt = #line) throws {
        var records: [UInt8] = []
        for stream in streams {
            records += [0, 0, 0, 0]
            records.setUInt32(UInt32(stream.count), at: records.count - 4)
            records += stream
        }
        let file = folder.appendingPathComponent("damaged.records")
        try Data(records).write(to: file)
        let script = """
        import struct, sys, zlib
        data, offset = open(sys.argv[1], 'rb').read(), 0
        while offset < len(data):
            (length,) = struct.unpack('>I', data[offset:offset + 4])
            stream, offset = data[offset + 4:offset + 4 + length], offset + 4 + length
            try:
                out = zlib.decompress(stream)
                print('ok', len(out), zlib.crc32(out))
            except zlib.error:
                print('error')
        """
        let verdicts = try PythonReference.runStandardLibrary(script, [file.path]).split(separator: "\n").map(String.init)
        XCTAssertEqual(verdicts.count, streams.count, line: line)
        var refused = 0
        for (stream, verdict) in zip(streams, verdicts) {
            let ours = (try? Zlib.decompress(stream)).map { "ok \($0.count) \(CRC32.checksum($0))" } ?? "error"
            XCTAssertEqual(ours, verdict, "stream \(stream.prefix(24).map { String($0, radix: 16) })", line: line)
            if verdict == "error" { refused += 1 }
        }
        XCTAssertGreaterThan(refused, streams.count / 2, "most damage is caught", line: line)
        XCTAssertLessThan(refused, streams.count, "some damage still inflates (to other bytes)", line: line)
    }

    /// A zip bomb stops at the caller's limit, whichever block type carries it.
    func testOutputStopsAtTheLimit() throws {
        XCTAssertEqual(Zlib.outputLimit, 16 << 20)
        let script = "import zlib; print(zlib.compress(bytes(1 << 20), 9).hex()); print(zlib.compress(bytes(5000), 0).hex())"
        let streams = try PythonReference.runStandardLibrary(script).split(separator: "\n")
        let bomb = ContainerFixtures.bytes(hex: String(streams[0])), stored = ContainerFixtures.bytes(hex: String(streams[1]))
        XCTAssertLessThan(bomb.count, 2000, "a megabyte of zeros compresses 1000:1")
        XCTAssertThrowsError(try Zlib.decompress(bomb, limit: 1 << 16)) { error in
            XCTAssertEqual("\(error)", "zlib stream: inflates past 65536 bytes")
        }
        XCTAssertEqual(try Zlib.decompress(bomb, limit: 1 << 20).count, 1 << 20, "exactly the limit is fine")
        XCTAssertThrowsError(try Zlib.decompress(stored, limit: 4999), "stored")
        XCTAssertEqual(try Zlib.decompress(stored, limit: 5000).count, 5000, "stored, exactly the limit")
        XCTAssertThrowsError(try Zlib.decompress(Zlib.compress([7]), limit: 0), "one byte past none")
        XCTAssertEqual(try Zlib.decompress(Zlib.compress([]), limit: 0), [], "an empty stream fits a limit of 0")
    }

    /// What zlib refuses, with its message; what follows a stream's checksum is ignored.
    func testErrorsCarryZlibsMessage() throws {
        let stream = Zlib.compress(Array("Cambridge".utf8))
        XCTAssertEqual(try Zlib.decompress(stream + [0x78, 0x9C, 0xFF]), Array("Cambridge".utf8), "trailing bytes")
        var damaged = stream
        damaged[damaged.count - 1] ^= 1
        let cases: [([UInt8], String)] = [
            ([0x78, 0xBB] + stream.dropFirst(2), "zlib stream: need dictionary"),
            ([0x78, 0x9D] + stream.dropFirst(2), "zlib stream: incorrect header check"),
            (damaged, "zlib stream: incorrect data check"),
            (Array(stream.dropLast()), "zlib stream: ends early"),
            ([], "zlib stream: ends early"),
        ]
        for (bytes, message) in cases {
            XCTAssertThrowsError(try Zlib.decompress(bytes), message) { XCTAssertEqual("\($0)", message) }
        }
    }

    func testCRC32IsZlibs() {
        XCTAssertEqual(CRC32.checksum(Array("IEND".utf8)), 0xAE42_6082, "the CRC every PNG ends with")
    }
}
