#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Page verification: the check of a data file's pages that runs before anything walks a
// suspect store with LMDB's cursors, and the one tool that works on a store LMDB refuses to open.

extension Database {
    /// Verifies the pages of the store at `path` without opening it: reads the data file with
    /// `pread` (never through a memory map, never through LMDB) and checks both meta pages, the
    /// file's length, and every page of every tree reachable from the current meta page, as
    /// ``checkStructure()`` does first.
    ///
    /// It works on stores that LMDB refuses to open (a damaged meta page), and on stores whose
    /// damage would make LMDB assert or read past the end of the file. It changes nothing. While
    /// it reads, a read transaction holds the newest snapshot (through the `Database` this
    /// process has open on the store, or a read-only LMDB handle of its own), so writers running
    /// meanwhile, in any process, cannot reuse the pages it reads. Where LMDB cannot open the
    /// store (a damaged meta page) nothing can be pinned, and when it finds damage and a commit
    /// happened meanwhile it reads again (up to ten times).
    ///
    /// ```swift
    /// let report = try Database.verifyPages(path: "/backups/shop")
    /// if !report.isConsistent { for problem in report.problems { print(problem) } }
    /// ```
    /// - Parameter path: the store: a directory holding `data.mdb`, or a single data file.
    /// - Returns: a report whose problems are all of kind ``StructureProblem/Kind/page`` or
    ///   ``StructureProblem/Kind/metaPage``, and whose ``StructureReport/pagesChecked`` counts the
    ///   pages read; its other counts are 0.
    /// - Complexity: O(size of the data in use): it reads every page reachable from the meta page.
    /// - Throws: ``LarderError`` with code
    ///   - ``LarderError/Code/notAStore`` when neither meta page is an LMDB meta page and none
    ///     carries LMDB's magic number (another kind of file, an empty file, or both meta pages
    ///     destroyed: nothing says the file is LMDB's). A file whose meta pages carry the magic
    ///     number but are damaged otherwise, or which was truncated inside its first page after
    ///     the magic number, is reported as damaged (``StructureProblem/Kind/metaPage``);
    ///   - ``LarderError/Code/permissionDenied``, ``LarderError/Code/io`` or
    ///     ``LarderError/Code/lmdb`` when the data file cannot be opened (``LarderError/lmdbCode``
    ///     holds `errno`, `ENOENT` when there is none).
    public static func verifyPages(path: String) throws -> StructureReport {
        let location = try StoreLocation.resolve(path, singleFile: false)
        let dataFile = location.dataFile
        var attempts = 0
        while true {
            // A read transaction holds the snapshot while its pages are read, so that a writer
            // running meanwhile (in any process) cannot reuse them and make a sound store look
            // damaged.
            let verified = try SnapshotPin.withPinnedSnapshot(location) { pinned in
                (PageVerifier.verify(dataFile: dataFile, transactionID: pinned), errno, pinned != nil)
            }
            guard let report = verified.0 else {
                errno = verified.1
                throw LMDBResult.error(errno, operation: "verifyPages", path: dataFile)
            }
            attempts += 1
            if report.transactionID == nil && !report.carriesLMDBMagic {
                // Neither meta page is LMDB's: there is no store here to call damaged.
                throw LarderError(
                    .notAStore, "the file is not a Larder store: \(report.problems.first?.detail ?? "it has no valid meta page")",
                    operation: "verifyPages", path: dataFile)
            }
            // Without a pin (LMDB could not open the file), a commit during the read may have
            // reused pages of the snapshot read: read again.
            if verified.2 || report.isStable || report.problemCount == 0 || attempts == 10 { return StructureReport(pages: report) }
        }
    }
}

extension StructureReport {
    /// A report of page problems only.
    init(pages: PageVerifier.Report) {
        self.init(
            problems: pages.problems.map(StructureProblem.init(page:)), problemCount: pages.problemCount,
            objectsChecked: 0, metadataChecked: 0, collectionsChecked: 0, changeLogEntriesChecked: 0,
            extensionRecordsChecked: 0, pagesChecked: pages.pagesChecked)
    }
}

extension StructureProblem {
    init(page problem: PageVerifier.Problem) {
        let isMeta = problem.page.map { $0 < 2 } ?? false
        self.init(kind: isMeta ? .metaPage : .page, detail: problem.detail, index: nil)
    }
}
