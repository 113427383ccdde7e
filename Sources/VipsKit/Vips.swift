import CMediaShim
import CVips
import Foundation

/// Process-wide libvips lifecycle.
public enum Vips {
    private static let startup: Result<Void, VipsError> = {
        do {
            try check(mb_vips_startup(CommandLine.arguments.first ?? "mediabatch"), "vips_init")
            return .success(())
        } catch {
            return .failure(error as! VipsError)
        }
    }()

    /// Starts libvips once per process, set up for batch work (see `mb_vips_startup`).
    public static func start() throws {
        try startup.get()
    }

    /// "8.14": outputs can change between libvips releases, so the state database records it.
    public static var version: String {
        "\(vips_version(0)).\(vips_version(1))"
    }

    /// Frees libvips' per-thread buffers. Dispatch reuses threads, so call this at the end of each
    /// work item that touched libvips, or its per-thread state accumulates.
    public static func endWorkItem() {
        vips_thread_shutdown()
    }
}
