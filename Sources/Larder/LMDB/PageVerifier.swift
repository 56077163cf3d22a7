#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks the pages of an LMDB data file without LMDB: it reads them with `pread` and walks
/// every tree reachable from the current meta page (the free list, the main database and every
/// named database in it), checking what LMDB would otherwise trust. A store that passes can be
/// walked by LMDB's cursors without LMDB asserting or reading outside the file.
///
/// It checks: that both meta pages are valid and which one is current; that the file holds
/// every page the meta page says is in use; for each page, its number, its flags for its place
/// in the tree (branch, leaf, overflow), its free-space bounds, the offsets and sizes of its
/// nodes, and that no page is reached twice; overflow runs; keys in ascending order within a
/// page and between the separator keys of its parents; and each tree's depth and page and entry
/// counts against its `MDB_db` record.
struct PageVerifier {
    /// One problem, with the page it was found on.
    struct Problem: Equatable {
        var page: UInt64?
        var detail: String
    }

    /// What a verification found.
    struct Report {
        /// The problems found, at most `problemLimit`.
        var problems: [Problem] = []
        /// How many problems there are in all.
        var problemCount = 0
        /// The pages read, meta pages and overflow pages included.
        var pagesChecked = 0
        /// The transaction id of the meta page used, when one was valid.
        var transactionID: UInt64?
        /// Whether no commit happened while the pages were read (the newest transaction id was
        /// the same before and after). Without a read transaction pinning them, the pages of
        /// the snapshot read can be reused by later commits, so an unstable report may show
        /// damage that is not there: read again.
        var isStable = true
        /// The pages the walk reached, when asked for (tests pick pages to damage from them).
        var reachedPages: Set<UInt64> = []
        /// Whether a meta page, or what the file holds of meta page 0 when it is shorter than
        /// one, carries LMDB's magic number: the file is LMDB's, however damaged.
        var carriesLMDBMagic = false
    }

    static let problemLimit = 200
    /// Deeper than any tree a 64-bit address space can hold; a guard against cycles.
    private static let maxDepth = 64

    private let file: PageFile
    private var pageSize = 4096
    private var lastPage: UInt64 = 0
    /// The first page past the end of the file when the file is shorter than the pages in use,
    /// `nil` otherwise; the free list's pages from there on are gathered in ``freeTail``.
    private var tailStart: UInt64?
    private var freeTail = Set<UInt64>()
    private var visited = Set<UInt64>()
    private(set) var report = Report()

    /// Verifies the data file at `path`; `nil` when it cannot be opened (`errno` says why).
    ///
    /// - Parameter transactionID: the transaction whose meta page to use when both are valid
    ///   (a read transaction's id, so that the pages it sees are pinned while they are read);
    ///   the newer meta page otherwise.
    static func verify(dataFile path: String, transactionID: UInt64? = nil, keepingReachedPages: Bool = false) -> Report? {
        guard let file = PageFile(path: path) else { return nil }
        return verify(file, transactionID: transactionID, keepingReachedPages: keepingReachedPages)
    }

    /// Verifies the pages of `file`, opened earlier (a writer may have grown it since), as
    /// ``verify(dataFile:transactionID:keepingReachedPages:)`` does.
    static func verify(_ file: PageFile, transactionID: UInt64? = nil, keepingReachedPages: Bool = false) -> Report {
        var verifier = PageVerifier(file: file)
        let before = verifier.newestTransactionID()
        verifier.run(preferring: transactionID)
        verifier.report.isStable = before == verifier.newestTransactionID()
        if keepingReachedPages { verifier.report.reachedPages = verifier.visited }
        return verifier.report
    }

