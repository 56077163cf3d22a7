/// The spatial index as the store runs it: an R-tree of the objects' boxes (`nodes`, see
/// `SpatialTree`) and each indexed object's box by its object key (`boxes`), so that a change
/// finds the entry to move without decoding the object's previous value.
final class SpatialIndexRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: ExtensionRuntime {
    /// The kind's name in the store's records.
    static var kindName: String { "spatialIndex" }
    static var partNames: [String] { ["nodes", "boxes"] }

    let name: String
    let definition: SpatialIndex<Object, Metadata>
    let parts: ExtensionParts
    let collections: Set<ExactString>?

    init(name: String, definition: SpatialIndex<Object, Metadata>, parts: ExtensionParts) {
        self.name = name
        self.definition = definition
        self.parts = parts
        self.collections = definition.collections.map(Set.init(names:))
    }

    var kind: String { Self.kindName }
    var versionTag: String { definition.versionTag }
    var dependencies: [String] { [] }
    var readsMetadata: Bool { Metadata.self != NoMetadata.self }

    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime {
        SpatialIndexRuntime(name: name, definition: definition, parts: parts)
    }

    func tree(_ lmdb: LMDBTransaction) -> SpatialTree { SpatialTree(lmdb: lmdb, nodes: parts["nodes"]) }

    // MARK: Object keys and boxes

    /// The bytes that name `index` in the tree and in `boxes`: the collection, a NUL (which no
    /// collection holds), the key.
    static func objectKey(_ index: YapDB.Index) -> [UInt8] {
        var bytes = Array(index.collection.utf8)
        bytes.append(0)
        bytes += index.key.utf8
        return bytes
    }

    /// The index an object key names.
    static func index(ofObjectKey bytes: [UInt8]) throws -> YapDB.Index {
        guard let separator = bytes.firstIndex(of: 0) else {
            throw LarderError(.corrupted, "a spatial index entry does not name a collection and a key", operation: "spatialIndex")
        }
        return YapDB.Index(collection: String(decoding: bytes[..<separator], as: UTF8.self),
                           key: String(decoding: bytes[(separator + 1)...], as: UTF8.self))
    }

    static func boxBytes(_ box: SpatialBox) -> [UInt8] {
        var bytes: [UInt8] = []
        for edge in [box.minX, box.minY, box.maxX, box.maxY] { withUnsafeBytes(of: edge.bitPattern.littleEndian) { bytes += $0 } }
        return bytes
    }

    static func box(fromBytes bytes: UnsafeRawBufferPointer) throws -> SpatialBox {
        guard bytes.count == 32 else { throw LarderError(.corrupted, "a spatial index box is damaged", operation: "spatialIndex") }
        func edge(_ n: Int) -> Double { Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * n, as: UInt64.self))) }
        return SpatialBox(minX: edge(0), minY: edge(1), maxX: edge(2), maxY: edge(3))
    }

    /// The box the index keeps for the object `key`, `nil` when it keeps none.
    func storedBox(_ key: [UInt8], in lmdb: LMDBTransaction) throws -> SpatialBox? {
        try key.withUnsafeBytes { try lmdb.get(parts["boxes"], key: $0) }.map { try Self.box(fromBytes: $0) }
    }

    /// The box of `object` at `index`, checked.
    private func box(of index: YapDB.Index, object: Object?, metadata: Metadata?) throws -> SpatialBox? {
        guard let object, let box = definition.box(index, object, metadata) else { return nil }
        guard box.isValid else {
            throw LarderError(.encodingFailed, "the spatial index's box \(box) is not finite, or its minimum passes its maximum", operation: "spatialIndex", index: index, extensionName: name)
        }
        return box
    }

    // MARK: Changes

    func apply(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        switch change {
        case .row(let row):
            let work = txn.extensionWork
            let object = try work.value(Object.self, metadata: false, after: row, in: txn)
            let metadata = readsMetadata && object != nil ? try work.value(Metadata.self, metadata: true, after: row, in: txn) : nil
            try place(row.index, at: try box(of: row.index, object: object, metadata: metadata), in: txn.lmdb)
        case .removed(let index):
            try place(index, at: nil, in: txn.lmdb)
        case .cleared(let collection):
            if collections == [ExactString(collection)] { return try parts.empty(in: txn.lmdb) }
            var prefix = Array(collection.utf8)
            prefix.append(0)
            var keys: [[UInt8]] = []
            try txn.lmdb.forEachEntry(in: parts["boxes"], withPrefix: prefix) { key, _ in
                keys.append([UInt8](key))
                return true
            }
            for key in keys { try place(key, at: nil, in: txn.lmdb) }
        case .removedEverything:
            try parts.empty(in: txn.lmdb)
        }
    }

    /// Moves the object `index` to `box` (`nil`: out of the index).
    private func place(_ index: YapDB.Index, at box: SpatialBox?, in lmdb: LMDBTransaction) throws {
        let key = Self.objectKey(index)
        guard key.count <= lmdb.environment.maxKeySize else {
            // Such a key cannot be stored, so it was never indexed.
            if box == nil { return }
            throw LarderError(.keyTooLong, "the spatial index entry (collection and key) takes \(key.count) bytes; the limit is \(lmdb.environment.maxKeySize)", operation: "spatialIndex", index: index, extensionName: name)
        }
        try place(key, at: box, in: lmdb)
    }

    private func place(_ key: [UInt8], at box: SpatialBox?, in lmdb: LMDBTransaction) throws {
        let old = try storedBox(key, in: lmdb)
        guard old != box else { return }
        let tree = tree(lmdb)
        if let old {
            guard try tree.remove(old, key) else {
                throw LarderError(.extensionInconsistent, "the spatial index's tree has no entry for a box it records; register it with a new versionTag to rebuild it", operation: "spatialIndex", extensionName: name)
            }
            _ = try key.withUnsafeBytes { try lmdb.delete(parts["boxes"], key: $0) }
        }
        if let box {
            try tree.insert(box, key)
            try key.withUnsafeBytes { key in try Self.boxBytes(box).withUnsafeBytes { try lmdb.put(parts["boxes"], key: key, value: $0) } }
        }
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let total = try txn.objectCount(in: collections)
        var done = 0
        progress(0, total)
        try txn.forEachObjectIndex(in: collections) { index in
            let object = try txn.extensionObject(Object.self, at: index, written: nil)
            let metadata = readsMetadata && object != nil ? try txn.extensionMetadata(Metadata.self, at: index, written: nil) : nil
            if let box = try box(of: index, object: object, metadata: metadata) { try place(index, at: box, in: txn.lmdb) }
            done += 1
            if done % 1024 == 0 { progress(done, total) }
        }
        progress(done, total)
    }

    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]? { nil }

    /// The recorded boxes, and the tree's leaf entries in key order (the tree's shape depends on
    /// the order of the writes; what it holds does not). Checks the tree's shape on the way.
    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]] {
        let leaves = try tree(txn.lmdb).checkedLeafEntries().map { box, key in key + [0xFF] + Self.boxBytes(box) }
        return ["boxes": try parts.entries(of: "boxes", in: txn.lmdb), "nodes": leaves.sorted { $0.lexicographicallyPrecedes($1) }]
    }
}
