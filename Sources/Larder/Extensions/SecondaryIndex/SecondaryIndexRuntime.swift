/// The secondary index as the store runs it.
///
/// Storage: one plain database, `entries`, of keys `columns ‖ collection ‖ key` (one
/// ``TupleKey``) with empty values. No map from an object to its entry: when an object changes,
/// its old entry is derived again from the object's previous bytes, which is why `columns` must
/// be a pure function (store format 4 dropped the map format 3 kept).
final class SecondaryIndexRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: ExtensionRuntime {
    /// The kind's name in the store's records.
    static var kindName: String { "secondaryIndex" }
    static var partNames: [String] { ["entries"] }

    let name: String
    let definition: SecondaryIndex<Object, Metadata>
    let parts: ExtensionParts
    let collections: Set<ExactString>?

    init(name: String, definition: SecondaryIndex<Object, Metadata>, parts: ExtensionParts) {
        self.name = name
        self.definition = definition
        self.parts = parts
        self.collections = definition.collectionNames.map(Set.init(names:))
    }

    var kind: String { Self.kindName }
    var versionTag: String { definition.versionTag }
    var dependencies: [String] { [] }
    var readsMetadata: Bool { Metadata.self != NoMetadata.self }
    var derivesFromPreviousValues: Bool { true }

    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime {
        SecondaryIndexRuntime(name: name, definition: definition, parts: parts)
    }

    /// The index and columns of an entry key.
    static func split(entry: UnsafeRawBufferPointer) throws -> (YapDB.Index, TupleKey) {
        var components = try TupleKey(decoding: entry).components
        guard components.count >= 2, case .string(let key) = components.removeLast(), case .string(let collection) = components.removeLast() else {
            throw LarderError(.corruptValue, "a secondary index entry does not end with a collection and a key", operation: "secondaryIndex")
        }
        return (YapDB.Index(collection: collection, key: key), TupleKey(components))
    }