    /// A damaged page size in the meta pages of the data file at `path`, which LMDB would trust:
    /// it reads the page size from meta page 0 to find meta page 1, takes the size of the newer
    /// of the two without checking it, and its first read with a wrong size falls outside the
    /// map (SIGBUS). Found by reading the two meta pages as LMDB does. `nil` when the sizes are
    /// sound, and for every file LMDB refuses by itself (no file, an empty one, a meta page
    /// without LMDB's marks), which the open reports as it always has.
    static func damagedMetaPageError(dataFile path: String, path storePath: String) -> LarderError? {
        guard let file = PageFile(path: path), file.size > 0,
              let first = file.read(at: 0, length: PageLayout.Meta.size) else { return nil }
        let meta0 = PageLayout.Meta(first)
        guard meta0.carriesLMDBMarks else { return nil }
        // Meta page 0's size is where LMDB looks for meta page 1 (a wild one is a wild read).
        if PageLayout.isPlausiblePageSize(Int(meta0.pageSize)) {
            guard let second = file.read(at: Int(meta0.pageSize), length: PageLayout.Meta.size) else { return nil }
            let meta1 = PageLayout.Meta(second)
            guard meta1.carriesLMDBMarks else { return nil }
            let used = meta1.transactionID > meta0.transactionID ? meta1 : meta0
            guard !PageLayout.isPlausiblePageSize(Int(used.pageSize)) || meta0.pageSize != meta1.pageSize else { return nil }
        }
        // The full reading of the meta pages says which one is damaged.
        var verifier = PageVerifier(file: file)
        _ = verifier.chooseMeta(preferring: nil)
        let detail = verifier.report.problems.first?.detail
            ?? "the meta pages give different page sizes"
        return LarderError(
            .corrupted,
            "the store is damaged: \(detail); it is not opened, since LMDB would trust the damaged page size. Run `larder check` for the details and restore the store from a backup",
            operation: "open", path: storePath)
    }

    private init(file: PageFile) {
        self.file = file
    }

    private mutating func note(_ page: UInt64?, _ detail: String) {
        report.problemCount += 1
        if report.problems.count < Self.problemLimit { report.problems.append(Problem(page: page, detail: detail)) }
    }

    private var full: Bool { report.problemCount >= Self.problemLimit }

    // MARK: Meta pages

    /// Reads the meta pages, then walks the free list and, unless `freeListOnly`, the main database.
    private mutating func run(preferring transactionID: UInt64?, freeListOnly: Bool = false) {
        guard let meta = chooseMeta(preferring: transactionID) else { return }
        // The size as it is after the meta page was read: a commit of another process between
        // the open of the file and that read grew the file first.
        file.refreshSize()
        report.transactionID = meta.transactionID
        lastPage = meta.lastPage
        let needed = (meta.lastPage.addingReportingOverflow(1).partialValue).multipliedReportingOverflow(by: UInt64(pageSize))
        if meta.lastPage < 1 || needed.overflow {
            return note(nil, "the data file is \(file.size) bytes, but its meta page says its pages end at page \(meta.lastPage) (beyond any file): the meta page is damaged")
        }
        // Bytes past the last page in use (a longer file, even a partial page) are not read by
        // LMDB: they are no damage. A shorter file is sound when every page past its end is free
        // (see `freeTailIsComplete`); the walk checks that no tree reaches one.
        if needed.partialValue > UInt64(file.size) { tailStart = UInt64(file.size / pageSize) }
        visited = [0, 1]
        report.pagesChecked = 2
        walk(meta.freeDatabase, name: "the free list", isMain: false, isFreeList: true)
        if !freeTailIsComplete {
            return note(nil, "the data file is \(file.size) bytes, but its meta page says its pages end at page \(meta.lastPage) (\(needed.partialValue) bytes), and not all the pages past its end are free: it was truncated or the meta page is damaged")
        }
        guard !freeListOnly else { return }
        walk(meta.mainDatabase, name: "the main database", isMain: true, isFreeList: false)
    }

    /// Whether every page from ``tailStart`` to the last page in use is in the free list (true
    /// when the file holds all the pages). A transaction that takes new pages at the end of the
    /// file and frees them before it commits leaves them free and never written, so LMDB's last
    /// page can lie past the end of a sound file; a truncated file cuts pages the trees use.
    private var freeTailIsComplete: Bool {
        guard let tailStart else { return true }
        return tailStart <= lastPage && UInt64(freeTail.count) == lastPage - tailStart + 1
    }

