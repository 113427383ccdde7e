import CMediaShim
import CVips
import Foundation
import MediaFormats

/// Process-wide libvips lifecycle.
public enum Vips {
    private static let startup: Result<Void, VipsError> = {
        do {
            try withModuleNames { names, count in
                try check(mb_vips_startup(CommandLine.arguments.first ?? "mediabatch", names, Int32(count)), "vips_init")
            }
            return .success(())
        } catch {
            return .failure(error as! VipsError)
        }
    }()

    /// The modules of every codec's loader and saver, as C strings for `mb_vips_startup`.
    private static func withModuleNames(_ body: (UnsafePointer<UnsafePointer<CChar>?>, Int) throws -> Void) rethrows {
        let names = Set(Codec.allCases.compactMap(\.libvipsModule)).sorted().map { strdup($0) }
        defer { names.forEach { free($0) } }
        let pointers = names.map { UnsafePointer($0) }
        return try pointers.withUnsafeBufferPointer { try body($0.baseAddress!, $0.count) }
    }

    /// Starts libvips once per process, set up for batch work (see `mb_vips_startup`).
    public static func start() throws {
        try startup.get()
    }

    /// Blocks every libvips loader but those of `codecs` (a loader class covers its file, buffer
    /// and source variants), so a file reaches only the decoders the pipeline asked for,
    /// whatever libvips' own sniffing says. Process-wide: a process runs one pipeline.
    public static func allowOnlyLoaders(for codecs: some Sequence<Codec>) {
        vips_operation_block_set("VipsForeignLoad", 1)
        for name in Set(codecs.map(\.loaderClass)) { vips_operation_block_set(name, 0) }
        // Blocks the untrusted loaders just allowed too (JPEG XL's, ImageMagick's): `allowUntrustedLoaders` unblocks them.
        vips_block_untrusted_set(1)
    }

    /// Unblocks the loaders of `codecs` that libvips marks untrusted (JPEG XL's, ImageMagick's),
    /// by name and no other: for the process that reads pixels, the worker when input is untrusted.
    public static func allowUntrustedLoaders(for codecs: some Sequence<Codec>) {
        for name in Set(codecs.filter(\.loaderIsUntrusted).map(\.loaderClass)) { vips_operation_block_set(name, 0) }
    }

    /// Unblocks the savers of `codecs` that libvips marks untrusted (JPEG XL's), by name and no
    /// other: for the process that encodes, the worker when input is untrusted.
    public static func allowSavers(for codecs: some Sequence<Codec>) {
        for name in Set(codecs.map(\.saverClass)) where !name.isEmpty { vips_operation_block_set(name, 0) }
    }

    /// "8.14": outputs can change between libvips releases, so the state database records it.
    public static var version: String {
        "\(vips_version(0)).\(vips_version(1))"
    }

    /// Gives the heap that freed images left back to the system when more than `keepBytes` of it
    /// is free (see `mb_release_free_memory`).
    public static func releaseFreeMemory(keepingUpTo keepBytes: Int) {
        _ = mb_release_free_memory(keepBytes)
    }

    /// The threads libvips' pipelines built from now on compute with, process-wide: one while the
    /// scheduler's items keep every CPU busy, more for a batch's tail, whose CPUs nothing else waits for.
    public static func setThreads(_ count: Int) {
        vips_concurrency_set(Int32(count))
    }

    /// Frees libvips' per-thread buffers. Dispatch reuses threads, so call this at the end of each
    /// work item that touched libvips, or its per-thread state accumulates.
    public static func endWorkItem() {
        vips_thread_shutdown()
    }
}
