// The public open assembles a store: the core (Store/) opens the LMDB environment and
// the store's own write path; this layer, above every feature, adds what each store has (the
// extensions' upkeep) and runs the full check an open may ask for.

extension Database {
    /// Opens the store at `path`, creating it if there is nothing there.
    ///
    /// `path` names a directory (created with the owner-only permissions of
    /// ``Configuration/fileMode`` if missing) or, with ``Configuration/singleFile`` or when it is
    /// an existing regular file, one data file.
    ///
    /// - Throws: ``LarderError`` with code
    ///   - ``LarderError/Code/notAStore`` when the path holds something else (a file that is not
    ///     LMDB, or an LMDB database that Larder did not create);
    ///   - ``LarderError/Code/newerFormatVersion`` when a newer Larder wrote the store;
    ///   - ``LarderError/Code/permissionDenied`` when the files cannot be created or opened;
    ///   - ``LarderError/Code/lmdb`` or ``LarderError/Code/io`` for other failures.
    ///   A failed open changes nothing at `path`.
    public convenience init(path: String, configuration: Configuration = Configuration()) throws {
        try self.init(opening: path, configuration: configuration)
        // The features every store has join its write path. The extensions' upkeep runs in every
        // write even before this process registers one: a write marks the extensions it
        // recorded earlier, and no longer keeps, as stale.
        _ = shared.extensions
        // The full check of ``OpenVerification/full`` reads every record and every extension's
        // entries: it is the structure check of Maintenance/, so it runs here, above the store.
        if configuration.verification == .full {
            let report = try checkStructure()
            if let first = report.problems.first {
                releaseStore()
                throw LarderError(.corrupted, "the store failed its check at open (\(report.problemCount) problem\(report.problemCount == 1 ? "" : "s"), the first: \(first.detail)); restore it from a backup, or run `larder check` on it for the details", operation: "open", path: path)
            }
        }
    }
}
