/// What a pipeline's stages must be together: checked once every stage has been read.
extension PipelineDecoder {
    /// An order is refused only where it means nothing: `filter` after `decode` (it decides
    /// which items are opened), a stage that shapes pictures before the `decode` that opens them,
    /// `variants` beside `downsample` or `transcode` (it does both, for every output), a stage
    /// twice, anything after `write` or a stage without one. Pixel stages in any order between
    /// them give the same pictures (see `Picture` in MediaBatchCore); `write` names every output apart.
    func checkOrder(_ stages: [Stage], _ readers: [JSONReader], pairs: Pipeline.RawJpegPairs) throws {
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
            try checkPlace(stage, spelled[index], reader, seen: seen)
            try checkCombination(stage.name, index, stages, reader)
            try checkPosterMovie(stage, reader, stages)
            if case .write(let write) = stage {
                // Without `decode` every output is a copy under its input's own extension: a pair's files stay apart.
                let variants = Self.variants(of: stages)
                try checkNames(write.path, "path", reader, variants: variants, bothPairFilesEncoded: pairs == .both && seen.contains(.decode))
                if seen.contains(.poster) { try checkNames(write.posterPath, "posterPath", reader, variants: variants, bothPairFilesEncoded: false) }
                if let video = Self.video(of: stages) { try checkRenditionNames(write.path, reader, video) }
            }
        }
        let firstEffect = stages.firstIndex { Self.pixelStages.contains($0.name) || $0.name == .stripMetadata }
        if let firstEffect, !seen.contains(.write) {
            throw JSONReader(value: .array([]), path: "stages").fail("\"\(spelled[firstEffect])\" has no effect without a \"write\" stage")
        }
    }

    /// Stages that shape pictures, so need `decode` to have opened one.
    static let pixelStages: Set<Stage.Name> = [.downsample, .transcode, .variants]

    /// Whether `stage` shapes pictures: a keep-list that drops the profile or the orientation
    /// converts or turns them; any other metadata edit is applied to the file as it is.
    static func shapesPictures(_ stage: Stage) -> Bool {
        if case .stripMetadata(.keep(let kept)) = stage { return !kept.isSuperset(of: [.icc, .orientation]) }
        return pixelStages.contains(stage.name)
    }

    private static func variants(of stages: [Stage]) -> Stage.Variants? {
        for case .variants(let variants) in stages { return variants }
        return nil
    }

    private static func video(of stages: [Stage]) -> Stage.Video? {
        for case .video(let video) in stages { return video }
        return nil
    }

    /// Several renditions of a movie need a path that tells them apart: {codec}, {hash}, or
    /// {ext} where their containers differ.
    private func checkRenditionNames(_ template: PathTemplate, _ stage: JSONReader, _ video: Stage.Video) throws {
        let containers = video.renditions.map(\.codec.container)
        guard video.renditions.count > 1, !template.uses("codec"), !template.awaitsOutputHash,
              !(template.uses("ext") && Set(containers).count == containers.count) else { return }
        throw stage.child("path", .string(template.text)).fail(
            "with \(video.renditions.count) video codecs, expected {codec} in \"\(template.text)\", or every rendition would be written to the same file")
    }

    /// Where one stage may stand, given the stages before it.
    private func checkPlace(_ stage: Stage, _ spelled: String, _ reader: JSONReader, seen: Set<Stage.Name>) throws {
        if stage.name == .filter, seen.contains(.decode) { throw reader.fail("\"filter\" must come before \"decode\"") }
        if Self.shapesPictures(stage), !seen.contains(.decode) {
            let why = stage.name == .stripMetadata ? " (a keep-list without icc or orientation converts or turns the pictures)" : ""
            throw reader.fail("\"\(spelled)\" needs a \"decode\" stage before it\(why)")
        }
        if seen.contains(.write), stage.name != .write { throw reader.fail("\"write\" must be the last stage") }
        if stage.name == .video, !seen.contains(.decode) { throw reader.fail("\"video\" needs a \"decode\" stage before it") }
        if stage.name == .poster {
            guard seen.contains(.decode) else { throw reader.fail("\"poster\" needs a \"decode\" stage before it") }
            if let shaping = Stage.Name.allCases.first(where: { seen.contains($0) && Self.pixelStages.contains($0) }) {
                throw reader.fail("\"poster\" must come before \"\(shaping.rawValue)\": the stages after it shape the poster")
            }
        }
    }

    /// Stages that do not go together, named with where the earlier one stands.
    private func checkCombination(_ name: Stage.Name, _ index: Int, _ stages: [Stage], _ reader: JSONReader) throws {
        func earlier(_ other: Stage.Name) -> Int? { stages[..<index].firstIndex { $0.name == other } }
        // variants replaces downsample and transcode: whichever comes second is refused.
        let replaced: [Stage.Name] = [.downsample, .transcode]
        let other: Stage.Name? = name == .variants ? replaced.first { earlier($0) != nil }
            : replaced.contains(name) && earlier(.variants) != nil ? .variants : nil
        if let other, let otherIndex = earlier(other) {
            throw reader.fail("\"\(name.rawValue)\" and \"\(other.rawValue)\" (stages[\(otherIndex)]) cannot be combined: "
                              + "\"variants\" sizes and encodes every output itself, in place of \"downsample\" and \"transcode\"")
        }
    }

    /// A poster's movie dropped where `video` renders it: one stage would unsay the other.
    private func checkPosterMovie(_ stage: Stage, _ reader: JSONReader, _ stages: [Stage]) throws {
        guard case .poster(let poster) = stage, poster.movie == .drop,
              let video = stages.firstIndex(where: { $0.name == .video }) else { return }
        throw reader.child(PosterKeys.movie.name, .string(poster.movie.rawValue))
            .expected("keep: the \"video\" stage (stages[\(video)]) writes the movie's renditions, and drop writes no movie")
    }

    /// `write.path` tells every output of an item apart (and a RAW's from its JPEG's when both are
    /// processed), and uses variant placeholders only with variants.
    private func checkNames(_ template: PathTemplate, _ key: String, _ stage: JSONReader, variants: Stage.Variants?,
                            bothPairFilesEncoded: Bool) throws {
        let path = stage.child(key, .string(template.text))
        if bothPairFilesEncoded, !template.uses("inputExt"), !template.awaitsOutputHash, !template.usesInputHash {
            throw path.fail("with input.rawJpegPairs \"both\", a RAW and its JPEG would be written to the same file: "
                            + "expected {inputExt}, {hash} or {inputHash} in \"\(template.text)\"")
        }
        let sized = ["size", "width", "height"].filter(template.uses)
        guard let variants else {
            if let placeholder = sized.first { throw path.fail("{\(placeholder)} names a variant: it needs a \"variants\" stage") }
            return
        }
        if variants.sizes.count > 1, sized.isEmpty {
            throw path.fail("with \(variants.sizes.count) variant sizes, expected {size} or {width} in \"\(template.text)\", "
                            + "or every size would be written to the same file")
        }
        let widths = variants.sizes.map(\.box.width)
        if sized == ["width"], let twice = widths.indices.first(where: { widths[..<$0].contains(widths[$0]) }) {
            throw path.fail("sizes \(variants.sizes[widths.firstIndex(of: widths[twice])!].text) and \(variants.sizes[twice].text) "
                            + "would be written to the same file: {width} alone names them, expected {size} or {height} too")
        }
        if variants.formats.count > 1, !template.uses("ext") {
            throw path.fail("with \(variants.formats.count) variant formats, expected {ext} in \"\(template.text)\", "
                            + "or every format would be written to the same file")
        }
    }
}
