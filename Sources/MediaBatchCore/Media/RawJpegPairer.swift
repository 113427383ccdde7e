import MediaFormats
import PipelineModel

/// Finds a camera's RAW+JPEG pairs among the files of one folder: a RAW and a JPEG (or a HEIF,
/// which Canon and Fujifilm write beside their RAWs) of the same stem, case-insensitively, as
/// cameras name them. Only stems listed more than once are sniffed.
enum RawJpegPairer {
    /// The folder's items with `rawJpegPair` set on both files of each pair whose formats the
    /// pipeline reads. `format` sniffs (or recalls) an item's format.
    static func pair(_ items: [InputItem], policy: Pipeline.RawJpegPairs, formats: Set<MediaFormat>,
                     format: (InputItem) -> MediaFormat?) -> [InputItem] {
        var byStem: [String: [Int]] = [:]
        for (index, item) in items.enumerated() where item.refusal == nil {
            byStem[item.stem.lowercased(), default: []].append(index)
        }
        var paired = items
        // Stems in listing order, so which file pairs never depends on a dictionary's order.
        for indices in byStem.values.filter({ $0.count > 1 }).sorted(by: { $0[0] < $1[0] }) {
            let read = indices.compactMap { index in format(items[index]).flatMap { formats.contains($0) ? (index, $0) : nil } }
            guard let raw = read.first(where: { $0.1.isCameraRaw })?.0,
                  let jpeg = read.first(where: { $0.1 == .jpeg || $0.1 == .heic })?.0 else { continue }
            paired[raw].rawJpegPair = RawJpegPair(role: .raw, partner: items[jpeg].relativePath, processed: policy != .jpeg)
            paired[jpeg].rawJpegPair = RawJpegPair(role: .jpeg, partner: items[raw].relativePath, processed: policy != .raw)
        }
        return paired
    }
}
