/// One step of a pipeline, as the pipeline file declares it: how the file writes it (`syntax`),
/// where it may stand (`placement`), what it contributes to an item's fingerprint and what
/// `validate` says of it. A value of a stage type is the stage with its typed, valid options.
///
/// The decoder, the schema, the order checks and `validate` all read these declarations from a
/// `StageCatalog`, the ordered list of stage types (MediaBatchCore's `StageList` is the one
/// mediabatch runs), so a new stage is one type in one file and one line in that list.
public protocol Stage: Sendable {
    /// How pipeline files spell it: usually one spelling, plus presets (`stripLocation`).
    static var syntax: [StageSyntax] { get }
    /// Where a stage of this type may stand among the others.
    static var placement: StagePlacement { get }
    /// Its kind, as reports name the stage an item failed in.
    static var name: StageName { get }
    /// Where this stage may stand, given its options (by default its type's `placement`).
    var placement: StagePlacement { get }

    /// Canonical text of its options: the same options give the same text whatever the file's
    /// whitespace, key order or spelled-out defaults. The state database hashes it (with the
    /// stages' own choice of where it counts) to tell which items a pipeline change affects.
    var fingerprint: String { get }
    /// What it does, in words, for `mediabatch validate`; nil: nothing worth a line.
    func explanation(among stages: [any Stage]) -> String?
    /// What `mediabatch validate` warns of: a choice valid in itself that will fail some inputs; nil: none.
    func warning(among stages: [any Stage]) -> String?
    /// Checks that need the other stages, once every stage has been read: `index` is this
    /// stage's place in the list, `reader` its object in the file, for messages.
    func checkAmong(_ context: StageListContext, index: Int, at reader: JSONReader) throws
    /// For `write`: refuses an output path template (at `reader`) that would give two of this
    /// stage's outputs of an item one name; `posters`: the template names movies' posters.
    /// `stage` is nil when the pipeline lacks this stage (a template may then not use what
    /// only it fills in).
    static func checkNames(_ template: PathTemplate, _ reader: JSONReader, posters: Bool, stage: Self?) throws
}

extension Stage {
    public static var name: StageName { syntax[0].name }
    public var name: StageName { Self.name }
    public var placement: StagePlacement { Self.placement }
    public func explanation(among stages: [any Stage]) -> String? { nil }
    public func warning(among stages: [any Stage]) -> String? { nil }
    public func checkAmong(_ context: StageListContext, index: Int, at reader: JSONReader) throws {}
    public static func checkNames(_ template: PathTemplate, _ reader: JSONReader, posters: Bool, stage: Self?) throws {}
}

/// A stage's kind, as the pipeline file names it (`decode`) and the report says where an item
/// failed. Each stage type declares its own (`StageName.decode` in `DecodeStage`'s file).
public struct StageName: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

/// Where a stage may stand: the order rules `PipelineDecoder` checks, declared by each stage.
public struct StagePlacement: Sendable {
    public enum Rule: Sendable {
        /// Another stage must come before it (`decode` before what shapes pictures); `why`
        /// ends the message.
        case after(StageName, why: String = "")
        /// It must come before another stage, if that one is there (`filter` before `decode`).
        case before(StageName)
        /// No stage may follow one that is `last`.
        case notAfterLast
        /// It must come before every stage that shapes pictures: they shape what it makes.
        case beforeShaping
    }

    /// Checked in this order, which decides what is said of a stage that breaks several.
    public var rules: [Rule] = [.notAfterLast]
    /// Stages after it are refused (`write`).
    public var isLast = false
    /// It shapes pictures (`downsample`, `transcode`, `variants`).
    public var shapesPictures = false
    /// Stages it does the work of, which it cannot be combined with, and why.
    public var replaces: (stages: [StageName], why: String)?
    /// It has no effect without a `last` stage (one that writes).
    public var needsLast = false

    public init(rules: [Rule] = [.notAfterLast], isLast: Bool = false, shapesPictures: Bool = false,
                replaces: (stages: [StageName], why: String)? = nil, needsLast: Bool = false) {
        self.rules = rules
        self.isLast = isLast
        self.shapesPictures = shapesPictures
        self.replaces = replaces
        self.needsLast = needsLast
    }
}

/// What a stage's `checkAmong` sees of the pipeline: every stage read, and the input options
/// that decide whether outputs can collide.
public struct StageListContext {
    public let stages: [any Stage]
    public let rawJpegPairs: Pipeline.RawJpegPairs
    let catalog: StageCatalog

    /// Where the first stage of this kind stands, if the pipeline has one.
    public func index(of name: StageName) -> Int? {
        stages.firstIndex { $0.name == name }
    }

    /// Every stage type's `checkNames` on `template`, given the pipeline's own stage of that type where it has one.
    public func checkNames(_ template: PathTemplate, _ reader: JSONReader, posters: Bool) throws {
        for type in catalog.types { try type.checkNames(in: stages, template, reader, posters: posters) }
    }
}

extension Stage {
    fileprivate static func checkNames(in stages: [any Stage], _ template: PathTemplate, _ reader: JSONReader, posters: Bool) throws {
        try checkNames(template, reader, posters: posters, stage: stages.lazy.compactMap { $0 as? Self }.first)
    }
}

/// The stage types a pipeline file may name, in the order stages are listed in messages, the
/// schema and `validate`.
public struct StageCatalog: Sendable {
    public let types: [any Stage.Type]

    public init(_ types: [any Stage.Type]) {
        self.types = types
    }

    /// Every spelling, in the order messages list them: each type's own, then its presets'.
    var syntaxes: [StageSyntax] {
        types.map { $0.syntax[0] } + types.flatMap { $0.syntax.dropFirst() }
    }

}
