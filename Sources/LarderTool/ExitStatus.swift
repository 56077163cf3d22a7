#if Extras
/// The tool's exit statuses: a small fixed table, the same for every subcommand
/// (Documentation/CommandLine.md, "Exit statuses").
enum ExitStatus: Int32 {
    /// Success.
    case ok = 0
    /// The command line is wrong: an unknown subcommand or option, a missing argument, a bad
    /// option value (what swift-argument-parser reports).
    case usage = 1
    /// What was asked for is not there: no store at the path, no such key or collection.
    case notFound = 2
    /// The input cannot be used: JSON that does not parse, an import line that is not a record,
    /// a path that is not a Larder store (or one of a newer format), an invalid collection or key.
    case badInput = 3
    /// `check` (or the check after `backup`) found problems.
    case checkFailed = 4
    /// Any other failure of the store or the system (LMDB, permissions, a full disk, a damaged value).
    case storeError = 5
}
#endif
