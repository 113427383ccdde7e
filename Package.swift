// swift-tools-version:5.10
import PackageDescription

let package = Package(
    name: "mediabatch",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "mediabatch", targets: ["mediabatch"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C is quarantined here: two system libraries, one shim, and the two thin wrappers that import them.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CAVFormat", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev"])]),
        .target(name: "CMediaShim", dependencies: ["CVips"]),
        .target(name: "VipsKit", dependencies: ["CVips", "CMediaShim"]),
        .target(name: "AVFormatKit", dependencies: ["CAVFormat"]),

        // Pure Swift from here on.
        .target(name: "PipelineModel"),
        .target(name: "Scheduler"),
        // Metadata formats parsed and edited byte-exactly: EXIF/TIFF, XMP, IPTC-IIM, QuickTime boxes.
        .target(name: "MetadataKit"),
        .target(name: "MediaBatchCore", dependencies: ["PipelineModel", "Scheduler", "MetadataKit", "VipsKit", "AVFormatKit"]),
        .executableTarget(name: "mediabatch", dependencies: [
            "MediaBatchCore", "PipelineModel",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Fixture paths, process running, exiftool, goldens: shared by the test targets below.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "PipelineModelTests", dependencies: ["PipelineModel", "TestSupport"]),
        .testTarget(name: "SchedulerTests", dependencies: ["Scheduler"]),
        .testTarget(name: "MetadataKitTests", dependencies: ["MetadataKit", "TestSupport"]),
        .testTarget(name: "VipsKitTests", dependencies: ["VipsKit", "TestSupport"]),
        .testTarget(name: "MediaBatchCoreTests", dependencies: ["MediaBatchCore", "VipsKit", "TestSupport"]),
        .testTarget(name: "mediabatchTests", dependencies: ["mediabatch", "MediaBatchCore", "VipsKit", "TestSupport"]),
    ]
)
