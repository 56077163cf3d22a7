/// What one commit did to a view, in the form list user interfaces apply in one batch update.
///
/// Apply in this order, as `UITableView`/`NSTableView`-style batch updates do:
/// 1. remove the rows of ``rows`` that are ``RowChange/Kind-swift.enum/delete`` or
///    ``RowChange/Kind-swift.enum/move`` at their ``RowChange/from`` locations, highest position
///    first (positions before the commit);
/// 2. remove the groups of ``sections`` that are deleted;
/// 3. add the groups that are inserted;
/// 4. insert the rows that are inserts or moves at their ``RowChange/to`` locations, lowest
///    position first (positions after the commit);
/// 5. refresh the rows that are updates (at ``RowChange/to``).
///
/// A view that was rebuilt (a new version tag) reports ``isReset``: reload it whole.
public struct ViewChanges: Sendable, Hashable, Codable {
    /// A change of one item.
    public struct RowChange: Sendable, Hashable, Codable {
        /// What happened to the item: it appeared, disappeared, changed place (its sort key or
        /// group changed), or changed in place.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// The item entered the view: it has a ``RowChange/to`` location only.
            case insert
            /// The item left the view: it has a ``RowChange/from`` location only.
            case delete
            /// The item changed place (its group or sort key changed): both locations.
            case move
            /// The item's object changed but it kept its place: both locations.
            case update
        }

        /// What happened.
        public var kind: Kind
        /// The item.
        public var index: YapDB.Index
        /// Where it was before the commit (`nil` for an insert).
        public var from: ViewLocation?
        /// Where it is after the commit (`nil` for a delete).
        public var to: ViewLocation?
    }

    /// A group that appeared or disappeared.
    public struct SectionChange: Sendable, Hashable, Codable {
        /// Whether the group appeared or disappeared.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// The group appeared: its first item entered the view.
            case insert
            /// The group disappeared: its last item left the view.
            case delete
        }

        /// Whether the group appeared or disappeared.
        public var kind: Kind
        /// The group.
        public var group: String

        /// Whether the two are one change: the same kind, of groups with the same UTF-8 bytes.
        public static func == (a: SectionChange, b: SectionChange) -> Bool {
            a.kind == b.kind && ExactString.bytesEqual(a.group, b.group)
        }

        /// Hashes the kind and the group's bytes, as ``==(_:_:)`` compares them.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            ExactString.hashBytes(of: group, into: &hasher)
        }
    }

    /// Row changes, in no particular order (sort them as the steps above say).
    public var rows: [RowChange] = []
    /// Groups inserted or deleted.
    public var sections: [SectionChange] = []
    /// The view was rebuilt or removed: its changes are not itemized.
    public var isReset = false

    /// Changes with these rows and sections (or a reset).
    public init(rows: [RowChange] = [], sections: [SectionChange] = [], isReset: Bool = false) {
        self.rows = rows
        self.sections = sections
        self.isReset = isReset
    }
}

extension ViewHandle {
    /// The changes of this view in `changeset`, one per commit that changed it, in commit order.
    /// A reset changeset (or a rebuild of the view) gives one reset, and so do the commits of a
    /// slow observer's merged changeset whose itemized view changes grew past the observer's
    /// buffer limit (see "Observation" in the Changes guide): reload the view then.
    /// - Throws: ``LarderError/Code/corruptValue`` when a recorded change does not decode.
    /// - Complexity: O(c) for the c bytes of this view's recorded changes in `changeset`; the
    ///   store is not read.
    public func changes(in changeset: Changeset) throws -> [ViewChanges] {
        if changeset.isReset { return [ViewChanges(isReset: true)] }
        return try changeset.extensionChanges(named: name).map { payload in
            if payload == ExtensionPayload.rebuilt || payload == ExtensionPayload.removed || payload == ExtensionPayload.dropped { return ViewChanges(isReset: true) }
            do {
                return try MessagePackDecoder().decode(ViewChanges.self, from: payload)
            } catch {
                throw LarderError(.corruptValue, "the recorded changes of view \(name) do not decode", operation: "viewChanges", underlying: String(describing: error), extensionName: name)
            }
        }
    }

    /// The changes of this view in each of `changesets`, in order.
    /// - Throws: as ``changes(in:)-(Changeset)``.
    /// - Complexity: as ``changes(in:)-(Changeset)``, summed over `changesets`.
    public func changes(in changesets: some Sequence<Changeset>) throws -> [ViewChanges] {
        try changesets.flatMap { try changes(in: $0) }
    }
}
