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
        let versionReader = try root.required("version")
        let version = try versionReader.positiveInteger()
        guard version <= Defaults.supportedVersion else {
            throw versionReader.fail("this mediabatch reads pipeline version \(Defaults.supportedVersion), found \(version); upgrade mediabatch")
        }
        let input = try input(root.optional("input") ?? JSONReader(value: .object([:]), path: "input"))
        let output = try root.optional("output").map(output) ?? Pipeline.Output(root: nil)
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
        let output = Pipeline.Output(root: try object.optional("root").map(directory))
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

    func stageList(_ reader: JSONReader) throws -> [Stage] {
        let items = try reader.array()
        guard !items.isEmpty else { throw reader.fail("expected at least one stage") }
        let stages = try items.map(stage)
        try checkOrder(stages, items)
        return stages
    }

    func stage(_ reader: JSONReader) throws -> Stage {
        let object = try reader.object()
        let nameReader = try object.required("stage")
        let name = try nameReader.oneOf("a stage name", Stage.spellings)
        let stage: Stage
        switch name {
        case .filter:
            stage = .filter(.init(
                match: try MediaMatch.decode(object.required("match")),
                livePhotoVideo: try object.optional("livePhotoVideo").map {
                    try $0.oneOf("what to do with a Live Photo's movie", Stage.LivePhotoVideo.allCases.map { ($0.rawValue, $0) })
                } ?? Defaults.livePhotoVideo))
        case .decode:
            stage = .decode
        case .downsample:
            stage = .downsample(maxPixelSize: try object.required("maxPixelSize").positiveInteger())
        case .transcode:
            let formats = MediaFormat.allCases.filter { !$0.isVideo }.map { ($0.rawValue, $0) }
            let from = try object.optional("from").map { try Set($0.stringOrStrings().map { try $0.oneOf("an image format", formats) }) }
            stage = .transcode(.init(
                from: from,
                to: try object.required("to").oneOf("an output format", OutputFormat.allCases.map { ($0.rawValue, $0) }),
                quality: try object.optional("quality")?.integer(in: 1...100) ?? Defaults.quality))
        case .stripMetadata where try nameReader.string() == "stripLocation":
            stage = .stripMetadata([.location])
        case .stripMetadata:
            let groups = MetadataGroup.allCases.map { ($0.rawValue, $0) }
            let remove = try object.required("remove")
            let names = try remove.array().map { try $0.oneOf("a metadata group", groups) }
            guard !names.isEmpty else { throw remove.fail("expected at least one metadata group") }
            stage = .stripMetadata(Set(names))
        case .write:
            let pathReader = object.optional("path")
            do {
                stage = .write(.init(path: try PathTemplate(pathReader.map { try $0.string() } ?? Defaults.writePath)))
            } catch let error as PathTemplate.TemplateError {
                throw (pathReader ?? reader).fail(error.message)
            }
        }
        try object.finish()
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
