/// Each stage's options, decoded and validated where they are read, with defaults from `Defaults`.
extension PipelineDecoder {
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
        let stage: Stage
        switch try nameReader.oneOf("a stage name", Stage.spellings) {
        case .filter: stage = .filter(try filter(object))
        case .decode: stage = .decode
        case .downsample: stage = .downsample(maxPixelSize: try object.required("maxPixelSize").positiveInteger())
        case .transcode: stage = .transcode(try transcode(object))
        case .variants: stage = .variants(try variants(object))
        case .stripMetadata where try nameReader.string() == "stripLocation": stage = .stripMetadata([.location])
        case .stripMetadata: stage = .stripMetadata(try metadataGroups(object))
        case .write: stage = .write(try write(object, reader))
        }
        try object.finish()
        return stage
    }

    private func filter(_ object: ObjectReader) throws -> Stage.Filter {
        .init(match: try MediaMatch.decode(object.required("match")),
              livePhotoVideo: try object.optional("livePhotoVideo").map {
                  try $0.oneOf("what to do with a Live Photo's movie", Stage.LivePhotoVideo.allCases.map { ($0.rawValue, $0) })
              } ?? Defaults.livePhotoVideo)
    }

    private func transcode(_ object: ObjectReader) throws -> Stage.Transcode {
        let formats = MediaFormat.allCases.filter { !$0.isVideo }.map { ($0.rawValue, $0) }
        let from = try object.optional("from").map { try Set($0.stringOrStrings().map { try $0.oneOf("an image format", formats) }) }
        let to = try outputFormat(object.required("to"))
        return .init(from: from, to: to,
                     quality: try object.optional("quality")?.integer(in: 1...100) ?? Defaults.quality[to] ?? Defaults.keptFormatQuality)
    }

    private func variants(_ object: ObjectReader) throws -> Stage.Variants {
        let sizes = try distinct(object.required("sizes"), "size") { try $0.positiveInteger() }
        let formats = try distinct(object.required("formats"), "format", outputFormat)
        var quality = Defaults.quality.filter { formats.contains($0.key) }
        if let reader = object.optional("quality") {
            let qualities = try reader.object()
            for key in qualities.keys {
                let format = try reader.child(key, .string(key)).oneOf("a lossy format of this stage's formats",
                                                                      formats.filter(\.isLossy).map { ($0.rawValue, $0) })
                quality[format] = try qualities.required(key).integer(in: 1...100)
            }
            try qualities.finish()
        }
        let placeholder = try object.optional("placeholder").map {
            try $0.oneOf("a placeholder", Stage.Placeholder.allCases.map { ($0.rawValue, $0) })
        } ?? Defaults.placeholder
        return .init(sizes: sizes, formats: formats, quality: quality, placeholder: placeholder)
    }

    /// A non-empty array whose values each appear once.
    private func distinct<T: Equatable>(_ reader: JSONReader, _ what: String, _ value: (JSONReader) throws -> T) throws -> [T] {
        var values: [T] = []
        for item in try reader.array() {
            let next = try value(item)
            guard !values.contains(next) else { throw item.fail("this \(what) appears twice") }
            values.append(next)
        }
        guard !values.isEmpty else { throw reader.fail("expected at least one \(what)") }
        return values
    }

    private func outputFormat(_ reader: JSONReader) throws -> OutputFormat {
        try reader.oneOf("an output format", OutputFormat.allCases.map { ($0.rawValue, $0) })
    }

    private func metadataGroups(_ object: ObjectReader) throws -> Set<MetadataGroup> {
        let remove = try object.required("remove")
        let names = try remove.array().map { try $0.oneOf("a metadata group", MetadataGroup.allCases.map { ($0.rawValue, $0) }) }
        guard !names.isEmpty else { throw remove.fail("expected at least one metadata group") }
        return Set(names)
    }

    private func write(_ object: ObjectReader, _ reader: JSONReader) throws -> Stage.Write {
        let pathReader = object.optional("path")
        do {
            return .init(path: try PathTemplate(pathReader.map { try $0.string() } ?? Defaults.writePath))
        } catch let error as PathTemplate.TemplateError {
            throw (pathReader ?? reader).fail(error.message)
        }
    }
}