    /// Whether the data file at `path` holds every page its newest meta page's trees can use:
    /// it is as long as its pages, or the pages past its end are all free (see
    /// ``freeTailIsComplete``). False for a file whose meta pages or free list cannot be read.
    static func pagesInUseAreInFile(dataFile path: String) -> Bool {
        guard let file = PageFile(path: path) else { return false }
        var verifier = PageVerifier(file: file)
        verifier.run(preferring: nil, freeListOnly: true)
        return verifier.report.transactionID != nil && verifier.report.problemCount == 0
    }

    /// The larger transaction id of the two meta pages as they are now (either may be damaged).
    private func newestTransactionID() -> UInt64? {
        let first = file.read(at: 0, length: PageLayout.Meta.size).map(PageLayout.Meta.init)
        let size = first.map { PageLayout.isPlausiblePageSize(Int($0.pageSize)) ? Int($0.pageSize) : 4096 } ?? 4096
        let second = file.read(at: size, length: PageLayout.Meta.size).map(PageLayout.Meta.init)
        return [first, second].compactMap { $0?.transactionID }.max()
    }

    /// Reads both meta pages, notes a damaged one, and returns the one to use.
    private mutating func chooseMeta(preferring transactionID: UInt64?) -> PageLayout.Meta? {
        guard let first = file.read(at: 0, length: PageLayout.Meta.size) else {
            // What is left may still be the start of meta page 0, magic number included.
            if file.size >= PageLayout.Meta.magicEnd, let start = file.read(at: 0, length: PageLayout.Meta.magicEnd) {
                report.carriesLMDBMagic = start.uint32(at: 16) == PageLayout.magic
            }
            note(0, "the data file is \(file.size) bytes, shorter than a meta page\(report.carriesLMDBMagic ? ": it was truncated" : "")")
            return nil
        }
        let meta0 = PageLayout.Meta(first)
        report.carriesLMDBMagic = meta0.magic == PageLayout.magic
        // The page size is recorded in meta page 0; if that page is damaged, try the sizes LMDB uses.
        var candidates = [Int(meta0.pageSize), Int(getpagesize()), 4096, 8192, 16_384, 65_536]
        candidates = candidates.filter(PageLayout.isPlausiblePageSize)
        var meta1: PageLayout.Meta?
        for size in candidates {
            guard let bytes = file.read(at: size, length: PageLayout.Meta.size) else { continue }
            let candidate = PageLayout.Meta(bytes)
            if candidate.magic == PageLayout.magic { report.carriesLMDBMagic = true }
            if meta1 == nil || candidate.defect(asPage: 1) == nil {
                meta1 = candidate
                pageSize = size
                if candidate.defect(asPage: 1) == nil { break }
            }
        }
        if meta0.defect(asPage: 0) == nil { pageSize = Int(meta0.pageSize) }
        let defect0 = meta0.defect(asPage: 0)
        let defect1 = meta1.map { $0.defect(asPage: 1) } ?? "the file ends before it"
        if let meta1, defect0 == nil, defect1 == nil, meta1.pageSize != meta0.pageSize {
            note(1, "meta page 1 gives page size \(meta1.pageSize), meta page 0 gives \(meta0.pageSize)")
            return nil
        }
        switch (defect0, defect1) {
        case (nil, nil):
            let meta1 = meta1!
            if let transactionID, meta0.transactionID == transactionID { return meta0 }
            if let transactionID, meta1.transactionID == transactionID { return meta1 }
            return meta0.transactionID >= meta1.transactionID ? meta0 : meta1
        case (let defect?, nil):
            note(0, "meta page 0 is damaged: \(defect); meta page 1 is intact (transaction \(meta1!.transactionID))")
            return meta1
        case (nil, let defect?):
            note(1, "meta page 1 is damaged: \(defect); meta page 0 is intact (transaction \(meta0.transactionID))")
            return meta0
        case (let defect0?, let defect1?):
            note(0, "both meta pages are damaged: page 0: \(defect0); page 1: \(defect1)")
            return nil
        }
    }

