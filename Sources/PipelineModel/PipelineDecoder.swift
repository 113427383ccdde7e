import Foundation

extension Pipeline {
    /// Reads and validates a pipeline file. Relative roots resolve against the file's folder.
    public static func load(contentsOf file: URL, displayName: String? = nil) throws -> Pipeline {
        let name = displayName ?? file.path
        do {
            let data: Data
            do {
                data = try Data(contentsOf: file)
            } catch {
                throw PipelineError(path: "", message: "cannot read the file (\(error.localizedDescription))")
            }
            return try decode(data, baseDirectory: file.deletingLastPathComponent())
        } catch var error as PipelineError {
            error.file = name
            throw error
        }
    }

    /// Decodes and validates a pipeline document.
    public static func decode(_ data: Data, baseDirectory: URL) throws -> Pipeline {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw PipelineError(path: "", message: "not valid JSON (\(jsonSyntaxReason(data, error)))")
        }
        return try PipelineDecoder(baseDirectory: baseDirectory).pipeline(JSONReader(value: document, path: ""))
    }

    /// JSONDecoder only says "not valid JSON"; JSONSerialization says where.
    private static func jsonSyntaxReason(_ data: Data, _ error: Error) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            if let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String { return reason }
        }
        return "\(error)"
    }
}

/// Decodes a pipeline document section by section; stages are decoded in `StageDecoder.swift`
/// and their order checked in `StageOrder.swift`.
struct PipelineDecoder {
    let baseDirectory: URL

    func pipeline(_ reader: JSONReader) throws -> Pipeline {
        let root = try reader.object()
        let versionReader = try root.required("version")
        let version = try versionReader.positiveInteger()
        guard version <= Defaults.supportedVersion else {
            throw versionReader.fail("this mediabatch reads pipeline version \(Defaults.supportedVersion), found \(version); upgrade mediabatch")
        }
        let input = try input(root.optional("input") ?? JSONReader(value: .object([:]), path: "input"))
        let output = try root.optional("output").map(output) ?? Pipeline.Output(root: nil, manifest: nil)
        let limits = try limits(root.optional("limits") ?? JSONReader(value: .object([:]), path: "limits"))
        let onError = try root.optional("onError").map {
            try $0.oneOf("what a failed item does to the run", Pipeline.OnError.allCases.map { ($0.rawValue, $0) })
        } ?? Defaults.onError
        let stages = try stageList(root.required("stages"))
        try root.finish()
        return Pipeline(version: version, input: input, output: output, limits: limits, onError: onError, stages: stages)
    }

    func directory(_ reader: JSONReader) throws -> URL {
        let path = try reader.string()
        guard !path.isEmpty else { throw reader.expected("a folder path") }
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
        return url.standardizedFileURL
    }

    /// A file under the output root: relative, and never climbing out of it.
    func relativeFile(_ reader: JSONReader) throws -> String {
        let path = try reader.string()
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.hasPrefix("/"), !components.contains(where: { ["", ".", ".."].contains($0) }) else {
            throw reader.expected("a file path relative to the output root, without empty, \".\" or \"..\" parts")
        }
        return path
    }

    func globs(_ reader: JSONReader) throws -> [Glob] {
        try reader.array().map { Glob(try $0.string()) }
    }

    func input(_ reader: JSONReader) throws -> Pipeline.Input {
        let object = try reader.object()
        let input = Pipeline.Input(
            root: try object.optional("root").map(directory),
            include: try object.optional("include").map(globs) ?? Defaults.include.map(Glob.init),
            exclude: try object.optional("exclude").map(globs) ?? Defaults.exclude.map(Glob.init),
            formats: try object.optional("formats").map(formats) ?? Defaults.formats,
            extensionMismatch: try object.optional("extensionMismatch").map {
                try $0.oneOf("what to do when a file's content contradicts its extension",
                             Pipeline.ExtensionMismatch.allCases.map { ($0.rawValue, $0) })
            } ?? Defaults.extensionMismatch,
            followSymlinks: try object.optional("followSymlinks")?.boolean() ?? Defaults.followSymlinks,
            trusted: try object.optional("trusted")?.boolean() ?? Defaults.trusted)
        try object.finish()
        return input
    }

    func output(_ reader: JSONReader) throws -> Pipeline.Output {
        let object = try reader.object()
        let output = Pipeline.Output(root: try object.optional("root").map(directory),
                                     manifest: try object.optional("manifest").map(relativeFile))
        try object.finish()
        return output
    }

    func limits(_ reader: JSONReader) throws -> Pipeline.Limits {
        let object = try reader.object()
        let limits = Pipeline.Limits(
            concurrency: try object.optional("concurrency")?.positiveInteger(),
            memoryBudget: try object.optional("memoryBudget").map(byteSize) ?? Defaults.memoryBudget,
            maxPixels: try object.optional("maxPixels")?.positiveInteger() ?? Defaults.maxPixels,
            maxFileBytes: try object.optional("maxFileBytes").map(byteSize) ?? Defaults.maxFileBytes,
            maxFrames: try object.optional("maxFrames")?.positiveInteger() ?? Defaults.maxFrames,
            timeoutSeconds: try object.optional("timeout").map(seconds) ?? Defaults.timeoutSeconds)
        try object.finish()
        return limits
    }

    func formats(_ reader: JSONReader) throws -> Set<MediaFormat> {
        let choices = MediaFormat.allCases.map { ($0.rawValue, $0) }
        let names = try reader.stringOrStrings()
        guard !names.isEmpty else { throw reader.fail("expected at least one format") }
        return Set(try names.map { try $0.oneOf("a format", choices) })
    }

    /// "90s", "2m", "1h" or a number of seconds.
    func seconds(_ reader: JSONReader) throws -> Int {
        let expectation = "a duration such as \"90s\", \"2m\" or a number of seconds"
        switch reader.value {
        case .number: return try reader.positiveInteger()
        case .string(let text):
            let units = ["s": 1, "m": 60, "h": 3600]
            guard let unit = text.last.flatMap({ units[String($0)] }), let count = Int(text.dropLast()), count >= 1,
                  count <= Int(Int32.max) / unit
            else { throw reader.expected(expectation) }
            return count * unit
        default: throw reader.expected(expectation)
        }
    }

    func byteSize(_ reader: JSONReader) throws -> ByteSize {
        let expectation = "a size such as \"600MiB\", \"1GiB\" or a number of bytes"
        switch reader.value {
        case .number: return ByteSize(bytes: try reader.positiveInteger())
        case .string(let text): return try ByteSize(parsing: text).orThrow(reader.expected(expectation))
        default: throw reader.expected(expectation)
        }
    }
}

extension Optional {
    func orThrow(_ error: @autoclosure () -> Error) throws -> Wrapped {
        guard let value = self else { throw error() }
        return value
    }
}
