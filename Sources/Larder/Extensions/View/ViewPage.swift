/// One element of a followed view (``ViewObservation``): the items its sections show as of one
/// commit, and the row and section changes from the element before, in the form list user
/// interfaces apply as one batch update.
///
/// Apply the changes in this order (as `UITableView`'s `performBatchUpdates` and
/// `NSTableView`'s `beginUpdates` do): remove the rows that are deletes or moves at their `from`
/// positions (positions of the element before, highest first), remove the deleted sections, add
/// the inserted ones, insert the rows that are inserts or moves at their `to` positions (of this
/// element, lowest first), and refresh the updated rows. An element that ``isReset`` carries no
/// changes: show ``sections`` whole (the first element is one).
public struct ViewPage<Object: Sendable>: Sendable {
    /// One group of the view, as far as the range shows it.
    public struct Section: Sendable {
        /// The group.
        public let group: String
        /// How many items the whole group holds.
        public let numberOfItems: Int
        /// The positions in the group of ``items`` (the range, clamped to the group).
        public let positions: Range<Int>
        /// The items shown, in the view's order.
        public let items: [Item]

        /// The objects of the items shown, in the view's order.
        public var objects: [Object] { items.map(\.object) }
    }

    /// An item shown: its index and its object.
    public struct Item: Sendable {
        /// The item's collection and key.
        public let index: YapDB.Index
        /// The object, as the view's object type.
        public let object: Object
    }

    /// A row of the element: its section (an index into ``sections``) and its row within the
    /// items the section shows.
    public struct Position: Sendable, Hashable, CustomStringConvertible {
        /// The section, from 0.
        public let section: Int
        /// The row within the section's shown items, from 0.
        public let row: Int

        /// A position.
        public init(section: Int, row: Int) {
            self.section = section
            self.row = row
        }

        /// `[section, row]`.
        public var description: String { "[\(section), \(row)]" }
    }

    /// The change of one row between the element before and this one.
    public struct RowChange: Sendable, Hashable {
        /// Insert, delete, move or update (an update keeps its place; a move's object may have
        /// changed too: read it from ``ViewPage/sections``).
        public let kind: ViewChanges.RowChange.Kind
        /// The item.
        public let index: YapDB.Index
        /// Where it was in the element before (`nil` for an insert).
        public let from: Position?
        /// Where it is in this element (`nil` for a delete).
        public let to: Position?
    }

    /// A section that appeared or disappeared (only when the followed groups are every group of
    /// the view: named groups are always shown, empty or not).
    public struct SectionChange: Sendable, Hashable {
        /// Whether the section appeared or disappeared.
        public let kind: ViewChanges.SectionChange.Kind
        /// Its index: in the element before for a delete, in this one for an insert.
        public let section: Int
        /// Its group.
        public let group: String

        /// Whether the two are one change (groups compared by their UTF-8 bytes).
        public static func == (a: SectionChange, b: SectionChange) -> Bool {
            a.kind == b.kind && a.section == b.section && ExactString.bytesEqual(a.group, b.group)
        }

        /// Hashes what ``==(_:_:)`` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(section)
            ExactString.hashBytes(of: group, into: &hasher)
        }
    }

    /// The sections shown, in order.
    public let sections: [Section]
    /// The row changes from the element before, in no particular order (apply them as the
    /// type's documentation says). Empty when ``isReset``.
    public let rowChanges: [RowChange]
    /// The section changes from the element before. Empty when ``isReset``.
    public let sectionChanges: [SectionChange]
    /// Whether to show the element whole instead of applying changes: the first element, and
    /// one after the view was rebuilt, removed or registered again, or after the commits between
    /// the two elements could not all be known (the change log no longer had them).
    public let isReset: Bool
    /// The commit the element shows.
    public let commit: UInt64

    /// The indexes of each section's items, in order (a convenience for tests and simple lists).
    public var indexes: [[YapDB.Index]] { sections.map { $0.items.map(\.index) } }

    /// Every object shown, section after section, each in the view's order: what a list of one
    /// section, or one that ignores its sections, shows.
    ///
    /// ```swift
    /// for try await notes in db.observe(byTag, groups: ["home"], range: .first(50)).map(\.objects) {
    ///     show(notes)
    /// }
    /// ```
    public var objects: [Object] { sections.flatMap { $0.items.map(\.object) } }

    /// The item at `position` (a row change's `from` refers to the element before, its `to` to
    /// this one).
    /// - Precondition: `position` is within ``sections`` and the section's ``Section/items``.
    public subscript(position: Position) -> Item {
        sections[position.section].items[position.row]
    }
}
