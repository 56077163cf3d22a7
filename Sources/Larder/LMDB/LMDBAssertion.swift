internal import CLMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The last resort when LMDB meets a damaged page that nothing verified first: LMDB's own
/// assertions stop the process (`abort`). Before that happens this handler says, on standard
/// error, that the store is damaged and how to find out more, instead of leaving a bare
/// assertion message. A tool that wants an exit status rather than SIGABRT sets
/// ``exitStatus``.
package enum LMDBAssertion {
    /// When non-zero, the process ends with this status (`_exit`) after the message, instead of
    /// LMDB's `abort()`. The `larder` tool sets it; a library never should, since ending the
    /// process skips everything a program would do on exit.
    package static let exitStatus = Atomic<Int32>(0)

    /// Installs the handler on `environment` (LMDB keeps one per environment).
    static func install(on environment: OpaquePointer) {
        mdb_env_set_assert(environment, larderAssertionHandler)
    }
}

private func larderAssertionHandler(_ environment: OpaquePointer?, _ message: UnsafePointer<CChar>?) {
    var pathPointer: UnsafePointer<CChar>?
    if let environment { mdb_env_get_path(environment, &pathPointer) }
    let path = pathPointer.map { String(cString: $0) } ?? "?"
    let detail = message.map { String(cString: $0) } ?? "?"
    let text = "larder: the store at \(path) is damaged: LMDB met a page it cannot read (\(detail)); run `larder check \(path)` and restore the store from a backup\n"
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    let status = LMDBAssertion.exitStatus.load(ordering: .relaxed)
    if status != 0 { _exit(status) }
}
