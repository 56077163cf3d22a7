/// The full-text search as the store runs it: tokenizes each changed object's texts, before and
/// after the change, and edits the postings of the terms that differ (see ``FullTextStorage``).
///
/// Like views and indexes it keeps no list of an object's terms: the postings to remove are
/// found by tokenizing the object's previous texts again, which is why the texts closure must be
/// a pure function.
final class FullTextSearchRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: ExtensionRuntime {
    let name: String
    let definition: FullTextSearch<Object, Metadata>
    let parts: ExtensionParts
    let storage: FullTextStorage
    let collections: Set<ExactString>?

    init(name: String, definition: FullTextSearch<Object, Metadata>, parts: ExtensionParts) {
        self.name = name
        self.definition = definition
        self.parts = parts
        self.storage = FullTextStorage(name: name, parts: parts, columnCount: definition.columnNames.count, tokenizer: definition.tokenizer)
        self.collections = definition.collectionNames.map(Set.init(names:))
    }

    /// The kind's name in the store's records.
    static var kindName: String { "fullTextSearch" }
    var kind: String { Self.kindName }
    var versionTag: String { definition.versionTag }
    var dependencies: [String] { [] }
    var readsMetadata: Bool { Metadata.self != NoMetadata.self }
    var derivesFromPreviousValues: Bool { true }

    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime {
        FullTextSearchRuntime(name: name, definition: definition, parts: parts)
    }

    /// The texts of `object` at `index`, `nil` when it is not indexed.
    /// - Throws: ``LarderError/Code/invalidConfiguration`` when the closure returns a number of
    ///   texts other than the number of columns.
    func texts(of index: YapDB.Index, object: Object?, metadata: Metadata?) throws -> [String]? {
        guard let object, let texts = definition.texts(index, object, metadata) else { return nil }
        guard texts.count == definition.columnNames.count else {
            throw LarderError(.invalidConfiguration, "the texts closure of the full-text search \(name) returned \(texts.count) texts; it has \(definition.columnNames.count) columns (\(definition.columnNames.joined(separator: ", "))) and must return one text for each", operation: "fullTextSearch", index: index, extensionName: name)
        }
        return texts
    }

    /// The texts of the object and metadata as `row` left them.
    private func currentTexts(of row: ChangedRow, in txn: ReadWriteTransaction) throws -> [String]? {
        let work = txn.extensionWork
        guard let object = try work.value(Object.self, metadata: false, after: row, in: txn) else { return nil }
        let metadata = readsMetadata ? try work.value(Metadata.self, metadata: true, after: row, in: txn) : nil
        return try texts(of: row.index, object: object, metadata: metadata)
    }

    /// The texts `index` had before the change being applied, from its previous object and
    /// metadata.
    private func previousTexts(of index: YapDB.Index, in txn: ReadWriteTransaction) throws -> [String]? {
        let work = txn.extensionWork
        guard let object = try work.previousValue(Object.self, metadata: false, at: index, in: txn) else { return nil }
        let metadata = readsMetadata ? try work.previousValue(Metadata.self, metadata: true, at: index, in: txn) : nil
        return try texts(of: index, object: object, metadata: metadata)
    }

    func apply(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        switch change {
        case .row(let row):
            let new = try currentTexts(of: row, in: txn)
            // A created object had no object before it, so no document.
            let old = row.createdObject ? nil : try previousTexts(of: row.index, in: txn)
            guard old != new else { return }
            try storage.withPending(in: txn) { try storage.update(row.index, from: old, to: new, pending: &$0, in: txn) }
        case .removed(let index):
            guard let old = try previousTexts(of: index, in: txn) else { return }
            try storage.withPending(in: txn) { try storage.update(index, from: old, to: nil, pending: &$0, in: txn) }
        case .cleared(let collection):
            guard collections != [ExactString(collection)] else {
                storage.discardPending(in: txn)
                return try parts.empty(in: txn.lmdb)
            }
            try storage.removeDocuments(inCollection: collection, in: txn)
        case .removedEverything:
            storage.discardPending(in: txn)
            try parts.empty(in: txn.lmdb)
        }
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let total = try txn.objectCount(in: collections)
        var done = 0
        progress(0, total)
        // The parts are empty: nothing waiting from before counts (a verification's scratch
        // parts are other databases, so nothing waits for them).
        storage.discardPending(in: txn)
        var pending = FullTextPendingPostings()
        try txn.forEachObjectIndex(in: collections) { index in
            let object = try txn.extensionObject(Object.self, at: index, written: nil)
            let metadata = readsMetadata && object != nil ? try txn.extensionMetadata(Metadata.self, at: index, written: nil) : nil
            if let texts = try texts(of: index, object: object, metadata: metadata) {
                try storage.update(index, from: nil, to: texts, pending: &pending, in: txn)
            }
            done += 1
            if done % 1024 == 0 { progress(done, total) }
        }
        // A runtime being registered is not among the transaction's extensions yet: its commit
        // would not write what waits.
        try storage.flush(&pending, in: txn.lmdb)
        progress(done, total)
    }

    /// Writes the postings and statistics still waiting. Records nothing in the changeset: the
    /// changeset names the changed objects already.
    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]? {
        try storage.settle(txn)
        return nil
    }

    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]] {
        try storage.settle(txn)
        return try storage.logicalContents(in: txn.lmdb)
    }
}
