// swift-tools-version:5.10
// The pipeline-file fuzzer over the package above, built by `fuzz/run.sh pipeline`: SwiftPM passes
// its -sanitize=fuzzer,address to every module, so the decoder and each stage's syntax are
// instrumented, and -enable-testing lets the harness read the stages' options.
import PackageDescription

let package = Package(
    name: "mediabatch-fuzz",
    dependencies: [.package(name: "mediabatch", path: "..")],
    targets: [
        .executableTarget(name: "PipelineFileFuzzer", dependencies: [.product(name: "MediaBatchCore", package: "mediabatch")],
                          path: "Pipeline", swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ]
)
