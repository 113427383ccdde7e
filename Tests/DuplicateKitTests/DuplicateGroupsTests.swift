import Foundation
@testable import DuplicateKit
import MediaFormats
import XCTest

/// Tiers and keepers over fingerprints of synthetic pictures (the real transforms are
/// FingerprintStageTests'): a crop is found by the aligned search, a shifted scene is not.
final class DuplicateGroupsTests: XCTestCase {
    /// A smooth scene of blobs, sampled over `window` (fractions of the whole) at 64 × 64.
    /// `moved`: how far its first blob has gone (a subject that moved between two shots).
    private func scene(_ window: (x: Double, y: Double, w: Double, h: Double) = (0, 0, 1, 1), seed: Int = 1, moved: Double = 0) -> [UInt8] {
        let blobs = (0..<6).map { index -> (Double, Double, Double) in
            let t = Double(seed * 7 + index)
            return (0.5 + 0.4 * sin(t * 1.7) + (index == 0 ? moved : 0), 0.5 + 0.4 * cos(t * 2.3), 0.08 + 0.05 * abs(sin(t)))
        }
        let side = PhotoFingerprint.pictureSide
        return (0..<side * side).map { cell in
            let x = window.x + window.w * (Double(cell % side) + 0.5) / Double(side), y = window.y + window.h * (Double(cell / side) + 0.5) / Double(side)
            let value = blobs.reduce(40.0) { $0 + 180 * exp(-(pow(x - $1.0, 2) + pow(y - $1.1, 2)) / (2 * $1.2 * $1.2)) }
            return UInt8(min(255, value))
        }
    }

    private func candidate(_ path: String, _ luma: [UInt8], width: Int = 1200, height: Int = 900, format: MediaFormat = .jpeg,
                           hash: String? = nil, metadata: Int = 0) -> (DuplicateCandidate, PhotoFingerprint?) {
        let print = PhotoFingerprint(picture: luma)
        return (DuplicateCandidate(path: path, contentHash: hash ?? String(repeating: String(path.hashValue & 0xffff, radix: 16), count: 8),
                                   hashes: print?.hashes ?? [],
                                   keeper: KeeperFacts(format: format, width: width, height: height, metadataBytes: metadata, captured: nil)), print)
    }

    func testTiersAndKeepers() {
        let sha = String(repeating: "ab", count: 32)
        let found = [
            candidate("a.heic", scene(), format: .heic),
            candidate("a.jpg", scene(), hash: sha, metadata: 100),
            candidate("copy/a.jpg", scene(), hash: sha, metadata: 100),
            candidate("a_crop.jpg", scene((0.04, 0.03, 0.93, 0.93)), width: 1116, height: 837),
            candidate("b.jpg", scene(seed: 2)),
            candidate("b_later.jpg", scene(seed: 2, moved: 0.05)),
            candidate("c.jpg", scene(seed: 3), hash: String(repeating: "cd", count: 32)),
            candidate("c_copy.jpg", scene(seed: 3), hash: String(repeating: "cd", count: 32)),
            candidate("black.jpg", [UInt8](repeating: 0, count: 64 * 64)),
            candidate("black2.jpg", [UInt8](repeating: 0, count: 64 * 64)),
            candidate("a.mov", scene(), format: .mov),
        ]
        let files = found.map(\.0)
        let groups = DuplicateSearch.groups(files) { indices in
            Dictionary(uniqueKeysWithValues: indices.compactMap { index in found[index].1.map { (index, $0) } })
        }
        let described = groups.map { group in "\(group.tier.rawValue) \(files[group.keeper].path): " + group.members.map { files[$0].path }.joined(separator: " ") }
        XCTAssertEqual(described, [
            "identical c.jpg: c.jpg c_copy.jpg",
            "samePhoto a.heic: a.heic a.jpg a_crop.jpg copy/a.jpg",
            "similar b.jpg: b.jpg b_later.jpg",
        ])
        XCTAssertEqual(groups.map(\.why), ["identical bytes: the first by path", "heic: the more original format over jpeg", "alike: the first by path"])
    }

    func testKeeperRulesInOrder() {
        let raw = KeeperFacts(format: .nef, width: 100, height: 100, metadataBytes: 0, captured: nil)
        let big = KeeperFacts(format: .jpeg, width: 4000, height: 3000, metadataBytes: 0, captured: nil)
        let rich = KeeperFacts(format: .jpeg, width: 4000, height: 3000, metadataBytes: 900, captured: nil)
        let early = KeeperFacts(format: .jpeg, width: 4000, height: 3000, metadataBytes: 900, captured: Date(timeIntervalSince1970: 0))
        let late = KeeperFacts(format: .jpeg, width: 4000, height: 3000, metadataBytes: 900, captured: Date(timeIntervalSince1970: 9))
        XCTAssertEqual(KeeperRule.better(raw, than: big), true)
        XCTAssertEqual(KeeperRule.better(rich, than: big), true)
        XCTAssertEqual(KeeperRule.better(early, than: late), true)
        XCTAssertNil(KeeperRule.better(rich, than: rich))
    }
}
