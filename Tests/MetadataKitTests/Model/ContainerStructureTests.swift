import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// HEIFStructure, JPEGStructure, PNGStructure and MovieMetadata's tracks on real files, then on
/// those files cut short and with bytes flipped: every read answers or throws, never traps.
final class ContainerStructureTests: XCTestCase {
    let kinds = Fixtures.fixtures.appendingPathComponent("kinds")

    func testReadsTheEvidenceRealFilesCarry() throws {
        let pug = try HEIFStructure(path: Fixtures.sample("heic/pug.heic"))
        XCTAssertEqual(pug.brands.first, "heic")
        XCTAssertTrue(pug.auxiliaryTypes.contains("urn:mpeg:hevc:2015:auxid:2"))
        XCTAssertTrue(pug.auxiliaryTypes.contains("urn:com:apple:photo:2020:aux:hdrgainmap"))
        XCTAssertTrue(pug.itemTypes.contains("grid"))
        XCTAssertFalse(HEIFStructure.isSequence(pug))
        XCTAssertEqual(try HEIFStructure(path: kinds.appendingPathComponent("images/spatial_stereo_pair.avif").path).entityGroupTypes, ["ster"])

        let gainMap = try JPEGStructure(path: kinds.appendingPathComponent("images/hdr_apple_gainmap_mpf.jpg").path)
        XCTAssertEqual(gainMap.pictures.count, 2)
        XCTAssertEqual(gainMap.auxiliaryXMP.count, 1)
        XCTAssertEqual(try JPEGStructure(path: kinds.appendingPathComponent("images/motionphoto_samsung_trailer.jpg").path).samsungTrailerTypes,
                       [JPEGStructure.samsungMotionPhotoData])
        XCTAssertEqual(try JPEGStructure(path: Fixtures.sample("jpeg/apple_iphone_4.jpg")).pictures, [])

        XCTAssertEqual(try PNGStructure(path: kinds.appendingPathComponent("images/animated_3frames.png").path).animationFrames, 3)
        XCTAssertNil(try PNGStructure(path: Fixtures.sample("png/macos_screenshot_exif.png")).animationFrames)

        let cinematic = try MovieMetadata(contentsOfFile: kinds.appendingPathComponent("videos/cinematic.mov").path)
        XCTAssertTrue(cinematic.tracks.contains { $0.sampleEntryTypes == ["mebx"] && $0.timedMetadataKeys.contains("com.apple.quicktime.cinematic-video.rendering") })
        let timelapse = try MovieMetadata(contentsOfFile: kinds.appendingPathComponent("videos/timelapse.mov").path)
        XCTAssertEqual(timelapse.tracks.first { $0.handler == "vide" }?.keyedValues.first?.value, "Time-lapse")
        let spatial = try MovieMetadata(contentsOfFile: kinds.appendingPathComponent("videos/spatial.mov").path)
        XCTAssertTrue(spatial.tracks.contains { $0.sampleEntryBoxTypes.contains("vexu") })
    }

