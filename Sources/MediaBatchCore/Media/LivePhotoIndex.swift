import Foundation
import MediaFormats
import PipelineModel

/// The Live Photo pairs of the folders `inspect` looks at, each folder paired once.
public final class LivePhotoIndex {
    private var folders: [String: [String: LivePhotoPair]] = [:]

    public init() {}

    /// `path` as an item of its folder, with its pair when it is half of a Live Photo.
    func item(at path: String, format: MediaFormat) -> InputItem {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let folder = url.deletingLastPathComponent()
        let item = InputItem(root: folder, relativePath: url.lastPathComponent)
        guard LivePhotoPairer.canBeHalf(format) else { return item }
        if folders[folder.path] == nil {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.sorted() ?? []
            let files = names.map { InputItem(root: folder, relativePath: $0) }.filter {
                (try? $0.url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            }
            folders[folder.path] = Dictionary(uniqueKeysWithValues: LivePhotoPairer.pair(files).compactMap { file in
                file.livePhoto.map { (file.relativePath, $0) }
            })
        }
        return InputItem(root: folder, relativePath: item.relativePath, livePhoto: folders[folder.path]?[item.relativePath])
    }
}