    /// The bytes of the entry of `index` with `columns`: those of `TupleKey(columns.components +
    /// [.string(collection), .string(key)])`, written straight into one buffer sized for them.
    static func entryBytes(_ columns: TupleKey, _ index: YapDB.Index) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(index.collection.utf8.count + index.key.utf8.count + 4 + 16 * columns.components.count)
        columns.encode(into: &bytes)
        TupleComponent.appendString(index.collection, to: &bytes)
        TupleComponent.appendString(index.key, to: &bytes)
        return bytes
    }

    /// The entry key of `index` with `columns`.
    private func entryKey(_ columns: TupleKey, _ index: YapDB.Index, maxKeySize: Int) throws -> [UInt8] {
        let bytes = Self.entryBytes(columns, index)
        guard bytes.count <= maxKeySize else {
            throw LarderError(.keyTooLong, "the index entry (columns, collection and key) takes \(bytes.count) bytes; the limit is \(maxKeySize)", operation: "secondaryIndex", index: index, extensionName: name)
        }
        return bytes
    }

    func apply(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        switch change {
        case .row(let row) where definition.columns != nil:
            // One entry at most per object: no array of entries is made.
            let new = try currentEntries(of: row, in: txn, one: ())
            let old = row.createdObject ? nil : try previousEntries(of: row.index, in: txn, one: ())
            guard old != new else { return }
            if let old { try removeEntry(old, of: row.index, in: txn) }
            try new?.withUnsafeBytes { try txn.lmdb.put(parts["entries"], key: $0, value: UnsafeRawBufferPointer(start: nil, count: 0)) }
        case .row(let row):
            let new = try currentEntries(of: row, in: txn)
            // A created object had no object before it, so no entry (every removal of an object
            // takes its entries with it).
            let old = row.createdObject ? [] : try previousEntries(of: row.index, in: txn)
            guard old != new else { return }
            for entry in old where !new.contains(entry) { try removeEntry(entry, of: row.index, in: txn) }
            for entry in new where !old.contains(entry) {
                try entry.withUnsafeBytes { try txn.lmdb.put(parts["entries"], key: $0, value: UnsafeRawBufferPointer(start: nil, count: 0)) }
            }
        case .removed(let index):
            for entry in try previousEntries(of: index, in: txn) { try removeEntry(entry, of: index, in: txn) }
        case .cleared(let collection):
            try removeEntries(inCollection: collection, in: txn)
        case .removedEverything:
            try parts.empty(in: txn.lmdb)
        }
    }

    /// The entries of `index` for `object` and `metadata`, in byte order, each once (none when
    /// the index leaves it out). Most indexes give one entry: the array holds it, no more.
    private func entries(of index: YapDB.Index, object: Object?, metadata: Metadata?, maxKeySize: Int) throws -> [[UInt8]] {
        guard let object else { return [] }
        if let columns = definition.columns {
            guard let columns = columns(index, object, metadata) else { return [] }
            return [try entryKey(columns, index, maxKeySize: maxKeySize)]
        }
        let all = definition.entries?(index, object, metadata) ?? []
        if all.count <= 1 { return try all.map { try entryKey($0, index, maxKeySize: maxKeySize) } }
        var keys = try all.map { try entryKey($0, index, maxKeySize: maxKeySize) }
        keys.sort { $0.lexicographicallyPrecedes($1) }
        var previous: [UInt8]?
        keys.removeAll { key in
            defer { previous = key }
            return key == previous
        }
        return keys
    }

    /// The entry of `index` for `object` and `metadata` of an index with one entry at most per
    /// object (built with `columns:`), `nil` when it leaves the object out.
    private func entry(of index: YapDB.Index, object: Object?, metadata: Metadata?, maxKeySize: Int) throws -> [UInt8]? {
        guard let object, let columns = definition.columns?(index, object, metadata) else { return nil }
        return try entryKey(columns, index, maxKeySize: maxKeySize)
    }

    /// ``currentEntries(of:in:)`` of an index with one entry at most per object.
    private func currentEntries(of row: ChangedRow, in txn: ReadWriteTransaction, one: Void) throws -> [UInt8]? {
        let work = txn.extensionWork
        guard let object = try work.value(Object.self, metadata: false, after: row, in: txn) else { return nil }
        let metadata = readsMetadata ? try work.value(Metadata.self, metadata: true, after: row, in: txn) : nil
        return try entry(of: row.index, object: object, metadata: metadata, maxKeySize: txn.maxKeySize)
    }

    /// ``previousEntries(of:in:)`` of an index with one entry at most per object.
    private func previousEntries(of index: YapDB.Index, in txn: ReadWriteTransaction, one: Void) throws -> [UInt8]? {
        let work = txn.extensionWork
        guard let object = try work.previousValue(Object.self, metadata: false, at: index, in: txn) else { return nil }
        let metadata = readsMetadata ? try work.previousValue(Metadata.self, metadata: true, at: index, in: txn) : nil
        return try entry(of: index, object: object, metadata: metadata, maxKeySize: txn.maxKeySize)
    }

    /// The entries of the object and metadata as `row` left them (the values it wrote, else the
    /// stored ones, which are the previous ones when the change left them as they were).
    private func currentEntries(of row: ChangedRow, in txn: ReadWriteTransaction) throws -> [[UInt8]] {
        let work = txn.extensionWork
        guard let object = try work.value(Object.self, metadata: false, after: row, in: txn) else { return [] }
        let metadata = readsMetadata ? try work.value(Metadata.self, metadata: true, after: row, in: txn) : nil
        return try entries(of: row.index, object: object, metadata: metadata, maxKeySize: txn.maxKeySize)
    }

    /// The entries `index` had before the change being applied, derived from its previous object
    /// and metadata.
    private func previousEntries(of index: YapDB.Index, in txn: ReadWriteTransaction) throws -> [[UInt8]] {
        let work = txn.extensionWork
        guard let object = try work.previousValue(Object.self, metadata: false, at: index, in: txn) else { return [] }
        let metadata = readsMetadata ? try work.previousValue(Metadata.self, metadata: true, at: index, in: txn) : nil
        return try entries(of: index, object: object, metadata: metadata, maxKeySize: txn.maxKeySize)
    }

    /// Deletes `entry`, which the previous values of `index` say is stored.
    /// - Throws: ``LarderError/Code/extensionInconsistent`` when it is not.
    private func removeEntry(_ entry: [UInt8], of index: YapDB.Index, in txn: ReadWriteTransaction) throws {
        guard try entry.withUnsafeBytes({ try txn.lmdb.delete(parts["entries"], key: $0) }) else {
            throw LarderError(.extensionInconsistent, "the index has no entry where its columns put the previous value: its columns closure gave another answer for the same value (it must be a pure function of its arguments), or its definition or its type's decoding changed without a new versionTag; register it with a new versionTag to rebuild it", operation: "secondaryIndex", index: index, extensionName: name)
        }
    }

    /// Deletes the entries of the objects of `collection`: all of them when the index reads that
    /// collection only, else those whose keys end with it (a scan of the index).
    /// - Complexity: O(n) for the n entries of the index when it reads other collections too.
    private func removeEntries(inCollection collection: String, in txn: ReadWriteTransaction) throws {
        if collections == [ExactString(collection)] { return try parts.empty(in: txn.lmdb) }
        var removed: [[UInt8]] = []
        try txn.lmdb.forEachEntry(in: parts["entries"]) { key, _ in
            if ExactString.bytesEqual(try Self.split(entry: key).0.collection, collection) { removed.append([UInt8](key)) }
            return true
        }
        for entry in removed { _ = try entry.withUnsafeBytes { try txn.lmdb.delete(parts["entries"], key: $0) } }
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let total = try txn.objectCount(in: collections)
        var done = 0
        progress(0, total)
        try txn.forEachObjectIndex(in: collections) { index in
            let object = try txn.extensionObject(Object.self, at: index, written: nil)
            let metadata = readsMetadata && object != nil ? try txn.extensionMetadata(Metadata.self, at: index, written: nil) : nil
            for entry in try entries(of: index, object: object, metadata: metadata, maxKeySize: txn.maxKeySize) {
                try entry.withUnsafeBytes { try txn.lmdb.put(parts["entries"], key: $0, value: UnsafeRawBufferPointer(start: nil, count: 0)) }
            }
            done += 1
            if done % 1024 == 0 { progress(done, total) }
        }
        progress(done, total)
    }

    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]? { nil }

    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]] {
        ["entries": try parts.entries(of: "entries", in: txn.lmdb)]
    }
}
