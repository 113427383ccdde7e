import Dispatch

/// `body` over `0..<count` cut into up to 64 runs of at least `least` each, the runs shared among
/// every CPU; their results joined in order.
func concatenatedInChunks<T>(_ count: Int, least: Int, _ body: (Range<Int>) -> [T]) -> [T] {
    let chunks = max(1, min(64, count / least))
    var results = [[T]](repeating: [], count: chunks)
    results.withUnsafeMutableBufferPointer { buffer in
        let results = buffer
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            results[chunk] = body(count * chunk / chunks..<count * (chunk + 1) / chunks)
        }
    }
    return results.flatMap { $0 }
}