    func testDamagedFilesAnswerOrThrowWithoutTrapping() throws {
        // Each file with the reader meant for it, what that reader finds in it undamaged, and how
        // many of its damaged copies (40 or 41 cut short, 40 with bytes changed) it must still
        // read, or the test stops exercising the parsing. On Swift 6.3.1 it reads 33 (HEIC: a
        // cut file ends inside a box, so only changed copies read), 79, 80, 79 and 34 (movie).
        let specimens: [(path: String, reader: KeyPath<Answers, Bool>, undamaged: (Answers) -> Bool, minimumRead: Int)] = [
            (Fixtures.sample("heic/pug.heic"), \.heif.isRead, { $0.heif.value?.brands.first == "heic" }, 25),
            (kinds.appendingPathComponent("images/hdr_apple_gainmap_mpf.jpg").path, \.jpeg.isRead,
             { $0.jpeg.value?.pictures.count == 2 }, 60),
            (kinds.appendingPathComponent("images/motionphoto_samsung_trailer.jpg").path, \.jpeg.isRead,
             { $0.jpeg.value?.samsungTrailerTypes == [JPEGStructure.samsungMotionPhotoData] }, 60),
            (kinds.appendingPathComponent("images/animated_3frames.png").path, \.png.isRead, { $0.png.value?.animationFrames == 3 }, 60),
            (kinds.appendingPathComponent("videos/cinematic.mov").path, \.movie.isRead,
             { $0.movie.value?.tracks.contains { $0.sampleEntryTypes == ["mebx"] } == true }, 25),
        ]
        var generator = SplitMix(seed: 20261123)
        let path = Fixtures.temporaryFolder().appendingPathComponent("damaged").path
        for specimen in specimens {
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: specimen.path)))
            XCTAssertTrue(specimen.undamaged(Answers(specimen.path, movieLength: original.count / 2)), "\(specimen.path), undamaged")
            var read = 0
            for (index, bytes) in damagedCopies(of: original, using: &generator).enumerated() {
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let answers = Answers(path, movieLength: bytes.count / 2)
                XCTAssertEqual(Answers(path, movieLength: bytes.count / 2), answers, "\(specimen.path), copy \(index): read twice")
                for failure in answers.failures {
                    XCTAssertTrue(failure.type == MetadataFormatError.self || failure.type == MovieFileError.self,
                                  "\(specimen.path), copy \(index): \(failure.type)")
                    XCTAssertFalse(failure.message.isEmpty, "\(specimen.path), copy \(index): a message says what is wrong")
                }
                if answers[keyPath: specimen.reader] { read += 1 }
            }
            XCTAssertGreaterThanOrEqual(read, specimen.minimumRead, specimen.path)
        }
    }

    /// `original` cut short at 40 lengths, then 40 copies with 4 bytes changed in the first
    /// 4 KiB, which hold every structure read here.
    private func damagedCopies(of original: [UInt8], using generator: inout SplitMix) -> [[UInt8]] {
        var copies = stride(from: 0, to: original.count, by: max(1, original.count / 40)).map { Array(original[..<$0]) }
        for _ in 0..<40 {
            var flipped = original
            for _ in 0..<4 { flipped[Int.random(in: 0..<min(flipped.count, 4096), using: &generator)] ^= UInt8.random(in: 1...255, using: &generator) }
            copies.append(flipped)
        }
        return copies
    }

    /// What every reader makes of one file.
    private struct Answers: Equatable {
        let heif: Answer<HEIFStructure>
        let jpeg: Answer<JPEGStructure>
        let png: Answer<PNGStructure>
        let movie: Answer<MovieMetadata>
        let endsWithMovie: Bool

        init(_ path: String, movieLength: Int) {
            heif = Answer { try HEIFStructure(path: path) }
            jpeg = Answer { try JPEGStructure(path: path) }
            png = Answer { try PNGStructure(path: path) }
            movie = Answer { try MovieMetadata(contentsOfFile: path) }
            endsWithMovie = JPEGStructure.endsWithMovie(path, length: movieLength)
        }

        var failures: [Failure] { [heif.failure, jpeg.failure, png.failure, movie.failure].compactMap { $0 } }
    }

    /// What a reader read, or what it threw.
    private enum Answer<Value: Equatable>: Equatable {
        case read(Value)
        case threw(Failure)

        init(_ read: () throws -> Value) {
            do {
                self = .read(try read())
            } catch {
                self = .threw(Failure(type: type(of: error), message: "\(error)"))
            }
        }

        var value: Value? { if case .read(let value) = self { value } else { nil } }
        var isRead: Bool { value != nil }
        var failure: Failure? { if case .threw(let failure) = self { failure } else { nil } }
    }

    /// A thrown error: its type tells the module's own errors from any other; its message is
    /// what a run report shows.
    private struct Failure: Equatable {
        let type: any Error.Type
        let message: String

        static func == (left: Failure, right: Failure) -> Bool {
            left.type == right.type && left.message == right.message
        }
    }
}
