/// One thing ``Database/checkStructure()`` found wrong with a store.
public struct StructureProblem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is, as a stable identifier (a struct, so new kinds never break a
    /// `switch`).
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The identifier, such as `"countMismatch"`.
        public let rawValue: String
        /// The kind with identifier `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The identifier.
        public var description: String { rawValue }

        /// A key of `objects` or `metadata` is not `collection ‖ 0x00 ‖ key` with a non-empty,
        /// UTF-8 key and collection.
        public static let badKey = Kind(rawValue: "badKey")
        /// A stored value is empty: it has no format byte.
        public static let emptyValue = Kind(rawValue: "emptyValue")
        /// A stored value's format byte is one Larder reserves but does not define
        /// (`0x00`, `0x04`–`0x3F`).
        public static let unknownFormat = Kind(rawValue: "unknownFormat")
        /// A MessagePack value is not exactly one well-formed value, or a JSON value is not UTF-8.
        public static let malformedValue = Kind(rawValue: "malformedValue")
        /// The count the store keeps for a collection (a record of the main database; of the
        /// `collections` database before store format 6) differs from the number of its
        /// objects, or a count record is malformed.
        public static let countMismatch = Kind(rawValue: "countMismatch")
        /// A metadata value has no object beside it.
        public static let orphanMetadata = Kind(rawValue: "orphanMetadata")
        /// The change log does not end at the last commit, has a gap, or holds an entry that does
        /// not decode.
        public static let changeLog = Kind(rawValue: "changeLog")
        /// The format version is missing or malformed.
        public static let formatVersion = Kind(rawValue: "formatVersion")
        /// An extension's record does not decode.
        public static let extensionRecord = Kind(rawValue: "extensionRecord")
        /// The undo history does not decode.
        public static let undoHistory = Kind(rawValue: "undoHistory")
        /// A page of the data file is damaged: a page number out of range or reached twice,
        /// wrong flags, node offsets or sizes outside the page, keys out of order, or a tree whose
        /// depth or counts differ from its record; or the file is shorter than its pages. LMDB's
        /// cursors are not run over a store with such a problem.
        public static let page = Kind(rawValue: "page")
        /// One or both meta pages (the two pages at the start of the data file that name the last
        /// commit) are damaged. LMDB refuses to open a store with a damaged meta page even when
        /// the other one is intact; the detail says which one is damaged.
        public static let metaPage = Kind(rawValue: "metaPage")
        /// A checksummed value (``Database/Configuration/checksumsValues``) does not match its
        /// checksum: its bytes were damaged after they were written. Reading it throws
        /// ``LarderError/Code/corrupted``.
        public static let checksumMismatch = Kind(rawValue: "checksumMismatch")
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// What is wrong, in words.
    public let detail: String
    /// The collection and key involved, when there is one.
    public let index: YapDB.Index?

    /// The kind, the detail and the index, on one line.
    public var description: String {
        guard let index else { return "\(kind): \(detail)" }
        return "\(kind): \(detail) [collection: \(index.collection), key: \(index.key)]"
    }
}
