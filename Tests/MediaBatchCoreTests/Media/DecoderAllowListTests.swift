import Foundation
@testable import MediaBatchCore
import MediaFormats
import PipelineModel
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// libvips marks its JPEG XL and ImageMagick loaders untrusted: they are opened by name, and only
/// in the process that decodes (the worker, for untrusted input). Files made here by the vips and
/// cjxl CLIs: a 60×40 picture of one colour as BMP, PSD and lossless JPEG XL (8 and 16 bits), a
/// cut-off JPEG XL.
final class DecoderAllowListTests: XCTestCase {
    static var input: URL!
    static let colour: [Double] = [200, 100, 50]

    override class func setUp() {
        try! Vips.start()
        input = Fixtures.temporaryFolder("untrusted-loaders")
        let folder = input.path, made = Fixtures.temporaryFolder().path
        let steps = [
            ["vips", "black", "\(made)/black.v", "60", "40", "--bands", "3"],
            ["vips", "linear", "\(made)/black.v", "\(made)/colour.png", "1 1 1", colour.map { "\(Int($0))" }.joined(separator: " "), "--uchar"],
            ["vips", "copy", "\(made)/colour.png", "\(folder)/scan.bmp"],
            ["vips", "magicksave", "\(made)/colour.png", "\(folder)/layers.psd", "--format", "PSD"],
            ["cjxl", "-d", "0", "\(made)/colour.png", "\(folder)/export.jxl"],
            // 16 bits of the same colour: 257 times each 8-bit value.
            ["vips", "linear", "\(made)/black.v", "\(made)/deep.v", "1 1 1", colour.map { "\(Int($0) * 257)" }.joined(separator: " ")],
            ["vips", "cast", "\(made)/deep.v", "\(made)/deep16.v", "ushort"],
            ["vips", "copy", "\(made)/deep16.v", "\(made)/deep.png", "--interpretation", "rgb16"],
            ["cjxl", "-d", "0", "\(made)/deep.png", "\(folder)/deep.jxl"],
            ["vips", "gaussnoise", "\(made)/noise.v", "300", "200"],
            ["vips", "cast", "\(made)/noise.v", "\(made)/noise.png", "uchar"],
            ["cjxl", "-d", "1", "\(made)/noise.png", "\(made)/noise.jxl"],
        ]
        for step in steps {
            let result = try! runProcess(step[0], Array(step.dropFirst()))
            precondition(result.exitCode == 0, "\(step): \(result.stderr)")
        }
        let noise = try! Data(contentsOf: URL(fileURLWithPath: "\(made)/noise.jxl"))
        try! noise.prefix(noise.count / 2).write(to: input.appendingPathComponent("cut.jxl"))
    }

    override class func tearDown() {
        // Other tests open files with every loader the default pipeline allows.
        try! DecoderAllowList.startLibvips(for: Set(MediaFormat.inputs), encoding: true)
    }

    func testTheUntrustedLoadersOpenOnlyInTheProcessThatDecodesAndOnlyForTheirFormats() throws {
        let files = ["scan.bmp", "layers.psd", "export.jxl"].map { Self.input.appendingPathComponent($0).path }
        try DecoderAllowList.startLibvips(for: [.bmp, .psd, .jxl], encoding: false)
        for file in files { XCTAssertThrowsError(try VImage.open(file), "blocked in the run's process: \(file)") }
        try DecoderAllowList.startLibvips(for: [.bmp, .psd, .jxl], encoding: true)
        for file in files { XCTAssertEqual(try VImage.open(file).width, 60, file) }
        try DecoderAllowList.startLibvips(for: [.jpeg, .png], encoding: true)
        for file in files { XCTAssertThrowsError(try VImage.open(file), "not in input.formats: \(file)") }
    }

    /// Through `mediabatch run` with untrusted input: decoded in a worker, written as PNG, read back.
    func testBMPPSDAndJPEGXLAreDecodedInTheWorkerAndACutOffJPEGXLFailsItsItem() throws {
        let pipeline = Fixtures.temporaryFolder().appendingPathComponent("pipeline.json")
        try Data(#"{"version": 1, "stages": [{"stage": "decode"}, {"stage": "transcode", "to": "png"}, {"stage": "write"}]}"#.utf8)
            .write(to: pipeline)
        let output = Fixtures.temporaryFolder(), report = output.deletingLastPathComponent().appendingPathComponent("\(output.lastPathComponent).json")
        let run = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", Self.input.path, "--output", output.path,
                                                            "--report", report.path, "--quiet"])
        XCTAssertEqual(run.exitCode, 1, "one item failed: \(run.stderr)")
        let items = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report)).items
        for (name, format) in [("scan.bmp", "bmp"), ("layers.psd", "psd"), ("export.jxl", "jxl"), ("deep.jxl", "jxl")] {
            let item = try XCTUnwrap(items.first { $0.input == name }, name)
            XCTAssertEqual(item.status, .ok, "\(name): \(String(describing: item.error))")
            XCTAssertEqual(item.format, format)
            let written = try VImage.open(output.appendingPathComponent(try XCTUnwrap(item.output, name)).path)
            XCTAssertEqual([written.width, written.height], [60, 40], name)
            let means = try written.bandMeans(), scale = written.bitsPerSample == 16 ? 257.0 : 1
            XCTAssertEqual(means.count, 3, name)
            for (mean, expected) in zip(means, Self.colour) { XCTAssertEqual(mean, expected * scale, accuracy: 0.5 * scale, name) }
        }
        let cut = try XCTUnwrap(items.first { $0.input == "cut.jxl" })
        XCTAssertEqual(cut.status, .failed)
        XCTAssertEqual(cut.error?.code, .decodeFailed, "\(String(describing: cut.error))")
        XCTAssertNil(cut.output)
    }
}
