/// What a pipeline's stages must be together, from what each declares (`StagePlacement`,
/// `checkAmong`): checked once every stage has been read.
extension PipelineDecoder {
    /// An order is refused only where it means nothing: a stage twice, one out of the place its
    /// rules give it, two that do each other's work, anything after the last, or a stage that
    /// needs the last without one. Stages that shape pictures may stand in any order between
    /// `decode` and `write`: they give the same pictures (see `Picture` in MediaBatchCore).
    func checkOrder(_ stages: [any Stage], _ readers: [JSONReader], pairs: Pipeline.RawJpegPairs) throws {
        // Messages name a stage as the file spells it ("stripLocation", not its kind).
        let spelled = readers.map { reader -> String in
            if case .object(let fields) = reader.value, case .string(let name)? = fields["stage"] { return name }
            return ""
        }
        let context = StageListContext(stages: stages, rawJpegPairs: pairs, catalog: catalog)
        var seen: [any Stage] = []
        for (index, stage) in stages.enumerated() {
            let reader = readers[index]
            guard !seen.contains(where: { $0.name == stage.name }) else {
                throw reader.fail("\"\(spelled[index])\" appears twice; a pipeline runs each stage once")
            }
            seen.append(stage)
            for rule in stage.placement.rules { try check(rule, of: stage, spelled[index], reader, seen: seen) }
            try checkCombination(stage, index, stages, reader)
            try stage.checkAmong(context, index: index, at: reader)
        }
        if let first = stages.firstIndex(where: { $0.placement.needsLast }), !stages.contains(where: { $0.placement.isLast }),
           let last = catalog.types.first(where: { $0.placement.isLast }) {
            throw JSONReader(value: .array([]), path: "stages").fail("\"\(spelled[first])\" has no effect without a \"\(last.name)\" stage")
        }
    }

    /// One rule of a stage's place, given the stages up to it (itself included).
    private func check(_ rule: StagePlacement.Rule, of stage: any Stage, _ spelled: String, _ reader: JSONReader, seen: [any Stage]) throws {
        func has(_ name: StageName) -> Bool { seen.contains { $0.name == name } }
        switch rule {
        case .before(let other) where has(other):
            throw reader.fail("\"\(stage.name)\" must come before \"\(other)\"")
        case .after(let other, let why) where !has(other):
            throw reader.fail("\"\(spelled)\" needs a \"\(other)\" stage before it\(why)")
        case .notAfterLast:
            if let last = seen.first(where: { $0.placement.isLast && $0.name != stage.name }) {
                throw reader.fail("\"\(last.name)\" must be the last stage")
            }
        case .beforeShaping:
            // Named in the catalog's order, whatever the file's.
            if let shaping = catalog.types.first(where: { $0.placement.shapesPictures && has($0.name) }) {
                throw reader.fail("\"\(stage.name)\" must come before \"\(shaping.name)\": the stages after it shape the \(stage.name)")
            }
        default: break
        }
    }

    /// Stages that do each other's work, named with where the earlier one stands: whichever
    /// comes second is refused.
    private func checkCombination(_ stage: any Stage, _ index: Int, _ stages: [any Stage], _ reader: JSONReader) throws {
        let earlier = stages[..<index]
        func place(of name: StageName) -> Int? { earlier.firstIndex { $0.name == name } }
        let replaced = stage.placement.replaces.flatMap { replaces in
            replaces.stages.first { place(of: $0) != nil }.map { (other: $0, why: replaces.why) }
        }
        let replacing = earlier.first { $0.placement.replaces?.stages.contains(stage.name) == true }
            .map { (other: $0.name, why: $0.placement.replaces!.why) }
        guard let (other, why) = replaced ?? replacing, let otherIndex = place(of: other) else { return }
        throw reader.fail("\"\(stage.name)\" and \"\(other)\" (stages[\(otherIndex)]) cannot be combined: \(why)")
    }
}
