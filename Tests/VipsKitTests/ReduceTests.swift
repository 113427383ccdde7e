import Foundation
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// mediabatch's Lanczos-3 reduce (the shim's reduce.c) against libvips' own `vips_reduceh` and
/// `vips_reducev` with the same kernel (8.14's on Debian 12, 8.16's on 13): every sample equal, at
/// every instruction-set level this CPU has, for each pass that is mediabatch's there.
final class ReduceTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    override func tearDown() {
        VImage.forceReduceLevel(nil)
    }

    /// The levels this machine runs: each comparison runs at every one of them.
    static let levels = VImage.ReduceLevel.allCases.filter { VImage.forceReduceLevel($0) == $0 }

    /// Shrinks from barely (1.01) to 8, with and without libvips' integer pre-shrink (gap 2).
    static let ratios = [1.01, 1.25, 1.5, 1.97, 2, 2.5, 3.3, 4.7, 8]

    enum Axis: CaseIterable { case horizontal, vertical }

    func testEveryLevelThisCPUHasIsCompared() {
        #if arch(x86_64)
        // This project's machines have AVX2; a CPU without it would leave the vector loops untested.
        XCTAssertEqual(Self.levels, [.scalar, .sse41, .avx2])
        #else
        XCTAssertEqual(Self.levels, [.scalar])
        #endif
        // The shim is optimised in debug builds too (Package.swift): the tests run the passes a release runs.
        XCTAssertEqual(VImage.forceReduceLevel(nil), Self.levels.last)
    }

    /// Which passes are mediabatch's is decided by what libvips computes (a probe), not by its
    /// version; on the two Debian releases that gives: libvips 8.14's scalar horizontal pass and
    /// ORC vertical one both replaced; on 8.16 (Highway) the horizontal pass only, its vertical
    /// one rounding masks to 12 bits where ours, as 8.14's ORC, rounds to 6.
    func testOwnPassesAreWhereLibvipsComputesTheSameSamples() {
        XCTAssertTrue(VImage.reducesItself(vertically: false))
        XCTAssertEqual(VImage.reducesItself(vertically: true), !libvipsIsNewer(than: 8, 14), "libvips \(Vips.version)")
    }

    func testReduceMatchesLibvipsOnRandomImagesOfEveryBandCount() throws {
        var rng = SplitMix(seed: 20261125)
        for level in Self.levels {
            VImage.forceReduceLevel(level)
            for axis in Axis.allCases {
                for bands in 1...4 {
                    for ratio in Self.ratios {
                        let long = Int.random(in: Int(ratio) + 1...700, using: &rng) | 1, short = Int.random(in: 1...7, using: &rng)
                        let (width, height) = axis == .horizontal ? (long, short) : (short, long)
                        let image = try Self.randomImage(width: width, height: height, bands: bands, using: &rng)
                        let gap = Bool.random(using: &rng) ? 2.0 : 0
                        try assertMatchesLibvips(image, axis, ratio, gap: gap, "\(level) \(axis) \(width)×\(height)×\(bands) by \(ratio), gap \(gap)")
                    }
                }
            }
        }
    }

    /// Images narrower than the mask (every tap past an edge), and output one pixel wide.
    func testTinyImagesReduceAsLibvipsDoes() throws {
        var rng = SplitMix(seed: 7)
        for level in Self.levels {
            VImage.forceReduceLevel(level)
            for axis in Axis.allCases {
                for (size, ratio) in [(1, 1.01), (2, 1.5), (3, 2.9), (5, 8.0), (13, 2.0), (16, 1.97), (33, 4.0)] {
                    let image = try Self.randomImage(width: axis == .horizontal ? size : 3, height: axis == .horizontal ? 3 : size,
                                                     bands: 1 + size % 4, using: &rng)
                    try assertMatchesLibvips(image, axis, ratio, gap: 0, "\(level) \(axis) \(size) by \(ratio)")
                }
            }
        }
    }

    /// Columns asked for away from the image's edges (a crop after the reduce): the horizontal pass
    /// reads its input itself, repeating edge pixels only where a tap passes an edge.
    func testAWindowOfTheReduceIsThatWindowOfLibvips() throws {
        var rng = SplitMix(seed: 11)
        for level in Self.levels {
            VImage.forceReduceLevel(level)
            for bands in [1, 3, 4] {
                let image = try Self.randomImage(width: 701, height: 4, bands: bands, using: &rng)
                let ours = try image.reducedHorizontally(by: 1.97), theirs = try image.reducedHorizontally(by: 1.97, libvips: true)
                for (left, width) in [(0, 1), (0, 40), (1, 3), (100, 57), (170, 100), (ours.width - 40, 40), (ours.width - 1, 1)] {
                    let context = "\(level) \(bands) bands, columns \(left)..<\(left + width) of \(ours.width)"
                    XCTAssertEqual(try Self.largestDifference(try ours.cropped(left: left, top: 0, width: width, height: 4),
                                                              try theirs.cropped(left: left, top: 0, width: width, height: 4)), 0, context)
                }
            }
        }
    }

    func testRealPhotosReduceAsLibvipsDoes() throws {
        // A 12 MP iPhone photo at half size (libjpeg's shrink on load) and a 1800 × 1200 one.
        let photos = [try Self.decoded(Fixtures.sample("livephoto/train.jpg"), options: "[shrink=2]"),
                      try Self.decoded(Fixtures.sample("jpeg/orientation/Landscape_1.jpg"))]
        for photo in photos {
            for axis in Axis.allCases {
                for ratio in [1.01, 1.97, 3.1, 8] {
                    let theirs = try Self.reduced(photo, axis, ratio, gap: 2, libvips: true).inMemory()
                    for level in Self.levels {
                        VImage.forceReduceLevel(level)
                        let context = "\(level) \(axis) \(photo.width)×\(photo.height) by \(ratio)"
                        try assertMatches(try Self.reduced(photo, axis, ratio, gap: 2), theirs, axis, context)
                    }
                }
            }
        }
    }

    /// The comparison itself can fail: a reduce by a slightly different factor (same output size,
    /// other masks) is told apart.
    func testADifferentShrinkIsToldApart() throws {
        var rng = SplitMix(seed: 3)
        let image = try Self.randomImage(width: 1000, height: 4, bands: 3, using: &rng)
        let ours = try image.reducedHorizontally(by: 2.0), theirs = try image.reducedHorizontally(by: 1.999, libvips: true)
        XCTAssertEqual(ours.width, theirs.width)
        XCTAssertGreaterThan(try Self.largestDifference(ours, theirs), 1)
    }

    func testShrinkingToNothingFailsAsInLibvips() throws {
        let image = try VImage.fromPixels([1, 2], width: 2, height: 1, bands: 1)
        XCTAssertThrowsError(try image.reducedHorizontally(by: 8, libvips: true))
        XCTAssertThrowsError(try image.reducedHorizontally(by: 8))
        XCTAssertThrowsError(try image.reducedHorizontally(by: 0.5))
    }

    // MARK: - Helpers

    func assertMatchesLibvips(_ image: VImage, _ axis: Axis, _ ratio: Double, gap: Double, _ context: String,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        let theirs = try Self.reduced(image, axis, ratio, gap: gap, libvips: true)
        try assertMatches(try Self.reduced(image, axis, ratio, gap: gap), theirs, axis, context, file: file, line: line)
    }

    /// `ours`, built just before (by mediabatch's reduce, where it computes that pass), against
    /// libvips' `theirs`.
    func assertMatches(_ ours: @autoclosure () throws -> VImage, _ theirs: VImage, _ axis: Axis, _ context: String,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let builds = VImage.ownReduceBuilds
        let ours = try ours()
        let own = VImage.reducesItself(vertically: axis == .vertical)
        XCTAssertEqual(VImage.ownReduceBuilds, builds + (own ? 1 : 0), "mediabatch's reduce ran: \(context)", file: file, line: line)
        XCTAssertEqual([ours.width, ours.height, ours.bands], [theirs.width, theirs.height, theirs.bands], context, file: file, line: line)
        XCTAssertEqual(try Self.largestDifference(ours, theirs), 0, context, file: file, line: line)
    }

    static func reduced(_ image: VImage, _ axis: Axis, _ ratio: Double, gap: Double, libvips: Bool = false) throws -> VImage {
        try axis == .horizontal ? image.reducedHorizontally(by: ratio, gap: gap, libvips: libvips)
            : image.reducedVertically(by: ratio, gap: gap, libvips: libvips)
    }

    static func largestDifference(_ a: VImage, _ b: VImage) throws -> Int {
        try differences(a, b).largest
    }

    /// The largest and the mean absolute difference of two images' samples (the same count). Equal
    /// samples, the common case, are told by one `memcmp`: a debug build compares a 2048 px picture a
    /// sample at a time in most of a second.
    static func differences(_ a: VImage, _ b: VImage) throws -> (largest: Int, mean: Double) {
        let mine = try a.pixels(), theirs = try b.pixels()
        guard mine.count == theirs.count, !mine.isEmpty else { return mine.count == theirs.count ? (0, 0) : (.max, .infinity) }
        return mine.withUnsafeBufferPointer { x in
            theirs.withUnsafeBufferPointer { y in
                guard memcmp(x.baseAddress!, y.baseAddress!, x.count) != 0 else { return (0, 0) }
                var largest = 0, sum = 0
                for index in 0..<x.count {
                    let difference = abs(Int(x[index]) - Int(y[index]))
                    largest = max(largest, difference)
                    sum += difference
                }
                return (largest, Double(sum) / Double(x.count))
            }
        }
    }

    /// Noise, hard black and white (the kernel's negative lobes overshoot 0 and 255) or smooth
    /// ramps, a third of the time each.
    static func randomImage(width: Int, height: Int, bands: Int, using rng: inout SplitMix) throws -> VImage {
        let count = width * height * bands, kind = Int.random(in: 0..<3, using: &rng)
        let samples: [UInt8] = (0..<count).map { index in
            switch kind {
            case 0: UInt8.random(in: 0...255, using: &rng)
            case 1: Bool.random(using: &rng) ? 255 : 0
            default: UInt8(truncatingIfNeeded: index * 7 / bands + index % bands * 40)
            }
        }
        return try VImage.fromPixels(samples, width: width, height: height, bands: bands)
    }

    /// A file decoded whole into memory (loader options in libvips' "[name=value]" form).
    static func decoded(_ path: String, options: String = "") throws -> VImage {
        try VImage.open(path + options).inMemory()
    }
}