    // MARK: Trees

    /// What a walk counts, to compare with the tree's record.
    private struct Tally {
        var branchPages: UInt64 = 0
        var leafPages: UInt64 = 0
        var overflowPages: UInt64 = 0
        var entries: UInt64 = 0
        var depth = 0
    }

    private mutating func walk(_ record: PageLayout.DatabaseRecord, name: String, isMain: Bool, isFreeList: Bool) {
        if record.root == PageLayout.invalidPage {
            if record.depth != 0 || record.entries != 0 {
                note(nil, "\(name) is empty but its record says depth \(record.depth) and \(record.entries) entries")
            }
            return
        }
        if record.flags & PageLayout.unsupportedFlags != 0 {
            return note(nil, "\(name) has flags 0x\(String(record.flags, radix: 16)), which Larder never sets")
        }
        var tally = Tally()
        let context = TreeContext(name: name, isMain: isMain, integerKeys: record.flags & PageLayout.integerKey != 0 || isFreeList, isFreeList: isFreeList, depth: Int(record.depth))
        visit(record.root, level: 1, lower: nil, upper: nil, context: context, tally: &tally)
        guard !full else { return }
        if tally.depth != Int(record.depth) { note(record.root, "\(name) is \(tally.depth) levels deep, but its record says \(record.depth)") }
        if tally.entries != record.entries { note(record.root, "\(name) holds \(tally.entries) entries, but its record says \(record.entries)") }
        if tally.branchPages != record.branchPages || tally.leafPages != record.leafPages || tally.overflowPages != record.overflowPages {
            note(record.root, "\(name) has \(tally.branchPages) branch, \(tally.leafPages) leaf and \(tally.overflowPages) overflow pages, but its record says \(record.branchPages), \(record.leafPages) and \(record.overflowPages)")
        }
    }

    private struct TreeContext {
        var name: String
        var isMain: Bool
        var integerKeys: Bool
        var isFreeList: Bool
        var depth: Int
    }

    /// Claims `count` pages from `first` for the walk; false (noted) when one is out of range or
    /// was reached before.
    private mutating func claim(_ first: UInt64, count: UInt64, in name: String) -> Bool {
        guard first >= 2, count >= 1, first <= lastPage, count - 1 <= lastPage - first else {
            note(first, "\(name) refers to page \(first)\(count > 1 ? " (and \(count - 1) after it)" : ""), outside the pages in use (2 to \(lastPage))")
            return false
        }
        for page in first..<(first + count) where !visited.insert(page).inserted {
            note(page, "page \(page) is reached twice (\(name))")
            return false
        }
        report.pagesChecked += Int(count)
        return true
    }

