import Foundation
@testable import MediaBatchCore
import PipelineModel

// libFuzzer harness for the pipeline-file decoder with mediabatch's stages (fuzz/Package.swift,
// built by fuzz/run.sh). Any bytes must either decode to a pipeline that keeps the format's promises
// or throw a PipelineError that says something. A trap, a hang, another error type or a broken
// promise is a finding.

private let baseDirectory = URL(fileURLWithPath: "/fuzz/pipelines")

/// What a write template is rendered with: an ordinary item, one at the input root (empty
/// folder), and one whose file name is hostile ("...jpg" has the stem "..").
private let renderValues = [
    PathTemplate.Values(dir: "2024/trip", stem: "IMG_0001", ext: "jpg", inputExt: "heic",
                        captured: (Date(timeIntervalSince1970: 1_700_000_000), 3600), inputHash: String(repeating: "ab", count: 32)),
    PathTemplate.Values(dir: "", stem: "IMG_0002", ext: "heic", inputExt: "heic"),
    PathTemplate.Values(dir: "", stem: "..", ext: "png", inputExt: "png"),
]

/// What a filter is asked about: the matching code is the decoded value's only consumer here.
private let sampleFacts = [
    MediaFacts(relativePath: "2024/trip/IMG_0001.HEIC", format: .heic, kinds: [.images], hasLocation: true,
               width: 4032, height: 3024, capture: .init(date: Date(timeIntervalSince1970: 1_700_000_000), source: .metadata),
               make: "Apple", model: "iPhone 15 Pro"),
    MediaFacts(relativePath: "clip.mov", format: .mov, kinds: [.videos]),
]

/// SwiftPM calls an executable's entry point `<module>_main`; libFuzzer's driver takes it from there.
@_cdecl("PipelineFileFuzzer_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    var (count, arguments) = (argc, Optional(argv))
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzPipelineFile)
}

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                                 _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipelineFile(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let first = verdict(data)
    // The same bytes, the same verdict: nothing may depend on dictionary order or other state.
    require(Decoded(verdict(data)) == Decoded(first), "decoding the same bytes twice disagreed")
    if case .success(let pipeline) = first { checkPromises(pipeline) }
    return 0
}

/// What a verdict says, comparable: a pipeline's options, each stage by its fingerprint, or the error.
private struct Decoded: Equatable {
    let error: PipelineError?
    let input: Pipeline.Input?, output: Pipeline.Output?, limits: Pipeline.Limits?, onError: Pipeline.OnError?
    let stages: [String]

    init(_ verdict: Result<Pipeline, PipelineError>) {
        let pipeline = try? verdict.get()
        error = verdict.failure
        (input, output, limits, onError) = (pipeline?.input, pipeline?.output, pipeline?.limits, pipeline?.onError)
        stages = pipeline?.stages.map { "\($0.name): \($0.fingerprint)" } ?? []
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

private func verdict(_ data: Data) -> Result<Pipeline, PipelineError> {
    do {
        return .success(try Pipeline.decode(data, baseDirectory: baseDirectory))
    } catch let error as PipelineError {
        require(!error.message.isEmpty, "PipelineError at \"\(error.path)\" has no message")
        return .failure(error)
    } catch {
        fatalError("decode threw \(type(of: error)) instead of PipelineError: \(error)")
    }
}

/// Pipeline.swift: "every option typed, every default filled in, every path absolute. Stages
/// receive these values and never re-check them."
private func checkPromises(_ pipeline: Pipeline) {
    require((1...Defaults.supportedVersion).contains(pipeline.version))
    for root in [pipeline.input.root, pipeline.output.root].compactMap({ $0 }) {
        require(root.isFileURL && root.path.hasPrefix("/"), "root \(root) is not an absolute path")
    }
    require(pipeline.limits.concurrency.map { $0 >= 1 } ?? true)
    require(pipeline.limits.memoryBudget.bytes >= 1 && pipeline.limits.maxPixels >= 1)
    require(pipeline.limits.maxFileBytes.bytes >= 1 && pipeline.limits.maxFrames >= 1 && pipeline.limits.timeoutSeconds >= 1)
    require(!pipeline.input.formats.isEmpty, "no format is read")
    for glob in pipeline.input.include + pipeline.input.exclude {
        _ = glob.matches("2024/trip/IMG_0001.HEIC")
    }
    checkStageOrder(pipeline.stages)
    for stage in pipeline.stages {
        require(!stage.fingerprint.isEmpty, "\(stage.name) has an empty fingerprint")
        _ = stage.explanation(among: pipeline.stages)
        switch stage {
        case let filter as FilterStage:
            for facts in sampleFacts { _ = filter.match.matches(facts) }
        case let transcode as TranscodeStage:
            require((1...100).contains(transcode.quality))
        case let variants as VariantsStage:
            require(!variants.sizes.isEmpty && !variants.formats.isEmpty)
            require(variants.quality.values.allSatisfy { (1...100).contains($0) })
        case let strip as StripMetadataStage:
            if case .remove(let groups) = strip.edit { require(!groups.isEmpty) }
        case let write as WriteStage:
            for values in renderValues { checkStaysInOutputRoot(write.path, values) }
        default:
            break
        }
    }
}

/// Each stage once, none after the last, every rule each stage declares for its place
/// (`StagePlacement`), no two that do each other's work, and the last wherever one needs it.
private func checkStageOrder(_ stages: [any Stage]) {
    require(!stages.isEmpty)
    let names = stages.map(\.name)
    require(Set(names).count == names.count, "a stage appears twice: \(names)")
    if let last = stages.firstIndex(where: { $0.placement.isLast }) { require(last == stages.count - 1, "a stage after the last: \(names)") }
    for (index, stage) in stages.enumerated() {
        let before = names[..<index]
        for rule in stage.placement.rules {
            switch rule {
            case .after(let other, _): require(before.contains(other), "\(stage.name) without \(other) before it: \(names)")
            case .before(let other): require(!before.contains(other), "\(stage.name) after \(other): \(names)")
            case .beforeShaping:
                require(!stages[..<index].contains { $0.placement.shapesPictures }, "\(stage.name) after a stage that shapes pictures: \(names)")
            case .notAfterLast: break
            }
        }
        for replaced in stage.placement.replaces?.stages ?? [] { require(!names.contains(replaced), "\(stage.name) beside \(replaced): \(names)") }
        if stage.placement.needsLast { require(stages.contains { $0.placement.isLast }, "\(stage.name) without a last stage: \(names)") }
    }
}

/// PathTemplate promises a path "always relative to the output root and never able to climb out of it".
private func checkStaysInOutputRoot(_ template: PathTemplate, _ values: PathTemplate.Values) {
    let rendered = template.render(values)
    let components = rendered.split(separator: "/", omittingEmptySubsequences: false)
    require(!rendered.isEmpty && !rendered.hasPrefix("/") && !components.contains(".."),
            "template \"\(template.text)\" renders \"\(rendered)\" for stem \"\(values.stem)\", dir \"\(values.dir)\"")
}

/// `precondition` without its message in -O builds: a finding should say what broke.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "") {
    if !condition { fatalError("broken promise: \(message())") }
}
