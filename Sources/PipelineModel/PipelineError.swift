/// A pipeline file that cannot be run, located by JSON path:
/// `pipeline.json: stages[2].maxPixelSize: expected a positive integer, found "big"`.
public struct PipelineError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The file as the user named it.
    public var file: String
    /// Where in the document, e.g. `stages[2].maxPixelSize`; empty for the document itself.
    public let path: String
    public let message: String

    public init(file: String = "", path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String {
        [file, path, message].filter { !$0.isEmpty }.joined(separator: ": ")
    }
}
