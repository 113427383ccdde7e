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

private struct PipelineDecoder {
    let baseDirectory: URL

    func pipeline(_ reader: JSONReader) throws -> Pipeline {
        let root = try reader.object()
        let version = try root.value(TopLevelKeys.version)
        _ = try root.optionalValue(TopLevelKeys.schema)
        let input = try input(root.optionalValue(TopLevelKeys.input) ?? JSONReader(value: .object([:]), path: "input"))
        let output = try root.optionalValue(TopLevelKeys.output).map(output) ?? Pipeline.Output(root: nil)
        let limits = try limits(root.optionalValue(TopLevelKeys.limits) ?? JSONReader(value: .object([:]), path: "limits"))
        let onError = try root.value(TopLevelKeys.onError)
        let stages = try stageList(root.value(TopLevelKeys.stages))
        try root.finish(declared: TopLevelKeys.all)
        return Pipeline(version: version, input: input, output: output, limits: limits, onError: onError, stages: stages)
    }

    /// A folder as the file writes it, made absolute against the pipeline file's folder.
    func directory(_ path: String) -> URL {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
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
            trusted: try object.value(InputKeys.trusted))
        try object.finish(declared: InputKeys.all)
        return input
    }

    func output(_ reader: JSONReader) throws -> Pipeline.Output {
        let object = try reader.object()
        let output = Pipeline.Output(root: try object.optionalValue(OutputKeys.root).map(directory))
        try object.finish(declared: OutputKeys.all)
        return output
    }

    func limits(_ reader: JSONReader) throws -> Pipeline.Limits {
        let object = try reader.object()
        let limits = Pipeline.Limits(
            concurrency: try object.optionalValue(LimitsKeys.concurrency),
            memoryBudget: try object.value(LimitsKeys.memoryBudget),
            maxPixels: try object.value(LimitsKeys.maxPixels),
            maxFileBytes: try object.value(LimitsKeys.maxFileBytes),
            maxFrames: try object.value(LimitsKeys.maxFrames),
            timeoutSeconds: try object.value(LimitsKeys.timeout))
        try object.finish(declared: LimitsKeys.all)
        return limits
    }

    func stageList(_ items: [JSONReader]) throws -> [Stage] {
        let stages = try items.map(stage)
        try checkOrder(stages, items)
        return stages
    }

    func stage(_ reader: JSONReader) throws -> Stage {
        let object = try reader.object()
        let syntax = try object.required("stage").oneOf("a stage name", StageSyntax.all.map { ($0.spelling, $0) })
        let stage = try syntax.make(object)
        try object.finish(declared: syntax.keys)
        return stage
    }

    /// Header stages (filter, decode) come first, pixel stages need a decode before them,
    /// downsample comes before transcode, each stage appears once, and write, when present, is last.
    func checkOrder(_ stages: [Stage], _ readers: [JSONReader]) throws {
        // Messages name a stage as the file spells it ("stripLocation", not its kind).
        let spelled = readers.map { reader -> String in
            if case .object(let fields) = reader.value, case .string(let name)? = fields["stage"] { return name }
            return ""
        }
        var seen: Set<Stage.Name> = []
        for (index, stage) in stages.enumerated() {
            let reader = readers[index]
            guard seen.insert(stage.name).inserted else {
                throw reader.fail("\"\(spelled[index])\" appears twice; a pipeline runs each stage once")
            }
            switch stage.name {
            case .filter:
                if seen.contains(.decode) { throw reader.fail("\"filter\" must come before \"decode\"") }
            case .decode, .write:
                break
            case .downsample, .transcode, .stripMetadata:
                if !seen.contains(.decode) {
                    throw reader.fail("\"\(spelled[index])\" needs a \"decode\" stage before it")
                }
            }
            if stage.name == .downsample, let transcode = stages[..<index].firstIndex(where: { $0.name == .transcode }) {
                throw reader.fail("\"downsample\" must come before \"transcode\" (stages[\(transcode)]): it decodes the file anew "
                                  + "at the size needed, which would undo transcode's conversion to sRGB")
            }
            if seen.contains(.write), stage.name != .write {
                throw reader.fail("\"write\" must be the last stage")
            }
        }
        let firstPixelStage = stages.firstIndex { [.downsample, .transcode, .stripMetadata].contains($0.name) }
        if let firstPixelStage, !seen.contains(.write) {
            throw JSONReader(value: .array([]), path: "stages").fail("\"\(spelled[firstPixelStage])\" has no effect without a \"write\" stage")
        }
    }
}

extension Optional {
    func orThrow(_ error: @autoclosure () -> Error) throws -> Wrapped {
        guard let value = self else { throw error() }
        return value
    }
}
