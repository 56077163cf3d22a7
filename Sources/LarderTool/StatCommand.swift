#if Extras
import ArgumentParser
import Larder

/// `larder stat`: LMDB's figures for every named database, like `mdb_stat -a`.
struct StatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stat",
        abstract: "Show entries, tree depth and pages of every database in the store, like mdb_stat -a.",
        discussion: """
            One row for LMDB's main database (which lists the named databases), then one for each \
            named database: objects, metadata, collections, larder (the store's own records), log \
            (the change log) and each extension's x.<name>.<part>. Pages are LMDB pages (see info \
            for the page size); overflow pages hold values too large for a leaf page. Read from \
            one snapshot.
            """)

    @OptionGroup var store: StoreArgument
    @Option(help: "text, json, jsonl, table or csv.") var format: OutputFormat = .text

    static let columns = ["database", "entries", "depth", "branchPages", "leafPages", "overflowPages", "pages"]

    func run() throws {
        let db = try store.open()
        let (trees, pageSize) = try withStoreErrors { (try db.databaseStatistics(), try db.statistics().pageSize) }
        var table = RecordTable(columns: Self.columns)
        for tree in trees {
            table.append([
                .string(tree.name ?? "(main)"), .integer(Int64(tree.entries)), .integer(Int64(tree.depth)),
                .integer(Int64(tree.branchPages)), .integer(Int64(tree.leafPages)), .integer(Int64(tree.overflowPages)), .integer(Int64(tree.pages)),
            ])
        }
        guard format == .text else {
            table.print(format)
            return
        }
        for tree in trees {
            say("Status of \(tree.name.map { "\"" + $0 + "\"" } ?? "Main DB")")
            say("  Tree depth: \(tree.depth)")
            say("  Branch pages: \(tree.branchPages)")
            say("  Leaf pages: \(tree.leafPages)")
            say("  Overflow pages: \(tree.overflowPages)")
            say("  Entries: \(tree.entries)")
        }
        let pages = trees.reduce(0) { $0 + $1.pages }
        say("\(pages) pages in use by the trees (\(byteCount(pages * pageSize)); free pages not counted)")
    }
}
#endif