    private mutating func visit(_ number: UInt64, level: Int, lower: [UInt8]?, upper: [UInt8]?, context: TreeContext, tally: inout Tally) {
        guard !full else { return }
        guard level <= Self.maxDepth, level <= max(context.depth, 1) else {
            return note(number, "\(context.name) goes deeper than its record's depth \(context.depth)")
        }
        guard claim(number, count: 1, in: context.name) else { return }
        guard let page = file.read(at: Int(number) * pageSize, length: pageSize) else {
            return note(number, "page \(number) lies past the end of the data file")
        }
        if page.uint64(at: 0) != number { return note(number, "page \(number) says it is page \(page.uint64(at: 0))") }
        let flags = page.uint16(at: 10) & ~PageLayout.dirtyPage
        let isLeaf = level == context.depth
        let expected = isLeaf ? PageLayout.leafPage : PageLayout.branchPage
        if flags != expected {
            return note(number, "page \(number) of \(context.name) has flags 0x\(String(flags, radix: 16)); a \(isLeaf ? "leaf" : "branch") page was expected at depth \(level)")
        }
        let lowerBound = Int(page.uint16(at: 12))
        let upperBound = Int(page.uint16(at: 14))
        guard lowerBound >= PageLayout.headerSize, (lowerBound - PageLayout.headerSize) % 2 == 0, lowerBound <= upperBound, upperBound <= pageSize else {
            return note(number, "page \(number) has free-space bounds \(lowerBound)–\(upperBound), impossible in a \(pageSize)-byte page")
        }
        let count = (lowerBound - PageLayout.headerSize) / 2
        if count == 0 { return note(number, "page \(number) of \(context.name) has no entries") }
        tally.depth = max(tally.depth, level)
        if isLeaf { tally.leafPages += 1 } else { tally.branchPages += 1 }
        var previous: ArraySlice<UInt8>?
        var children: [(page: UInt64, key: [UInt8]?)] = []
        for index in 0..<count {
            let offset = Int(page.uint16(at: PageLayout.headerSize + 2 * index))
            guard offset >= upperBound, offset % 2 == 0, offset + PageLayout.nodeHeaderSize <= pageSize else {
                return note(number, "node \(index) of page \(number) is at offset \(offset), outside the page's node area")
            }
            let low = UInt64(page.uint16(at: offset))
            let high = UInt64(page.uint16(at: offset + 2))
            let nodeFlags = page.uint16(at: offset + 4)
            let keySize = Int(page.uint16(at: offset + 6))
            let keyStart = offset + PageLayout.nodeHeaderSize
            guard keyStart + keySize <= pageSize else {
                return note(number, "the key of node \(index) of page \(number) runs past the end of the page")
            }
            let key = page.slice(keyStart, keySize)
            if !isLeaf && index == 0 {
                // The first key of a branch page is not used: its child holds everything below
                // the second key.
            } else {
                if let previous, compare(previous, key, context) >= 0 {
                    return note(number, "the keys of page \(number) of \(context.name) are out of order at node \(index)")
                }
                if let lower, compare(lower[...], key, context) > 0 {
                    return note(number, "a key of page \(number) of \(context.name) is below its parent's separator key")
                }
                if let upper, compare(upper[...], key, context) <= 0 {
                    return note(number, "a key of page \(number) of \(context.name) is not below the next separator key of its parent")
                }
                previous = key
            }
            if !isLeaf {
                let child = low | high << 16 | UInt64(nodeFlags) << 32
                children.append((child, index == 0 ? nil : Array(key)))
                continue
            }
            tally.entries += 1
            let dataSize = Int(low | high << 16)
            let dataStart = keyStart + keySize
            switch nodeFlags {
            case 0:
                guard dataStart + dataSize <= pageSize else {
                    return note(number, "the value of node \(index) of page \(number) (\(dataSize) bytes) runs past the end of the page")
                }
                if context.isFreeList { checkFreeListEntry(page.slice(dataStart, dataSize), page: number) }
            case PageLayout.bigData:
                guard dataStart + 8 <= pageSize else {
                    return note(number, "the overflow page number of node \(index) of page \(number) runs past the end of the page")
                }
                checkOverflow(page.uint64(at: dataStart), valueSize: dataSize, from: number, context: context, tally: &tally)
                // A long free-list entry lives on overflow pages: its page numbers count too.
                if context.isFreeList, tailStart != nil, !full,
                   let value = file.read(at: Int(page.uint64(at: dataStart)) * pageSize + PageLayout.headerSize, length: dataSize) {
                    checkFreeListEntry(value.slice(0, dataSize), page: number)
                }
            case PageLayout.subDatabase where context.isMain:
                guard dataSize == PageLayout.databaseRecordSize, dataStart + dataSize <= pageSize else {
                    return note(number, "the record of named database node \(index) of page \(number) is \(dataSize) bytes, not \(PageLayout.databaseRecordSize)")
                }
                let name = "database \"\(String(decoding: key, as: UTF8.self))\""
                walk(PageLayout.DatabaseRecord(page, at: dataStart), name: name, isMain: false, isFreeList: false)
            default:
                return note(number, "node \(index) of page \(number) of \(context.name) has flags 0x\(String(nodeFlags, radix: 16)), which Larder's databases never use")
            }
            if full { return }
        }
        for (position, child) in children.enumerated() {
            let childLower = child.key ?? lower
            let childUpper = position + 1 < children.count ? children[position + 1].key : upper
            visit(child.page, level: level + 1, lower: childLower, upper: childUpper, context: context, tally: &tally)
            if full { return }
        }
    }

