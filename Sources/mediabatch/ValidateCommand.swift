import ArgumentParser
import PipelineModel

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a pipeline file without running it (exit 0 valid, 2 invalid).")

    @OptionGroup
    var file: PipelineFile

    func run() throws {
        let loaded = try file.load()
        let stages = loaded.stages.map(\.name.rawValue).joined(separator: ", ")
        print("\(file.pipeline): valid (version \(loaded.version), \(loaded.stages.count) stages: \(stages))")
        for case .decode(let decode) in loaded.stages { print("  decode: \(decode.explanation)") }
        for case .poster(let poster) in loaded.stages { print("  poster: \(poster.explanation)") }
        for case .video(let video) in loaded.stages { print("  video: \(video.explanation)") }
        for case .downsample(let downsample) in loaded.stages { print("  downsample: \(downsample.explanation)") }
        for case .transcode(let transcode) in loaded.stages { print("  transcode: \(transcode.explanation)") }
        for case .variants(let variants) in loaded.stages { print("  variants: \(variants.explanation)") }
        let posters = loaded.stages.contains { $0.name == .poster }
        for case .write(let write) in loaded.stages {
            print("  write: \(write.path.text)" + (posters ? ", posters at \(write.posterPath.text)" : ""))
        }
        if let manifest = loaded.output.manifest { print("  manifest: \(manifest), under the output root") }
    }
}
