extension ReadTransaction {
    /// Reads the view (or filtered view) `handle` in this transaction.
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when it is not registered in this
    ///   process with these types.
    public subscript<Object, Metadata>(handle: ViewHandle<Object, Metadata>) -> ViewReader<Object, Metadata> {
        get throws {
            checkActive()
            guard let runtime = (database.shared.extensions.runtime(named: handle.name) as? any ListKeeping<Object, Metadata>)?.list else {
                readRecorder?.extensionRead(handle.name, collections: [])  // its registration changes the answer
                throw LarderError(.extensionNotRegistered, "no view named \(handle.name) of these types is registered in this process", operation: "view", extensionName: handle.name)
            }
            readRecorder?.extensionRead(handle.name, collections: runtime.collections)
            return ViewReader(transaction: self, runtime: runtime)
        }
    }
}

/// Reads of a view (or filtered view) inside one transaction.
///
/// Positions count from 0 within a group. The view is a counted B+tree (each branch knows how
/// many items lie below it), so a position is found in O(log n) without visiting the items
/// before it. Each method states its cost under `- Complexity:`, counted in reads of stored
/// records (a tree node, a group's size, a value), each one LMDB lookup. Objects and metadata
/// come through the connection's cache.
public struct ViewReader<Object: Codable & Sendable, Metadata: Codable & Sendable> {
    let transaction: ReadTransaction
    let runtime: ListRuntime<Object, Metadata>

    /// The tree, with the changes of the write transaction this reads in (if it is one) applied.
    /// Every read here goes through the list's reads (this, `groups(in:)`, `count(ofGroup:in:)`,
    /// `location(of:in:)`), which apply those changes first.
    private func tree() throws -> CountedTree<LMDBTreeStorage> { try runtime.settledTree(in: transaction) }

    // MARK: Groups and counts

    /// The groups that hold at least one item, in UTF-8 byte order.
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(g) for the g groups of the view.
    public func groups() throws -> [String] {
        transaction.checkActive()
        return try runtime.groups(in: transaction)
    }

    /// The number of items in `group` (0 for a group the view does not have).
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(1): one read of the group's stored size; the items are not visited.
    public func numberOfItems(inGroup group: String) throws -> Int {
        transaction.checkActive()
        return try runtime.count(ofGroup: group, in: transaction)
    }

    /// The number of items in every group.
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(1): one read of the tree's header, which keeps the total count.
    public func numberOfItems() throws -> Int {
        transaction.checkActive()
        return try tree().count()
    }

    // MARK: Positions

    /// The rank of the first item of `group` in the whole list, and the group's size.
    private func span(of group: String) throws -> (start: Int, count: Int) {
        (try tree().rank(of: ListRuntime<Object, Metadata>.bounds(ofGroup: group).lower), try numberOfItems(inGroup: group))
    }

    /// The item at `position` in `group`, `nil` when there is none.
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(log n) for n items in the view.
    public func index(at position: Int, inGroup group: String) throws -> YapDB.Index? {
        try indexes(inGroup: group, positions: position..<(position + 1)).first
    }

    /// The items at `positions` in `group` (clamped to the group), in order: a page of a list.
    ///
    /// With `reversed`, the same positions' items, last first: positions still count from the
    /// group's start, so `positions: 0..<20, reversed: true` is the first twenty items backward.
    /// To page from the end, count positions from ``numberOfItems(inGroup:)``.
    ///
    /// ```swift
    /// let page = try txn[byDate].indexes(inGroup: "notes", positions: 20..<40, reversed: true)
    /// // == the forward page 20..<40, reversed
    /// ```
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(log n + k) for n items in the view and k items returned.
    public func indexes(inGroup group: String, positions: Range<Int>, reversed: Bool = false) throws -> [YapDB.Index] {
        transaction.checkActive()
        let (start, count) = try span(of: group)
        let clamped = positions.clamped(to: 0..<count)
        guard !clamped.isEmpty else { return [] }
        let first = reversed ? clamped.upperBound - 1 : clamped.lowerBound
        return try tree().keys(from: start + first, limit: clamped.count, reversed: reversed).map {
            try ListRuntime<Object, Metadata>.split(itemKey: $0).index
        }
    }

    /// Every item of `group`, in order.
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(log n + k) for n items in the view and the k items of `group`.
    public func indexes(inGroup group: String) throws -> [YapDB.Index] {
        try indexes(inGroup: group, positions: 0..<Int.max)
    }

    /// The first item of `group`.
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(log n) for n items in the view.
    public func first(inGroup group: String) throws -> YapDB.Index? {
        try index(at: 0, inGroup: group)
    }

