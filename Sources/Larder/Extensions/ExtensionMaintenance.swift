import Synchronization

/// The extensions' part of the write path: hands each change to the extensions that read its
/// collection (dependencies first), keeps what they note during the transaction, and collects
/// their changes for the commit's changeset.
final class ExtensionMaintenance: WriteParticipant {
    /// The extensions this transaction keeps up to date, dependencies first.
    let runtimes: [any ExtensionRuntime]
    private let registry: ExtensionRegistry
    /// What each extension keeps while this write attempt runs (see ``ExtensionWriteState``),
    /// by the extension's first database: a verification rebuilds an extension under its name
    /// into other databases, whose state must stay apart.
    private var states: [DatabaseHandle: any ExtensionWriteState] = [:]
    /// The bytes at an index just before the transaction changed them (see ``willChange(_:at:in:)``),
    /// until the change is handed to the extensions.
    private var previous: (index: YapDB.Index, image: StoredImage)?
    /// The previous object and metadata of the change being handed out, decoded, by the type
    /// decoded and the half (`nil`: none, or not of that type): several extensions of one type
    /// decode them once. Rarely more than two, so a list.
    private var previousValues: [(type: ObjectIdentifier, metadata: Bool, value: Any?)] = []
    /// Whether some extension derives its entries again from previous values.
    private let keepsPreviousImages: Bool
    /// Whether some extension that keeps previous images reads metadata.
    private let keepsPreviousMetadata: Bool
    init(registry: ExtensionRegistry) {
        self.registry = registry
        self.runtimes = registry.all
        keepsPreviousImages = runtimes.contains { $0.derivesFromPreviousValues }
        keepsPreviousMetadata = runtimes.contains { $0.derivesFromPreviousValues && $0.readsMetadata }
    }

    private init(copying other: ExtensionMaintenance) {
        registry = other.registry
        runtimes = other.runtimes
        keepsPreviousImages = other.keepsPreviousImages
        keepsPreviousMetadata = other.keepsPreviousMetadata
        states = other.states.mapValues { $0.fork() }
    }

    func fork() -> ExtensionMaintenance {
        ExtensionMaintenance(copying: self)
    }

    // MARK: The extensions' states

    /// The state the extension whose databases are `parts` keeps in this write attempt, made by
    /// `make` the first time it is asked for.
    @inline(__always)
    func state<S: ExtensionWriteState>(of parts: ExtensionParts, _ make: () -> S) -> S {
        let key = parts.identity
        if let existing = states[key] { return existing as! S }  // only `make` of S makes the state under `key`
        let made = make()
        states[key] = made
        return made
    }

    /// The state the extension whose databases are `parts` keeps in this write attempt, `nil`
    /// when it has made none.
    func existingState<S: ExtensionWriteState>(of parts: ExtensionParts, as type: S.Type) -> S? {
        guard !states.isEmpty else { return nil }
        return states[parts.identity].map { $0 as! S }
    }

    /// Forgets the state of the extension whose databases are `parts` (they were emptied).
    func discardState(of parts: ExtensionParts) {
        states[parts.identity] = nil
    }

    // MARK: Previous values

