import Foundation
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// A picture box-shrunk a strip of rows at a time (the shim's shrink.c) against libvips' own
/// `vips_shrink` of the whole picture ("ceil"): every sample equal, 8- and 16-bit, for strips that
/// fill a group of rows, strips that do not, and edges the factor does not divide.
final class ShrinkingStripsTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    func testStripsShrinkAsLibvipsShrinksTheWholePicture() throws {
        var rng = SplitMix(seed: 20261129)
        for depth in [VImage.SampleDepth.eight, .sixteen] {
            for _ in 0..<12 {
                let factor = Int.random(in: 2...7, using: &rng), bands = Int.random(in: 1...4, using: &rng)
                let width = Int.random(in: 1...90, using: &rng), height = Int.random(in: 1...90, using: &rng)
                let stripRows = Int.random(in: 1...20, using: &rng)
                let samples = (0..<width * height * bands).map { _ in Int.random(in: 0...(depth == .eight ? 255 : 65535), using: &rng) }
                let whole = try Self.image(samples, width: width, height: height, bands: bands, depth: depth)
                let shrunk = try Self.shrunkInStrips(samples, width: width, height: height, bands: bands, depth: depth, factor: factor,
                                                     stripRows: stripRows)
                let libvips = try whole.libvipsShrunk(by: factor)
                let what = "\(width)×\(height)×\(bands) of \(depth.rawValue) bits by \(factor) in strips of \(stripRows)"
                XCTAssertEqual([shrunk.width, shrunk.height], [libvips.width, libvips.height], what)
                XCTAssertEqual(try shrunk.samples(), try libvips.samples(), what)
            }
        }
    }

    /// A strip may end before a group of rows is full (the rest wait) or hold several groups; the
    /// picture's last rows are shrunk when they come, however few.
    func testRowsWaitUntilAGroupIsFullAndTheLastAreShrunkAtTheEnd() throws {
        let samples = Array(0..<(4 * 7))
        let shrunk = try Self.shrunkInStrips(samples, width: 4, height: 7, bands: 1, depth: .eight, factor: 3, stripRows: 2)
        // Rows 0-2, 3-5 and 6 (repeated) of columns 0-2 and 3 (repeated), each pass rounding its mean.
        XCTAssertEqual(try shrunk.samples(), [5, 7, 17, 19, 25, 27])
    }

    private static func image(_ samples: [Int], width: Int, height: Int, bands: Int, depth: VImage.SampleDepth) throws -> VImage {
        try VImage.decoded(filling: width, height: height, bands: bands, depth: depth) { canvas in
            write(samples[...], depth, to: canvas)
        }
    }

    /// `samples` handed over `stripRows` rows at a time, as a HEIC's rows of tiles are.
    private static func shrunkInStrips(_ samples: [Int], width: Int, height: Int, bands: Int, depth: VImage.SampleDepth, factor: Int,
                                       stripRows: Int) throws -> VImage {
        let size = ShrinkingStrips.shrunk(width: width, height: height, by: factor), row = width * bands
        return try VImage.decoded(filling: size.width, height: size.height, bands: bands, depth: depth) { canvas in
            let strips = ShrinkingStrips(width: width, height: height, bands: bands, depth: depth, factor: factor, stripRows: stripRows,
                                         into: canvas)
            for top in stride(from: 0, to: height, by: stripRows) {
                let rows = min(stripRows, height - top)
                write(samples[(top * row)..<((top + rows) * row)], depth, to: strips.strip + strips.pending * strips.stride)
                strips.add(rows: rows)
            }
        }
    }

    private static func write(_ samples: ArraySlice<Int>, _ depth: VImage.SampleDepth, to bytes: UnsafeMutablePointer<UInt8>) {
        for (index, sample) in samples.enumerated() {
            if depth == .eight {
                bytes[index] = UInt8(sample)
            } else {
                UnsafeMutableRawPointer(bytes).storeBytes(of: UInt16(sample), toByteOffset: 2 * index, as: UInt16.self)
            }
        }
    }
}
