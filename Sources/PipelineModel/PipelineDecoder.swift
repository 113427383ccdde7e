import Foundation

extension Pipeline {
    /// Reads and validates a pipeline file of the stages `catalog` lists. Relative roots resolve
    /// against the file's folder.
    public static func load(contentsOf file: URL, displayName: String? = nil, catalog: StageCatalog) throws -> Pipeline {
        let name = displayName ?? file.path
        do {
            let data: Data
            do {
                data = try Data(contentsOf: file)
            } catch {
                throw PipelineError(path: "", message: "cannot read the file (\(error.localizedDescription))")
            }
            return try decode(data, baseDirectory: file.deletingLastPathComponent(), catalog: catalog)
        } catch var error as PipelineError {
            error.file = name
            throw error
        }
    }

    /// Decodes and validates a pipeline document of the stages `catalog` lists.
    public static func decode(_ data: Data, baseDirectory: URL, catalog: StageCatalog) throws -> Pipeline {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw PipelineError(path: "", message: "not valid JSON (\(jsonSyntaxReason(data, error)))")
        }
        return try PipelineDecoder(baseDirectory: baseDirectory, catalog: catalog).pipeline(JSONReader(value: document, path: ""))
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

/// Decodes a pipeline document section by section, every key through its declaration
/// (`PipelineKeys.swift`, each stage's `syntax`); the stages' order is checked in `StageOrder.swift`.
struct PipelineDecoder {
    let baseDirectory: URL
    let catalog: StageCatalog

    func pipeline(_ reader: JSONReader) throws -> Pipeline {
        let root = try reader.object()
        let version = try root.value(TopLevelKeys.version)
        _ = try root.optionalValue(TopLevelKeys.schema)
        let input = try input(root.optionalValue(TopLevelKeys.input) ?? JSONReader(value: .object([:]), path: "input"))
        let output = try root.optionalValue(TopLevelKeys.output).map(output) ?? Pipeline.Output(root: nil, manifest: nil)
        let limits = try limits(root.optionalValue(TopLevelKeys.limits) ?? JSONReader(value: .object([:]), path: "limits"))
        let onError = try root.value(TopLevelKeys.onError)
        let stages = try stageList(root.value(TopLevelKeys.stages(catalog)), pairs: input.rawJpegPairs)
        try root.finish(declared: TopLevelKeys.all(catalog))
        return Pipeline(version: version, input: input, output: output, limits: limits, onError: onError, stages: stages)
    }

    /// A folder as the file writes it, made absolute against the pipeline file's folder.
    func directory(_ path: String) -> URL {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appending(path: path)
        return url.standardizedFileURL
    }

    func input(_ reader: JSONReader) throws -> Pipeline.Input {
        let object = try reader.object()
        let input = Pipeline.Input(
            root: try object.optionalValue(InputKeys.root).map(directory),
            include: try object.value(InputKeys.include).map(Glob.init),
            exclude: try object.value(InputKeys.exclude).map(Glob.init),
            formats: Set(try object.value(InputKeys.formats)),
            extensionMismatch: try object.value(InputKeys.extensionMismatch),
            followSymlinks: try object.value(InputKeys.followSymlinks),
            trusted: try object.value(InputKeys.trusted),
            rawJpegPairs: try object.value(InputKeys.rawJpegPairs), duplicates: try object.value(InputKeys.duplicates),
            timeZone: try object.optionalValue(InputKeys.timeZone), sidecars: try object.value(InputKeys.sidecars))
        try object.finish(declared: InputKeys.all)
        return input
    }

    func output(_ reader: JSONReader) throws -> Pipeline.Output {
        let object = try reader.object()
        let output = Pipeline.Output(root: try object.optionalValue(OutputKeys.root).map(directory),
                                     manifest: try object.optionalValue(OutputKeys.manifest))
        try object.finish(declared: OutputKeys.all)
        return output
    }

    func limits(_ reader: JSONReader) throws -> Pipeline.Limits {
        let object = try reader.object()
        let limits = Pipeline.Limits(
            concurrency: try object.optionalValue(LimitsKeys.concurrency),
            memoryBudget: try object.value(LimitsKeys.memoryBudget),
            maxPixels: try object.optionalValue(LimitsKeys.maxPixels),
            maxFileBytes: try object.value(LimitsKeys.maxFileBytes),
            maxFrames: try object.value(LimitsKeys.maxFrames),
            maxVideoDurationSeconds: try object.value(LimitsKeys.maxVideoDuration),
            maxVideoFrames: try object.value(LimitsKeys.maxVideoFrames),
            timeoutSeconds: try object.value(LimitsKeys.timeout))
        try object.finish(declared: LimitsKeys.all)
        return limits
    }

    func stageList(_ items: [JSONReader], pairs: Pipeline.RawJpegPairs) throws -> [any Stage] {
        let stages = try items.map(stage)
        try checkOrder(stages, items, pairs: pairs)
        return stages
    }

    func stage(_ reader: JSONReader) throws -> any Stage {
        let object = try reader.object()
        let syntax = try object.required("stage").oneOf("a stage name", catalog.syntaxes.map { ($0.spelling, $0) })
        let stage = try syntax.make(object)
        try object.finish(declared: syntax.keys)
        return stage
    }
}

extension Optional {
    func orThrow(_ error: @autoclosure () -> Error) throws -> Wrapped {
        guard let value = self else { throw error() }
        return value
    }
}
