import Foundation

/// The independent HDR reader (`hdr_reference.py`: libvips 8.18 with libultrahdr, pillow-heif,
/// exiftool, numpy, in the tests' venv): what an Ultra HDR output holds, and how far its HDR
/// rendition is from the input's, without any of mediabatch's code.
public enum HDRReference {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("Tests/TestSupport/hdr_reference.py").path

    public struct Description: Decodable {
        public struct Size: Decodable {
            public let width: Int
            public let height: Int
            public let bands: Int
        }

        /// `uhdrload` when libultrahdr reads the file as Ultra HDR.
        public let loader: String
        public let width: Int
        public let height: Int
        public let gainmap: Size?
        /// Per channel, as libultrahdr reports them (linear, not log2).
        public let maxContentBoost: [Double]?
        public let minContentBoost: [Double]?
        public let gamma: [Double]?
        public let offsetSdr: [Double]?
        public let offsetHdr: [Double]?
        public let hdrCapacityMin: Double?
        public let hdrCapacityMax: Double?
    }

    /// The relative difference of HDR/SDR luminance ratios in bright, boosted 4×4 blocks.
    public struct Comparison: Decodable {
        public let blocks: Int
        public let median: Double?
        public let p95: Double?
        /// How the input was read: apple-heic, apple-jpeg, uhdr or iso.
        public let input: String
    }

    public static func describe(_ path: String) throws -> Description {
        try run(["describe", path])
    }

    public static func compare(input: String, output: String) throws -> Comparison {
        try run(["compare", input, output])
    }

    private static func run<T: Decodable>(_ arguments: [String]) throws -> T {
        let result = try runProcess(try PythonReference.python(), [script] + arguments)
        guard result.exitCode == 0 else { throw PythonReferenceError(message: result.stderr) }
        return try JSONDecoder().decode(T.self, from: Data(result.stdout.utf8))
    }
}
