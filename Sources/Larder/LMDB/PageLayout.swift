#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// LMDB 0.9's on-disk format, as far as the page verifier reads it (64-bit builds; see mdb.c's
/// `MDB_page`, `MDB_node`, `MDB_meta` and `MDB_db`). Every number is in the machine's byte
/// order, which on the platforms Larder runs on is little-endian.
enum PageLayout {
    /// The size of a page header: page number (8), padding (2), flags (2), lower and upper
    /// free-space bounds (2 + 2) or, on an overflow page, its page count (4).
    static let headerSize = 16
    /// The size of a node header: data size low and high halves (2 + 2; on a branch page they
    /// and the flags hold the child's page number), flags (2), key size (2).
    static let nodeHeaderSize = 8
    /// The size of an `MDB_db` record.
    static let databaseRecordSize = 48
    /// `mm_magic` of a meta page.
    static let magic: UInt32 = 0xBEEF_C0DE
    /// `mm_version` of LMDB 0.9's data format.
    static let dataVersion: UInt32 = 1
    /// The page number LMDB stores for "no page" (an empty tree's root).
    static let invalidPage = UInt64.max

    // Page flags (`mp_flags`).
    static let branchPage: UInt16 = 0x01
    static let leafPage: UInt16 = 0x02
    static let overflowPage: UInt16 = 0x04
    static let metaPage: UInt16 = 0x08
    static let dirtyPage: UInt16 = 0x10

    // Leaf node flags (`mn_flags`).
    static let bigData: UInt16 = 0x01
    static let subDatabase: UInt16 = 0x02
    static let duplicateData: UInt16 = 0x04

    // Database flags (`md_flags`) the verifier understands.
    static let integerKey: UInt16 = 0x08
    /// `MDB_REVERSEKEY`, `MDB_DUPSORT`, `MDB_DUPFIXED`, `MDB_INTEGERDUP`, `MDB_REVERSEDUP`:
    /// orders and layouts Larder never asks for, so a record carrying them is damaged.
    static let unsupportedFlags: UInt16 = 0x02 | 0x04 | 0x10 | 0x20 | 0x40

    /// An `MDB_db` record: a tree's root and the figures LMDB keeps about it.
    struct DatabaseRecord: Equatable {
        var flags: UInt16
        var depth: UInt16
        var branchPages: UInt64
        var leafPages: UInt64
        var overflowPages: UInt64
        var entries: UInt64
        var root: UInt64

        init(_ bytes: PageBytes, at offset: Int) {
            flags = bytes.uint16(at: offset + 4)
            depth = bytes.uint16(at: offset + 6)
            branchPages = bytes.uint64(at: offset + 8)
            leafPages = bytes.uint64(at: offset + 16)
            overflowPages = bytes.uint64(at: offset + 24)
            entries = bytes.uint64(at: offset + 32)
            root = bytes.uint64(at: offset + 40)
        }
    }

    /// A meta page: the page size (kept in the free database's padding), both trees' records,
    /// the last page in use and the transaction that wrote it.
    struct Meta {
        var pageNumber: UInt64
        var flags: UInt16
        var magic: UInt32
        var version: UInt32
        var pageSize: UInt32
        var freeDatabase: DatabaseRecord
        var mainDatabase: DatabaseRecord
        var lastPage: UInt64
        var transactionID: UInt64

        init(_ bytes: PageBytes) {
            pageNumber = bytes.uint64(at: 0)
            flags = bytes.uint16(at: 10)
            magic = bytes.uint32(at: 16)
            version = bytes.uint32(at: 20)
            pageSize = bytes.uint32(at: 40)
            freeDatabase = DatabaseRecord(bytes, at: 40)
            mainDatabase = DatabaseRecord(bytes, at: 88)
            lastPage = bytes.uint64(at: 136)
            transactionID = bytes.uint64(at: 144)
        }

        /// The size of the meta part of the page, header included.
        static let size = 152
        /// Where the magic number ends: a file this long can be told to be LMDB's.
        static let magicEnd = 20

        /// Whether LMDB takes this page for a meta page at all (its flag, magic number and
        /// format version; LMDB checks nothing else before it trusts the page).
        var carriesLMDBMarks: Bool {
            flags & PageLayout.metaPage != 0 && magic == PageLayout.magic && version == PageLayout.dataVersion
        }

        /// What is wrong with this meta page as page `number`, or `nil` when LMDB accepts it.
        func defect(asPage number: UInt64) -> String? {
            if flags & PageLayout.metaPage == 0 { return "it is not marked as a meta page (flags 0x\(String(flags, radix: 16)))" }
            if magic != PageLayout.magic { return "its magic number is 0x\(String(magic, radix: 16)), not 0xbeefc0de" }
            if version != PageLayout.dataVersion { return "its format version is \(version), not \(PageLayout.dataVersion)" }
            if pageNumber != number { return "it says it is page \(pageNumber)" }
            if !PageLayout.isPlausiblePageSize(Int(pageSize)) { return "its page size \(pageSize) is not a power of two from 512 to 65536" }
            return nil
        }
    }

    static func isPlausiblePageSize(_ size: Int) -> Bool {
        size >= 512 && size <= 65_536 && size & (size - 1) == 0
    }
}
