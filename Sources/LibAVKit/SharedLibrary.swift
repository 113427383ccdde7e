import Foundation

/// A library opened with dlopen, its functions looked up by name: FFmpeg's libraries are opened
/// on the first video, not linked (see CLibAV's module map). Never closed: the functions
/// looked up live as long as the process.
struct SharedLibrary: @unchecked Sendable {
    let file: String
    private let handle: UnsafeMutableRawPointer

    init(_ file: String) throws(LibAVError) {
        guard let handle = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
            throw LibAVError(operation: "load \(file)", message: String(cString: dlerror()))
        }
        self.file = file
        self.handle = handle
    }

    /// `name` as a C function of type `Function`; dlsym also searches the libraries this one needs.
    func function<Function>(_ name: String) throws(LibAVError) -> Function {
        guard let address = dlsym(handle, name) else { throw LibAVError(operation: "load \(file)", message: "no \(name)") }
        return unsafeBitCast(address, to: Function.self)
    }
}