    private mutating func checkOverflow(_ first: UInt64, valueSize: Int, from number: UInt64, context: TreeContext, tally: inout Tally) {
        guard first >= 2, first <= lastPage, let header = file.read(at: Int(first) * pageSize, length: PageLayout.headerSize) else {
            return note(number, "a value on page \(number) refers to overflow page \(first), outside the pages in use")
        }
        let pages = UInt64(header.uint32(at: 12))
        let flags = header.uint16(at: 10) & ~PageLayout.dirtyPage
        guard header.uint64(at: 0) == first, flags == PageLayout.overflowPage else {
            return note(first, "overflow page \(first) (from page \(number)) is not an overflow page (it says page \(header.uint64(at: 0)), flags 0x\(String(flags, radix: 16)))")
        }
        guard UInt64(PageLayout.headerSize + valueSize) <= pages * UInt64(pageSize) else {
            return note(first, "a value on page \(number) is \(valueSize) bytes, more than its \(pages) overflow pages from page \(first) hold")
        }
        guard claim(first, count: pages, in: context.name) else { return }
        tally.overflowPages += pages
    }

    /// A free-list value is a page count followed by that many page numbers, each in use range.
    private mutating func checkFreeListEntry(_ value: ArraySlice<UInt8>, page number: UInt64) {
        let bytes = PageBytes(bytes: Array(value))
        guard bytes.count >= 8, bytes.count % 8 == 0, bytes.uint64(at: 0) == UInt64(bytes.count / 8 - 1) else {
            return note(number, "a free-list entry on page \(number) is not a list of page numbers")
        }
        for index in 1..<(bytes.count / 8) {
            let free = bytes.uint64(at: index * 8)
            if free > lastPage {
                return note(number, "the free list names page \(free), past the last page in use \(lastPage)")
            }
            if let tailStart, free >= tailStart { freeTail.insert(free) }
        }
    }

    /// The order of keys in a tree: unsigned integers (the free list) or bytes (`memcmp`).
    private func compare(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>, _ context: TreeContext) -> Int {
        if context.integerKeys, a.count == 8, b.count == 8 {
            let x = PageBytes(bytes: Array(a)).uint64(at: 0)
            let y = PageBytes(bytes: Array(b)).uint64(at: 0)
            return x < y ? -1 : (x == y ? 0 : 1)
        }
        for (p, q) in zip(a, b) where p != q { return p < q ? -1 : 1 }
        return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
    }
}

extension PageVerifier {
    /// The error for a store LMDB refused as not an LMDB file (LMDB's `INVALID` result) when one of its
    /// meta pages is intact, or when what is left of them still carries LMDB's magic number (a
    /// file truncated inside its first page, both meta pages damaged elsewhere): the store is
    /// damaged, not foreign. `nil` when the file does not look like a damaged store.
    static func damagedMetaError(dataFile: String, path: String) -> LarderError? {
        guard let report = verify(dataFile: dataFile), report.transactionID != nil || report.carriesLMDBMagic,
              let first = report.problems.first, let page = first.page, page < 2 else { return nil }
        return LarderError(
            .corrupted,
            "the store is damaged: \(first.detail); LMDB opens no store with a damaged meta page. Run `larder check` for the details and restore the store from a backup",
            operation: "open", path: path)
    }
}