    /// The last item of `group`.
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(log n) for n items in the view.
    public func last(inGroup group: String) throws -> YapDB.Index? {
        let count = try numberOfItems(inGroup: group)
        return count > 0 ? try index(at: count - 1, inGroup: group) : nil
    }

    /// Where `index` is in the view, `nil` when it is not in it. An object in several groups is
    /// at its place in the first of them by byte order (``locations(of:)`` lists them all).
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(log n) for n items in the view (a lookup of the item, then its rank).
    public func location(of index: YapDB.Index) throws -> ViewLocation? {
        transaction.checkActive()
        return try runtime.location(of: index, in: transaction)
    }

    /// Every place of `index` in the view: one per group it is in (a view built with `groups:`
    /// may put an object in several), in the groups' byte order; empty when it is not in it.
    /// - Throws: ``LarderError`` with ``LarderError/Code/corrupted`` or
    ///   ``LarderError/Code/corruptValue`` when the view's stored state is damaged, or with an LMDB
    ///   failure.
    /// - Complexity: O(g log n) for n items in the view and the g groups of the object.
    public func locations(of index: YapDB.Index) throws -> [ViewLocation] {
        transaction.checkActive()
        return try runtime.locations(of: index, in: transaction)
    }

    /// Calls `body` with each item of `group` and its position, forward or backward, from
    /// `positions` (default: all), until it sets `stop`.
    /// - Throws: what `body` throws; ``LarderError`` as ``indexes(inGroup:positions:reversed:)``.
    /// - Complexity: O(log n + k) for n items in the view and k items visited (one descent of
    ///   the tree per page of 256 items).
    public func enumerate(
        inGroup group: String, positions: Range<Int>? = nil, reversed: Bool = false,
        _ body: (_ index: YapDB.Index, _ position: Int, _ stop: inout Bool) throws -> Void
    ) throws {
        transaction.checkActive()
        let (start, count) = try span(of: group)
        let clamped = (positions ?? 0..<count).clamped(to: 0..<count)
        guard !clamped.isEmpty else { return }
        let pageSize = 256
        var done = 0
        while done < clamped.count {
            let take = min(pageSize, clamped.count - done)
            let first = reversed ? clamped.upperBound - 1 - done : clamped.lowerBound + done
            let keys = try tree().keys(from: start + first, limit: take, reversed: reversed)
            for (offset, key) in keys.enumerated() {
                var stop = false
                try body(try ListRuntime<Object, Metadata>.split(itemKey: key).index, reversed ? first - offset : first + offset, &stop)
                if stop { return }
            }
            done += take
        }
    }

    // MARK: Objects and metadata

    /// The object at `position` in `group`.
    /// - Throws: ``LarderError`` as ``indexes(inGroup:positions:reversed:)``, or with
    ///   ``LarderError/Code/decodingFailed`` when the stored object does not decode as `Object`.
    /// - Complexity: O(log n) for n items in the view, plus one read of the object (none on a
    ///   cache hit).
    public func object(at position: Int, inGroup group: String) throws -> Object? {
        guard let index = try index(at: position, inGroup: group) else { return nil }
        return try transaction.extensionObject(Object.self, at: index, written: nil)
    }

    /// The objects at `positions` in `group`, in order (last first when `reversed`, the positions
    /// still counted from the group's start, as ``indexes(inGroup:positions:reversed:)`` does),
    /// with their indexes.
    /// - Throws: as ``object(at:inGroup:)``.
    /// - Complexity: O(log n + k) for n items in the view and k objects returned, plus one read
    ///   of each object (none on a cache hit).
    public func objects(inGroup group: String, positions: Range<Int> = 0..<Int.max, reversed: Bool = false) throws -> [(index: YapDB.Index, object: Object)] {
        try indexes(inGroup: group, positions: positions, reversed: reversed).compactMap { index in
            try transaction.extensionObject(Object.self, at: index, written: nil).map { (index, $0) }
        }
    }

    /// The metadata at `position` in `group`, read as `M`.
    /// - Throws: ``LarderError`` as ``indexes(inGroup:positions:reversed:)``, or with
    ///   ``LarderError/Code/decodingFailed`` when the stored metadata does not decode as `M`.
    /// - Complexity: O(log n) for n items in the view, plus one read of the metadata.
    public func metadata<M: Codable>(at position: Int, inGroup group: String, as type: M.Type = M.self) throws -> M? {
        guard let index = try index(at: position, inGroup: group) else { return nil }
        return try transaction.metadata(forKey: index.key, inCollection: index.collection, archiver: transaction.metadataArchiver(M.self, in: index.collection))
    }
}
