import Foundation
import MetadataKit
import PipelineModel
import VipsKit

/// Pairs Live Photo halves among the files of one folder: a still (HEIC or JPEG) and a QuickTime
/// movie carrying the same content identifier (Apple MakerNote tag 0x11 in the still,
/// `com.apple.quicktime.content.identifier` in the movie). Halves carrying no identifier pair by
/// stem (`IMG_0001.HEIC` + `IMG_0001.MOV`) only when neither carries one.
///
/// Pairs are looked for within a folder, where cameras, Image Capture, iCloud and Takeout exports
/// put them; only folders holding both a still and a movie cost any header reads.
public struct LivePhotoPairing<Base: Sequence>: Sequence where Base.Element == InputItem {
    let base: Base
    let known: (InputItem) -> LivePhotoPairer.KnownHalf?
    let identifier: LivePhotoPairer.IdentifierReader

    /// `known` answers from the state database for files unchanged since the last run;
    /// `identifier` reads a half's content identifier (in a worker process for untrusted input).
    init(_ base: Base, known: @escaping (InputItem) -> LivePhotoPairer.KnownHalf? = { _ in nil },
         identifier: @escaping LivePhotoPairer.IdentifierReader = LivePhotoPairer.readIdentifier) {
        self.base = base
        self.known = known
        self.identifier = identifier
    }

    public func makeIterator() -> Iterator {
        Iterator(base: base.makeIterator(), known: known, identifier: identifier)
    }

    public struct Iterator: IteratorProtocol {
        var base: Base.Iterator
        let known: (InputItem) -> LivePhotoPairer.KnownHalf?
        let identifier: LivePhotoPairer.IdentifierReader
        private var lookahead: InputItem?
        private var ready: [InputItem] = []

        init(base: Base.Iterator, known: @escaping (InputItem) -> LivePhotoPairer.KnownHalf?,
             identifier: @escaping LivePhotoPairer.IdentifierReader) {
            self.base = base
            self.known = known
            self.identifier = identifier
        }

        public mutating func next() -> InputItem? {
            if ready.isEmpty {
                guard let first = lookahead ?? base.next() else { return nil }
                lookahead = nil
                var folder = [first]
                while let item = base.next() {
                    guard item.relativeFolder == first.relativeFolder else {
                        lookahead = item
                        break
                    }
                    folder.append(item)
                }
                ready = LivePhotoPairer.pair(folder, known: known, identifier: identifier).reversed()
            }
            return ready.popLast()
        }
    }
}
