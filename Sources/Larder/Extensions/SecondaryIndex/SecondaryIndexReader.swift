extension ReadTransaction {
    /// Reads the secondary index `handle` in this transaction.
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when it is not registered in this process.
    public subscript<Object, Metadata>(handle: SecondaryIndexHandle<Object, Metadata>) -> SecondaryIndexReader<Object, Metadata> {
        get throws {
            SecondaryIndexReader(transaction: self, runtime: try extensionRuntime(named: handle.name, as: SecondaryIndexRuntime<Object, Metadata>.self))
        }
    }
}

/// Queries of a secondary index inside one transaction (see ``SecondaryIndex``).
///
/// Each query is a range scan of the index's LMDB database: O(log n) to find the first entry,
/// then O(1) per entry visited. Each method states its cost under `- Complexity:`.
public struct SecondaryIndexReader<Object: Codable & Sendable, Metadata: Codable & Sendable> {
    let transaction: ReadTransaction
    let runtime: SecondaryIndexRuntime<Object, Metadata>

    /// Calls `body` with each matching entry's index and columns, in order, until it sets `stop`.
    /// - Throws: what `body` throws; ``LarderError`` with ``LarderError/Code/corruptValue`` when a
    ///   stored entry is damaged, or with an LMDB failure.
    /// - Complexity: O(log n + k) for n entries in the index and k entries visited (until `stop`).
    public func enumerate(
        matching query: IndexQuery = .all, order: IndexOrder = .ascending,
        _ body: (_ index: YapDB.Index, _ columns: TupleKey, _ stop: inout Bool) throws -> Void
    ) throws {
        transaction.checkActive()
        try transaction.lmdb.forEachEntry(in: runtime.parts["entries"], from: query.lower, to: query.upper, reversed: order == .descending) { key, _ in
            let (index, columns) = try SecondaryIndexRuntime<Object, Metadata>.split(entry: key)
            var stop = false
            try body(index, columns, &stop)
            return !stop
        }
    }

    /// The indexes of the matching entries, in order, at most `limit`. An object with several
    /// entries that match (an index built with `entries:`) is listed once, at its first.
    /// - Throws: ``LarderError`` as ``enumerate(matching:order:_:)``.
    /// - Complexity: O(log n + k) for n entries in the index and k indexes returned.
    public func indexes(matching query: IndexQuery = .all, order: IndexOrder = .ascending, limit: Int? = nil) throws -> [YapDB.Index] {
        var found: [YapDB.Index] = []
        guard limit.map({ $0 > 0 }) ?? true else { return found }
        var seen: Set<YapDB.Index>? = runtime.definition.hasSeveralEntries ? [] : nil
        try enumerate(matching: query, order: order) { index, _, stop in
            if seen != nil, !seen!.insert(index).inserted { return }
            found.append(index)
            if let limit, found.count >= limit { stop = true }
        }
        return found
    }

    /// The matching objects, decoded, in order, at most `limit`.
    /// - Throws: ``LarderError`` as ``enumerate(matching:order:_:)``, or with
    ///   ``LarderError/Code/decodingFailed`` when a stored object does not decode as `Object`.
    /// - Complexity: O(log n + k) for n entries in the index and k objects returned, plus one
    ///   read of each object (none on a cache hit).
    public func objects(matching query: IndexQuery = .all, order: IndexOrder = .ascending, limit: Int? = nil) throws -> [(index: YapDB.Index, object: Object)] {
        try indexes(matching: query, order: order, limit: limit).compactMap { index in
            try transaction.extensionObject(Object.self, at: index, written: nil).map { (index, $0) }
        }
    }

    /// How many entries match (an object of an index built with `entries:` counts once per entry
    /// that matches).
    /// - Throws: ``LarderError`` with an LMDB failure.
    /// - Complexity: O(log n + k) for n entries in the index and the k entries that match: it
    ///   visits each one (the index keeps no counts).
    public func count(matching query: IndexQuery = .all) throws -> Int {
        var count = 0
        try transaction.lmdb.forEachEntry(in: runtime.parts["entries"], from: query.lower, to: query.upper) { _, _ in
            count += 1
            return true
        }
        return count
    }
}
