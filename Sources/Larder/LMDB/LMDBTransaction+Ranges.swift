/// Walks and removals over key ranges: the one cursor vocabulary of the layers above. Keys are
/// compared byte-wise (LMDB's default comparator, the only one Larder uses), and a range is
/// half-open: `lower` is in it, `upper` is not.
///
/// Entries handed to a closure are lent from the map, valid only inside that call. A closure
/// must not write to the database it walks; removals happen here, seeking afresh after each
/// delete, because a cursor stepped across its own deletions can skip entries.
extension LMDBTransaction {
    /// An entry's key and value, lent from the map.
    typealias EntryBody = (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool

    /// Calls `body` with each entry of `database` whose key lies in [`lower`, `upper`) (`upper`
    /// `nil`: no upper bound), in key order or, with `reversed`, backwards, until `body` returns
    /// `false`.
    /// - Complexity: O(log n) to find the start, then O(1) per entry visited.
    @inline(__always)
    func forEachEntry(
        in database: DatabaseHandle, from lower: [UInt8] = [], to upper: [UInt8]? = nil, reversed: Bool = false,
        _ body: EntryBody
    ) throws {
        try withCursor(database) { cursor in
            if reversed {
                var entry: Cursor.Entry?
                if let upper {
                    entry = try upper.withUnsafeBytes { try cursor.seek(atLeast: $0) } != nil ? try cursor.previous() : try cursor.last()
                } else {
                    entry = try cursor.last()
                }
                while let (key, value) = entry, !key.lexicographicallyPrecedes(lower) {
                    guard try body(key, value) else { return }
                    entry = try cursor.previous()
                }
            } else {
                var entry = lower.isEmpty ? try cursor.first() : try lower.withUnsafeBytes { try cursor.seek(atLeast: $0) }
                while let (key, value) = entry, upper.map({ key.lexicographicallyPrecedes($0) }) ?? true {
                    guard try body(key, value) else { return }
                    entry = try cursor.next()
                }
            }
        }
    }

    /// Calls `body` with each entry of `database` whose key starts with `prefix`, forwards or
    /// backwards, until `body` returns `false`.
    /// - Complexity: O(log n) to find the start, then O(1) per entry visited.
    func forEachEntry(in database: DatabaseHandle, withPrefix prefix: [UInt8], reversed: Bool = false, _ body: EntryBody) throws {
        try forEachEntry(in: database, from: prefix, to: Self.keyAfterPrefix(prefix), reversed: reversed, body)
    }

    /// The first key of `database`, copied; `nil` when it is empty.
    func firstKey(in database: DatabaseHandle) throws -> [UInt8]? {
        var found: [UInt8]?
        try forEachEntry(in: database) { key, _ in
            found = [UInt8](key)
            return false
        }
        return found
    }

    /// The last key of `database`, copied; `nil` when it is empty.
    func lastKey(in database: DatabaseHandle) throws -> [UInt8]? {
        var found: [UInt8]?
        try forEachEntry(in: database, reversed: true) { key, _ in
            found = [UInt8](key)
            return false
        }
        return found
    }

    /// Removes every entry of `database` whose key starts with `prefix`, calling `each` with its
    /// value first; returns how many it removed.
    /// - Complexity: O(log n) per entry removed.
    @discardableResult
    func removeAll(
        in database: DatabaseHandle, withPrefix prefix: [UInt8], _ each: (_ value: UnsafeRawBufferPointer) throws -> Void = { _ in }
    ) throws -> Int {
        var removed = 0
        try withCursor(database) { cursor in
            while let (key, value) = try prefix.withUnsafeBytes({ try cursor.seek(atLeast: $0) }), key.starts(with: prefix) {
                try each(value)
                try cursor.deleteCurrent()
                removed += 1
            }
        }
        return removed
    }

    /// Removes entries from the start of `database` for as long as `predicate` holds for the
    /// first key; returns how many it removed.
    /// - Complexity: O(log n) per entry removed.
    @discardableResult
    func removeLeading(in database: DatabaseHandle, while predicate: (_ key: UnsafeRawBufferPointer) throws -> Bool) throws -> Int {
        var removed = 0
        try withCursor(database) { cursor in
            while let (key, _) = try cursor.first(), try predicate(key) {
                try cursor.deleteCurrent()
                removed += 1
            }
        }
        return removed
    }

    /// The smallest key greater than every key that starts with `prefix`, or `nil` when there is
    /// none (`prefix` is empty or all 0xFF).
    static func keyAfterPrefix(_ prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}
