/// The secondary index as the store runs it.
final class SecondaryIndexRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: ExtensionRuntime {
    static var kindName: String { ExtensionKind.secondaryIndex }
    static var partNames: [String] { ["entries", "map"] }

    let name: String
    let definition: SecondaryIndex<Object, Metadata>
    let parts: ExtensionParts

    init(name: String, definition: SecondaryIndex<Object, Metadata>, parts: ExtensionParts) {
        self.name = name
        self.definition = definition
        self.parts = parts
    }

    var kind: String { Self.kindName }
    var versionTag: String { definition.versionTag }
    var collections: Set<String>? { definition.collections }
    var dependencies: [String] { [] }
    var readsMetadata: Bool { Metadata.self != NoMetadata.self }

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
        case .row(let row):
            try update(row.index, in: txn, writtenObject: row.writtenObjectBox, writtenMetadata: row.metadataChanged ? row.writtenMetadata : nil,
                       created: row.createdObject)
        case .removed(let index):
            try remove(index, in: txn)
        case .cleared(let collection):
            try txn.lmdb.removeAll(in: parts["map"], withPrefix: StorageKey.prefix(of: collection)) { entry in
                _ = try txn.lmdb.delete(parts["entries"], key: entry)
            }
        case .removedEverything:
            try parts.empty(in: txn.lmdb)
        }
    }

    /// Puts the entry of `index` as its object and metadata say now. `created`: the write just
    /// created the object, so it has no entry yet (every removal takes the entry with it) and
    /// the map is not read.
    private func update(_ index: YapDB.Index, in txn: ReadWriteTransaction, writtenObject: CachedValueBox?, writtenMetadata: CachedValueBox??,
                        created: Bool = false) throws {
        var newEntry: [UInt8]?
        if let object = try txn.extensionObject(Object.self, at: index, written: writtenObject) {
            let metadata = readsMetadata ? try txn.extensionMetadata(Metadata.self, at: index, written: writtenMetadata) : nil
            if let columns = definition.columns(index, object, metadata) {
                newEntry = try entryKey(columns, index, maxKeySize: txn.maxKeySize)
            }
        }
        try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: txn.maxKeySize, operation: "secondaryIndex") { storageKey in
            let old = created ? nil : try txn.lmdb.get(parts["map"], key: storageKey).map { [UInt8]($0) }
            guard old != newEntry else { return }
            if let old { _ = try old.withUnsafeBytes { try txn.lmdb.delete(parts["entries"], key: $0) } }
            if let newEntry {
                try newEntry.withUnsafeBytes { entry in
                    try txn.lmdb.put(parts["entries"], key: entry, value: UnsafeRawBufferPointer(start: nil, count: 0))
                    try txn.lmdb.put(parts["map"], key: storageKey, value: entry)
                }
            } else {
                _ = try txn.lmdb.delete(parts["map"], key: storageKey)
            }
        }
    }

    private func remove(_ index: YapDB.Index, in txn: ReadWriteTransaction) throws {
        try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: txn.maxKeySize, operation: "secondaryIndex") { storageKey in
            guard let old = try txn.lmdb.get(parts["map"], key: storageKey).map({ [UInt8]($0) }) else { return }
            _ = try old.withUnsafeBytes { try txn.lmdb.delete(parts["entries"], key: $0) }
            _ = try txn.lmdb.delete(parts["map"], key: storageKey)
        }
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let total = try txn.objectCount(in: collections)
        var done = 0
        progress(0, total)
        try txn.forEachObjectIndex(in: collections) { index in
            try update(index, in: txn, writtenObject: nil, writtenMetadata: nil)
            done += 1
            if done % 1024 == 0 { progress(done, total) }
        }
        progress(done, total)
    }

    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]? { nil }

    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]] {
        ["entries": try parts.entries(of: "entries", in: txn.lmdb), "map": try parts.entries(of: "map", in: txn.lmdb)]
    }
}
