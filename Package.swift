// swift-tools-version:5.10
import PackageDescription

let package = Package(
    name: "mediabatch",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "mediabatch", targets: ["mediabatch"]),
        // For fuzz/Package.swift, whose harness decodes pipelines with mediabatch's stages.
        .library(name: "MediaBatchCore", targets: ["MediaBatchCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        // C is quarantined here: five system libraries, one shim, and the modules that import them
        // (the three thin wrappers; MetadataKit, zlib alone).
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // libheif itself, for what libvips' heifload does not give: a HEIC's auxiliary images (gain maps).
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // Headers only (no pkgConfig, so no -lavcodec): LibAVKit opens libavcodec, libavformat and libavfilter at run time.
        .systemLibrary(name: "CLibAV", providers: [.apt(["libavformat-dev", "libavfilter-dev"])]),
        // zlib for MetadataKit's compressed PNG text: the inflate libpng and exiftool use, not one of our
        // own. No pkgConfig: zlib.h and libz are on the default paths.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // LibRaw's thread-safe build, for camera RAW: developed, or its embedded preview read.
        .systemLibrary(name: "CLibRaw", pkgConfig: "libraw_r", providers: [.apt(["libraw-dev"])]),
        // The system's libcrypto (OpenSSL) for SHA-256 and MD5: Debian's security updates reach it without a rebuild.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Its kernels are the hot loops of every decode and reduce: optimised in debug builds too, where the
        // tests and their worker processes run them on every photo.
        .target(name: "CMediaShim", dependencies: ["CVips"], cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        .target(name: "VipsKit", dependencies: ["CVips", "CHeif", "CMediaShim", "MediaFormats"]),
        .target(name: "LibAVKit", dependencies: ["CLibAV"]),
        .target(name: "LibRawKit", dependencies: ["CLibRaw"]),
        .target(name: "DigestKit", dependencies: ["CCrypto"]),

        // Swift from here on (MetadataKit calls zlib through CZlib).
        // The format table: every format's row (extensions, magic, codecs, container, cost), below everything that names a format.
        .target(name: "MediaFormats"),
        .target(name: "PipelineModel", dependencies: ["MediaFormats"]),
        .target(name: "Scheduler"),
        // What earlier runs did, per item and output: SQLite (WAL) through GRDB; content hashes through DigestKit.
        .target(name: "RunState", dependencies: ["DigestKit", .product(name: "GRDB", package: "GRDB.swift")]),
        // Metadata formats parsed and edited byte-exactly: EXIF/TIFF, XMP, IPTC-IIM, QuickTime boxes.
        // DigestKit for the MD5 digests metadata carries of itself (Photoshop's of IPTC-IIM).
        .target(name: "MetadataKit", dependencies: ["MediaFormats", "CZlib", "DigestKit"]),
        // Duplicates: photos' fingerprints, the index that finds close ones among millions, groups and their keepers.
        .target(name: "DuplicateKit", dependencies: ["MediaFormats"]),
        .target(name: "MediaBatchCore", dependencies: ["MediaFormats", "PipelineModel", "Scheduler", "MetadataKit", "RunState", "VipsKit", "LibAVKit", "LibRawKit", "DuplicateKit"]),
        .executableTarget(name: "mediabatch", dependencies: [
            "MediaBatchCore", "PipelineModel", "RunState", "Scheduler", "DuplicateKit",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Test helpers. TestSupport links no C library (fixture paths, processes, exiftool, goldens, files made for
        // tests); MediaTestSupport adds libvips' pixel statistics and the report and manifest read back.
        .target(name: "TestSupport", path: "Tests/TestSupport", exclude: ["hdr_reference.py", "make_heic_grid.py"]),
        .target(name: "MediaTestSupport", dependencies: ["TestSupport", "VipsKit", "MediaBatchCore"], path: "Tests/MediaTestSupport"),
        // One test target a module, mirroring its folders; the pure modules' link no C library.
        .testTarget(name: "DigestKitTests", dependencies: ["DigestKit"]),
        .testTarget(name: "MediaFormatsTests", dependencies: ["MediaFormats", "TestSupport"]),
        .testTarget(name: "PipelineModelTests", dependencies: ["PipelineModel"]),
        .testTarget(name: "SchedulerTests", dependencies: ["Scheduler", "TestSupport"]),
        .testTarget(name: "RunStateTests", dependencies: ["RunState", "TestSupport"]),
        .testTarget(name: "DuplicateKitTests", dependencies: ["DuplicateKit"]),
        .testTarget(name: "MetadataKitTests", dependencies: ["MetadataKit", "TestSupport"]),
        .testTarget(name: "VipsKitTests", dependencies: ["VipsKit", "MediaTestSupport"]),
        .testTarget(name: "LibAVKitTests", dependencies: ["LibAVKit", "MediaTestSupport"]),
        .testTarget(name: "LibRawKitTests", dependencies: ["LibRawKit", "VipsKit", "MediaTestSupport"]),
        .testTarget(name: "MediaBatchCoreTests", dependencies: ["MediaBatchCore", "RunState", "VipsKit", "MediaTestSupport"]),
        // Whole pipelines run in process over real files, read back as a user would.
        .testTarget(name: "PipelineTests", dependencies: ["MediaBatchCore", "RunState", "VipsKit", "MediaTestSupport", "DuplicateKit"]),
        // The rules of the tree the compiler does not enforce: imports of C, libvips' names, function length, the layout of tests.
        .testTarget(name: "TidyTests", dependencies: ["TestSupport"]),
        // The command line, run as a user runs it: exit codes, reports, faults (full volumes, kills, memory limits).
        .testTarget(name: "mediabatchTests", dependencies: ["mediabatch", "MediaBatchCore", "RunState", "VipsKit", "MediaTestSupport"]),
    ]
)
