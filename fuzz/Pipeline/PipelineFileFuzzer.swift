import Foundation

// libFuzzer harness for the pipeline-file decoder, compiled together with Sources/PipelineModel
// (see fuzz/run.sh). Any bytes must either decode to a pipeline that keeps the format's promises
// or throw a PipelineError that says something. A trap, a hang, another error type or a broken
// promise is a finding.

private let baseDirectory = URL(fileURLWithPath: "/fuzz/pipelines")

/// What a write template is rendered with: an ordinary item, one at the input root (empty
/// folder), and one whose file name is hostile ("...jpg" has the stem "..").
private let renderValues = [
    PathTemplate.Values(dir: "2024/trip", stem: "IMG_0001", ext: "jpg",
                        captured: (Date(timeIntervalSince1970: 1_700_000_000), 3600), contentHash: String(repeating: "ab", count: 32)),
    PathTemplate.Values(dir: "", stem: "IMG_0002", ext: "heic"),
    PathTemplate.Values(dir: "", stem: "..", ext: "png"),
]

/// What a filter is asked about: the matching code is the decoded value's only consumer here.
private let sampleFacts = [
    MediaFacts(relativePath: "2024/trip/IMG_0001.HEIC", format: .heic, kinds: [.images], hasLocation: true,
               width: 4032, height: 3024, capture: .init(date: Date(timeIntervalSince1970: 1_700_000_000), source: .metadata),
               make: "Apple", model: "iPhone 15 Pro"),
    MediaFacts(relativePath: "clip.mov", format: .mov, kinds: [.videos]),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipelineFile(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let first = verdict(data)
    // The same bytes, the same verdict: nothing may depend on dictionary order or other state.
    require(verdict(data) == first, "decoding the same bytes twice disagreed")
    if case .success(let pipeline) = first { checkPromises(pipeline) }
    return 0
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
        switch stage {
        case .filter(let filter):
            for facts in sampleFacts { _ = filter.match.matches(facts) }
        case .decode:
            break
        case .downsample(let maxPixelSize):
            require(maxPixelSize >= 1)
        case .transcode(let transcode):
            require((1...100).contains(transcode.quality))
        case .variants(let variants):
            require(!variants.sizes.isEmpty && variants.sizes.allSatisfy { $0 >= 1 } && !variants.formats.isEmpty)
            require(variants.quality.values.allSatisfy { (1...100).contains($0) })
        case .stripMetadata(.remove(let groups)):
            require(!groups.isEmpty)
        case .stripMetadata(.keep):
            break
        case .write(let write):
            for values in renderValues { checkStaysInOutputRoot(write.path, values) }
        }
    }
}

/// Each stage once, write last, filter before decode, a decode before every stage that shapes
/// pictures (downsample, transcode, variants, a keep-list without icc or orientation), variants
/// never beside downsample or transcode, a write after every stage with an effect.
private func checkStageOrder(_ stages: [Stage]) {
    require(!stages.isEmpty)
    let names = stages.map(\.name)
    require(Set(names).count == names.count, "a stage appears twice: \(names)")
    if let write = names.firstIndex(of: .write) { require(write == names.count - 1, "write is not last: \(names)") }
    if let filter = names.firstIndex(of: .filter), let decode = names.firstIndex(of: .decode) { require(filter < decode) }
    if names.contains(.variants) {
        require(!names.contains(.downsample) && !names.contains(.transcode), "variants beside downsample or transcode: \(names)")
    }
    for (index, stage) in stages.enumerated() {
        var shapes = [.downsample, .transcode, .variants].contains(stage.name)
        if case .stripMetadata(.keep(let kept)) = stage { shapes = !kept.contains(.icc) || !kept.contains(.orientation) }
        if shapes { require(names[..<index].contains(.decode), "\(stage.name) runs before decode: \(names)") }
        if shapes || stage.name == .stripMetadata { require(names.contains(.write), "\(stage.name) has no write after it: \(names)") }
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
