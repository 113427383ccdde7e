import Foundation
import MediaFormats
import PipelineModel

/// Hands a listing's items on folder by folder, each folder's files seen together by `pair`:
/// files that belong together (a Live Photo's still and movie, a camera's RAW and JPEG) sit in
/// one folder, where cameras, Image Capture, iCloud and Takeout exports put them.
public struct FolderPairing<Base: Sequence>: Sequence where Base.Element == InputItem {
    let base: Base
    let pair: ([InputItem]) -> [InputItem]

    init(_ base: Base, pair: @escaping ([InputItem]) -> [InputItem]) {
        self.base = base
        self.pair = pair
    }

    /// Sidecars with their photos (`SidecarPairer`), Live Photo halves (`LivePhotoPairer`), then
    /// RAW+JPEG pairs (`RawJpegPairer`), the skipped file's sidecars handed to the processed one.
    /// `known` answers from the state database for files unchanged since the last run;
    /// `identifier` reads a half's content identifier (in a worker process for untrusted input).
    init(_ base: Base, input: Pipeline.Input? = nil, known: @escaping (InputItem) -> LivePhotoPairer.KnownHalf? = { _ in nil },
         identifier: @escaping LivePhotoPairer.IdentifierReader = LivePhotoPairer.readIdentifier) {
        let (policy, formats) = (input?.rawJpegPairs ?? Defaults.rawJpegPairs, input?.formats ?? Defaults.formats)
        self.init(base) { folder in
            let halves = LivePhotoPairer.pair(SidecarPairer.pair(folder), known: known, identifier: identifier)
            return SidecarPairer.handOver(RawJpegPairer.pair(halves, policy: policy, formats: formats) {
                item in known(item)?.format ?? (try? FormatSniffer.format(of: item.path)) ?? nil
            })
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(base: base.makeIterator(), pair: pair)
    }

    public struct Iterator: IteratorProtocol {
        var base: Base.Iterator
        let pair: ([InputItem]) -> [InputItem]
        private var lookahead: InputItem?
        private var ready: [InputItem] = []

        init(base: Base.Iterator, pair: @escaping ([InputItem]) -> [InputItem]) {
            self.base = base
            self.pair = pair
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
                ready = pair(folder).reversed()
            }
            return ready.popLast()
        }
    }
}
