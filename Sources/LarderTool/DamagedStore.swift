#if Extras
import Larder

/// The tool's guard against damaged stores: every subcommand that opens a store verifies its
/// pages first (``Database/verifyPages(path:)``: the data file read once with `pread`, no
/// LMDB), and refuses a damaged store with one clear line and status 5, because LMDB's cursors
/// assert or read past the end of the file on a damaged page. `check` reports the damage instead
/// (status 4). See Documentation/CommandLine.md, "Damaged stores".
enum DamagedStore {
    /// Throws a ``CommandFailure`` when the pages of the store at `path` are damaged. A path
    /// that cannot be read is left to the open that follows, which reports it.
    static func refuse(_ path: String) throws {
        guard let report = try? Database.verifyPages(path: path), let first = report.problems.first else { return }
        let more = report.problemCount > 1 ? ", and \(report.problemCount - 1) more problem\(report.problemCount == 2 ? "" : "s")" : ""
        throw CommandFailure(
            .storeError,
            "the store is damaged (\(first.detail)\(more)); nothing was read or changed. Run `larder check` on it for the details, and restore it from a backup")
    }
}
#endif