    /// The bytes at `index` as they were before the change being handed to the extensions: those
    /// the write path showed ``willChange(_:at:in:)`` before changing them, or, for a change that
    /// did not change the bytes (a touch), the bytes stored now.
    /// - Throws: LMDB failures.
    func previousImage(of index: YapDB.Index, in txn: ReadWriteTransaction) throws -> StoredImage {
        if let previous, previous.index == index { return previous.image }
        return try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: txn.maxKeySize, operation: "extension") {
            try txn.storedImage(at: $0, metadata: keepsPreviousMetadata)
        }
    }

    /// The previous object (or metadata, `metadata`) at `index` as a `T`, decoded once per change
    /// and type; `nil` when there was none or it is not a `T`.
    /// - Throws: a damaged stored value (``LarderError/Code/corruptValue``), LMDB failures.
    func previousValue<T: Codable>(_ type: T.Type, metadata: Bool, at index: YapDB.Index, in txn: ReadWriteTransaction) throws -> T? {
        let type = ObjectIdentifier(T.self)
        for known in previousValues where known.type == type && known.metadata == metadata {
            return known.value.flatMap { $0 as? T }  // stored as a T under T's identifier
        }
        let image = try previousImage(of: index, in: txn)
        let decoded: T?
        do {
            decoded = try (metadata ? image.metadata : image.object).flatMap { try txn.extensionValue(T.self, stored: $0, metadata: metadata, at: index) }
        } catch var error as LarderError where error.recoverySuggestion == LarderError.Advice.damaged {
            // The extensions find what they derived from the value by deriving it again from
            // the old bytes, so a damaged value cannot be replaced under them.
            error.recoverySuggestion = LarderError.Advice.damagedUnderExtensions
            throw error
        }
        previousValues.append((type, metadata, decoded.map { $0 as Any }))
        return decoded
    }

    /// The object (or metadata, `metadata`) at `row`'s index as the change left it, as a `T`: the
    /// value it wrote, the stored one when it restored it, the previous one when it left it as it
    /// was (a touch, or the other half changed); `nil` when there is none or it is not a `T`.
    /// - Throws: as ``previousValue(_:metadata:at:in:)``.
    func value<T: Codable>(_ type: T.Type, metadata: Bool, after row: ChangedRow, in txn: ReadWriteTransaction) throws -> T? {
        switch metadata ? row.metadata : row.object {
        case nil, .touched?:
            return try previousValue(T.self, metadata: metadata, at: row.index, in: txn)
        default:
            return metadata ? try txn.extensionMetadata(T.self, at: row.index, written: row.writtenMetadata)
                : try txn.extensionObject(T.self, at: row.index, written: row.writtenObjectBox)
        }
    }

    // MARK: The write path

    var wantsChanges: Bool { !runtimes.isEmpty }

    var wantsBeforeImages: Bool { keepsPreviousImages }

    /// A bulk removal (a collection cleared, everything removed) needs no images: the extensions
    /// find their entries of the removed objects themselves.
    var wantsBeforeImagesOfBulkRemovals: Bool { false }

    func willChange(_ index: YapDB.Index, at storageKey: UnsafeRawBufferPointer, in txn: ReadWriteTransaction) throws {
        previous = (index, try txn.storedImage(at: storageKey, metadata: keepsPreviousMetadata))
    }

    func didChange(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        guard !runtimes.isEmpty else { return }
        defer {
            previous = nil
            if !previousValues.isEmpty { previousValues.removeAll(keepingCapacity: true) }
        }
        for runtime in runtimes {
            switch change {
            case .row(let row):
                guard runtime.receives(row.index), row.objectChanged || (row.metadataChanged && runtime.readsMetadata) else { continue }
            case .removed(let index):
                guard runtime.receives(index) else { continue }
            case .cleared(let collection):
                guard runtime.collections?.contains(ExactString(collection)) ?? true else { continue }
            case .removedEverything:
                break
            }
            do {
                try runtime.apply(change, in: txn)
            } catch var error as LarderError {
                if error.extensionName == nil { error.extensionName = runtime.name }
                throw error
            }
        }
    }

    func closureDidReturn(in txn: ReadWriteTransaction) throws {
        for runtime in runtimes { try runtime.willFinish(in: txn) }
    }

    func willCommit(_ changes: inout Changeset, in txn: ReadWriteTransaction) throws {
        for runtime in runtimes {
            if let payload = try runtime.finish(in: txn) { changes.recordExtensionChanges(payload, named: runtime.name) }
        }
        guard !changes.isEmpty else { return }
        try markUnregisteredExtensionsStale(after: changes, in: txn.lmdb)
    }

    /// Marks stale the extensions recorded in the store that this process has not registered
    /// and whose collections `changes` touch: their next registration rebuilds them.
    private func markUnregisteredExtensionsStale(after changes: Changeset, in lmdb: LMDBTransaction) throws {
        for name in try ExtensionRecord.names(in: lmdb) where registry.runtime(named: name) == nil {
            guard var record = try ExtensionRecord.read(name, in: lmdb), !record.stale else { continue }
            let changed = changes.changedCollectionNames
            let touched = changes.removedEverything
                || record.collections.map { !changed.isDisjoint(with: $0.lazy.map { ExactString($0) }) } ?? !changed.isEmpty
            guard touched else { continue }
            record.stale = true
            try record.write(name, in: lmdb)
        }
    }
}

extension ReadWriteTransaction {
    /// The extensions' part of this transaction's write path (first among the participants
    /// when the store has extensions; joined here otherwise, by a write that registers the
    /// first).
    var extensionWork: ExtensionMaintenance {
        participant(ExtensionMaintenance.self, joiningAt: .derivedState) {
            ExtensionMaintenance(registry: database.shared.extensions)
        }
    }
}

extension StoreShared {
    /// The extensions registered on this store in this process. Made by the first use, which
    /// adds the extensions' participant to every later write transaction.
    var extensions: ExtensionRegistry {
        feature(ExtensionRegistry.self) {
            let registry = ExtensionRegistry()
            addParticipant(rank: .derivedState) { ExtensionMaintenance(registry: registry) }
            return registry
        }
    }
}

extension ChangedRow {
    /// Whether the object changed (written, touched or put back).
    var objectChanged: Bool { object != nil }
    /// Whether the metadata changed.
    var metadataChanged: Bool { metadata != nil }
    /// The metadata written, when the change wrote it; `.some(nil)` when it removed it.
    var writtenMetadata: CachedValueBox?? {
        switch metadata {
        case .written?: return .some(metadataBox)
        case .removed?: return .some(nil)
        default: return nil
        }
    }
}
