#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one commit (or a run of consecutive commits) changed: for each index, whether its object
/// and its metadata were inserted, updated or removed; which collections were cleared; whether
/// everything was removed; the commit information the writers attached; and the undos and redos
/// it made (``undoActions``).
///
/// Every write transaction that changes something produces one, numbered by its commit. Connections
/// use them to keep their caches coherent; ``Database/changes(inCollection:)`` delivers them to
/// observers; a pinned snapshot receives the ones it skipped when it moves forward
/// (``Connection/advanceSnapshot()``). Commits of other processes arrive the same way, read from the
/// store's change log.
///
/// ```swift
/// for await changes in db.changes() {
///     if changes.hasObjectChange(for: hammer.index) { refresh() }
/// }
/// ```
///
/// A changeset is a value: `Sendable`, and cheap to keep.
///
/// ## Names are bytes
/// Collections and keys are told apart by their UTF-8 bytes, as the store keeps them: two keys
/// that Swift's `String ==` calls equal (`"caf\u{E9}"` and `"cafe\u{301}"`) are two indexes,
/// each listed with its own change. The queries (``change(for:)``, ``hasChange(for:)``,
/// ``hasChange(inCollection:)``…) and ``changes`` compare bytes. The three that answer with a
/// `Set<String>` (``changedKeys(inCollection:)``, ``changedCollections``,
/// ``clearedCollections``) cannot hold two such names: there, one of them stands for both. Their
/// `…InByteOrder` twins (``changedKeysInByteOrder(inCollection:)``,
/// ``changedCollectionsInByteOrder``, ``clearedCollectionsInByteOrder``) list every name once
/// byte for byte, in the store's order.
///
/// ## Resets
/// When the changes themselves are no longer known (another process committed more than the change
/// log keeps, see ``Database/Configuration/changeLogLimit``), a changeset with ``isReset`` set stands
/// for them: every query answers "changed". Treat it as "reload everything". A reset has no
/// ``time``.
public struct Changeset: Sendable {
    /// How a commit changed an object or a metadata value.
    public enum Change: Sendable, Hashable {
        /// Stored where there was no value.
        case inserted
        /// Replaced, or touched (marked changed without being written).
        case updated
        /// Removed.
        case removed

        /// The net effect of `self` followed by `next`; `nil` when the two cancel out.
        func then(_ next: Change) -> Change? {
            switch (self, next) {
            case (.inserted, .removed): nil  // came and went
            case (.inserted, _): .inserted
            case (.removed, .inserted): .updated
            default: next
            }
        }
    }

    /// The change of one index: its object's and its metadata's (`nil` for a half that did not change).
    public struct IndexChange: Sendable, Hashable {
        /// How the object changed; `nil` when it did not.
        public internal(set) var object: Change?
        /// How the metadata changed; `nil` when it did not.
        public internal(set) var metadata: Change?
    }

    /// The commits this changeset covers: one commit, or several merged in order.
    public internal(set) var commits: ClosedRange<UInt64>
    /// Whether the changes are unknown (see "Resets" above): every query answers `true`.
    public internal(set) var isReset = false
    /// Whether every object of every collection was removed (before the changes listed, which came
    /// after).
    public internal(set) var removedEverything = false
    /// Collections whose objects were all removed (before the changes listed in them, which came
    /// after). A `Set<String>` keeps one of two collections whose names Swift calls equal:
    /// ``clearedCollectionsInByteOrder`` lists both.
    public var clearedCollections: Set<String> { Set(cleared.lazy.map(\.string)) }
    /// The cleared collections, told apart by their bytes.
    private(set) var cleared: Set<ExactString> = []
    /// Changes by collection, then by key.
    private(set) var entries: [ExactString: [ExactString: IndexChange]] = [:]
    /// What each extension recorded, by extension name, one payload per commit that had any.
    private(set) var extensionPayloads: [ExactString: [[UInt8]]] = [:]
    /// The commit information of each transaction that attached some, in commit order.
    private(set) var commitInfos: [[UInt8]] = []
    /// The undos and redos the commits made (``DatabaseAccess/undo()``, ``DatabaseAccess/redo()``),
    /// in the order they were made; empty for every other commit. A commit that undoes two steps
    /// lists both; a changeset merged from several commits lists those of each in commit order.
    /// `larder log` shows them; an observer can use them to tell an undo from a new edit.
    public internal(set) var undoActions: [UndoAction] = []
    /// When the commit was made: the system clock of the committing process, read once as its
    /// change log entry was written. A changeset merged from several commits has the time of the
    /// latest. `nil` for a reset, and for commits logged by a version of Larder that did not
    /// record times.
    ///
    /// Times come from the wall clock, so two commits can share a time, and a commit made after
    /// the clock was set back can carry an earlier time than the one before it; ``commit``
    /// numbers are the order of commits.
    public internal(set) var time: Date?

    /// The last commit this changeset covers.
    public var commit: UInt64 { commits.upperBound }

    init(commit: UInt64) {
        commits = commit...commit
    }

    /// A changeset that says "anything may have changed" up to `commit`.
    static func reset(after previous: UInt64, upTo commit: UInt64) -> Changeset {
        var changeset = Changeset(commit: commit)
        changeset.commits = min(previous + 1, commit)...commit
        changeset.isReset = true
        return changeset
    }

    /// How many indexes are listed.
    var entryCount: Int { entries.values.reduce(0) { $0 + $1.count } }

    /// An estimate of the heap memory this changeset holds, in bytes: what a subscription's
    /// buffer limit counts. Each dictionary entry, set member and array element is charged its
    /// bytes plus a fixed overhead for the hash table slot or array header it sits in.
    var footprint: Int {
        let slot = 48
        var bytes = 64
        for (collection, keys) in entries {
            bytes += slot + collection.string.utf8.count
            for key in keys.keys { bytes += slot + key.string.utf8.count }
        }
        for collection in cleared { bytes += slot + collection.string.utf8.count }
        for (name, payloads) in extensionPayloads {
            bytes += slot + name.string.utf8.count
            for payload in payloads { bytes += 32 + payload.count }
        }
        for info in commitInfos { bytes += 32 + info.count }
        for action in undoActions { bytes += 48 + action.stepName.utf8.count }
        return bytes
    }

    /// The payload that stands for an extension's changes once they were dropped to bound a slow
    /// observer's buffer (see ``droppingExtensionChanges()``): consumers reload what the extension
    /// shows, as after a rebuild. MessagePack for the string "dropped".
    static let droppedExtensionChanges: [UInt8] = [0xA7] + Array("dropped".utf8)

    /// Whether nothing at all is recorded (such a transaction produces no commit).
    var isEmpty: Bool {
        entries.isEmpty && cleared.isEmpty && !removedEverything && !isReset
            && extensionPayloads.isEmpty && commitInfos.isEmpty && undoActions.isEmpty
    }

    // MARK: Queries

    /// The change of the object and metadata at `index`, `nil` when neither is listed.
    ///
    /// Not listed does not mean unchanged when ``isReset``, ``removedEverything`` or
    /// ``clearedCollections`` says otherwise; the `has…` queries take those into account.
    public func change(for index: YapDB.Index) -> IndexChange? {
        entries[ExactString(index.collection)]?[ExactString(index.key)]
    }

    /// Every listed index change, by collection and key (see ``change(for:)``). Indexes compare
    /// their bytes, so two keys Swift calls equal are two entries.
    public var changes: [YapDB.Index: IndexChange] {
        var all: [YapDB.Index: IndexChange] = [:]
        all.reserveCapacity(entryCount)
        forEachChange { all[$0] = $1 }
        return all
    }

    func forEachChange(_ body: (YapDB.Index, IndexChange) -> Void) {
        for (collection, keys) in entries {
            for (key, change) in keys { body(YapDB.Index(collection: collection.string, key: key.string), change) }
        }
    }

    /// The keys listed as changed in `collection` (byte for byte). Of two keys that Swift's
    /// `String ==` calls equal, the set keeps one: ``changedKeysInByteOrder(inCollection:)``
    /// lists both.
    public func changedKeys(inCollection collection: String) -> Set<String> {
        Set((entries[ExactString(collection)] ?? [:]).keys.lazy.map(\.string))
    }

    /// The collections with listed changes or cleared. Of two collections whose names Swift's
    /// `String ==` calls equal, the set keeps one: ``changedCollectionsInByteOrder`` lists both.
    public var changedCollections: Set<String> {
        Set(changedCollectionNames.lazy.map(\.string))
    }

    /// The collections with listed changes or cleared, told apart by their bytes.
    var changedCollectionNames: Set<ExactString> {
        cleared.union(entries.keys)
    }

    /// The cleared collections, each once byte for byte, in UTF-8 byte order (the store's):
    /// two whose names Swift's `String ==` calls equal are both here, where
    /// ``clearedCollections`` keeps one.
    /// - Complexity: O(n log n) in the cleared collections.
    public var clearedCollectionsInByteOrder: [String] {
        cleared.sorted().map(\.string)
    }

    /// The keys listed as changed in `collection` (byte for byte), each once byte for byte, in
    /// UTF-8 byte order: two keys Swift's `String ==` calls equal are both here, where
    /// ``changedKeys(inCollection:)`` keeps one.
    /// - Complexity: O(n log n) in the collection's changed keys.
    public func changedKeysInByteOrder(inCollection collection: String) -> [String] {
        (entries[ExactString(collection)] ?? [:]).keys.sorted().map(\.string)
    }

    /// The collections with listed changes or cleared, each once byte for byte, in UTF-8 byte
    /// order: two whose names Swift's `String ==` calls equal are both here, where
    /// ``changedCollections`` keeps one.
    /// - Complexity: O(n log n) in the changed collections.
    public var changedCollectionsInByteOrder: [String] {
        changedCollectionNames.sorted().map(\.string)
    }

    /// Whether `collection`, byte for byte, was cleared.
    func isCleared(_ collection: ExactString) -> Bool {
        cleared.contains(collection)
    }

    /// Whether the whole of `collection` may have changed without its keys being listed.
    @inline(__always)
    func wholeCollectionChanged(_ collection: ExactString) -> Bool {
        isReset || removedEverything || (!cleared.isEmpty && cleared.contains(collection))
    }

    /// Whether the object or the metadata at `index` changed.
    public func hasChange(for index: YapDB.Index) -> Bool {
        let collection = ExactString(index.collection)
        return wholeCollectionChanged(collection) || entries[collection]?[ExactString(index.key)] != nil
    }

    /// Whether the object at `index` changed (inserted, updated, touched or removed).
    public func hasObjectChange(for index: YapDB.Index) -> Bool {
        let collection = ExactString(index.collection)
        return wholeCollectionChanged(collection) || entries[collection]?[ExactString(index.key)]?.object != nil
    }

    /// Whether the metadata at `index` changed. Removing an object removes its metadata.
    public func hasMetadataChange(for index: YapDB.Index) -> Bool {
        let collection = ExactString(index.collection)
        return wholeCollectionChanged(collection) || entries[collection]?[ExactString(index.key)]?.metadata != nil
    }

    /// Whether anything in `collection` (byte for byte) changed.
    public func hasChange(inCollection collection: String) -> Bool {
        let collection = ExactString(collection)
        return wholeCollectionChanged(collection) || entries[collection] != nil
    }

    /// Whether the object or metadata of any of `keys` in `collection` changed.
    public func hasChange(forAnyKeys keys: some Sequence<String>, inCollection collection: String) -> Bool {
        let collection = ExactString(collection)
        if wholeCollectionChanged(collection) { return true }
        guard let changed = entries[collection] else { return false }
        return keys.contains { changed[ExactString($0)] != nil }
    }

    /// Whether the object of any of `keys` in `collection` changed.
    public func hasObjectChange(forAnyKeys keys: some Sequence<String>, inCollection collection: String) -> Bool {
        let collection = ExactString(collection)
        if wholeCollectionChanged(collection) { return true }
        guard let changed = entries[collection] else { return false }
        return keys.contains { changed[ExactString($0)]?.object != nil }
    }

    /// Whether the metadata of any of `keys` in `collection` changed.
    public func hasMetadataChange(forAnyKeys keys: some Sequence<String>, inCollection collection: String) -> Bool {
        let collection = ExactString(collection)
        if wholeCollectionChanged(collection) { return true }
        guard let changed = entries[collection] else { return false }
        return keys.contains { changed[ExactString($0)]?.metadata != nil }
    }

    /// The commit information attached by ``ReadWriteTransaction/setCommitInfo(_:)``, decoded as
    /// `T`: one value per transaction that attached one, in commit order (a group commit or a
    /// merged changeset carries several).
    /// - Throws: ``LarderError/Code/decodingFailed`` when a value does not decode as `T`.
    public func commitInfo<T: Decodable>(as type: T.Type = T.self) throws -> [T] {
        let decoder = MessagePackDecoder()
        return try commitInfos.map { bytes in
            do {
                return try decoder.decode(T.self, from: bytes)
            } catch {
                throw LarderError(.decodingFailed, "the commit information does not decode as \(T.self)", operation: "commitInfo", underlying: String(describing: error))
            }
        }
    }

    /// The payloads an extension recorded, one per commit that had any, in commit order.
    func extensionChanges(named name: String) -> [[UInt8]] {
        extensionPayloads[ExactString(name)] ?? []
    }

    // MARK: Recording

    mutating func recordObject(_ index: YapDB.Index, _ change: Change) {
        recordObject(ExactString(index.collection), ExactString(index.key), change)
    }

    mutating func recordMetadata(_ index: YapDB.Index, _ change: Change) {
        recordMetadata(ExactString(index.collection), ExactString(index.key), change)
    }

    private mutating func recordObject(_ collection: ExactString, _ key: ExactString, _ change: Change) {
        let collectionEmptied = Self.modify(&entries[collection, default: [:]]) { keys in
            Self.record(object: change, at: key, in: &keys)
            return keys.isEmpty
        }
        if collectionEmptied { entries[collection] = nil }
    }

    private mutating func recordMetadata(_ collection: ExactString, _ key: ExactString, _ change: Change) {
        let collectionEmptied = Self.modify(&entries[collection, default: [:]]) { keys in
            Self.record(metadata: change, at: key, in: &keys)
            return keys.isEmpty
        }
        if collectionEmptied { entries[collection] = nil }
    }

    /// Nets `change` of the object at `key` into the changes of one collection, in place (one
    /// hash lookup, no copy of the dictionary); an entry that netted out to nothing is removed.
    static func record(object change: Change, at key: ExactString, in keys: inout [ExactString: IndexChange]) {
        let emptied = modify(&keys[key, default: IndexChange()]) { entry in
            entry.object = entry.object.map { $0.then(change) } ?? change
            return entry.object == nil && entry.metadata == nil
        }
        if emptied { keys[key] = nil }
    }

    /// As ``record(object:at:in:)``, for the metadata at `key`.
    static func record(metadata change: Change, at key: ExactString, in keys: inout [ExactString: IndexChange]) {
        let emptied = modify(&keys[key, default: IndexChange()]) { entry in
            entry.metadata = entry.metadata.map { $0.then(change) } ?? change
            return entry.object == nil && entry.metadata == nil
        }
        if emptied { keys[key] = nil }
    }

    /// Takes the changes listed for `collection` out of the changeset (``ChangeRecorder`` records
    /// into them directly); ``restoreKeys(_:of:)`` puts them back.
    mutating func takeKeys(of collection: String) -> [ExactString: IndexChange] {
        entries.removeValue(forKey: ExactString(collection)) ?? [:]
    }

    /// Puts back what ``takeKeys(of:)`` took, with the changes recorded since.
    mutating func restoreKeys(_ keys: [ExactString: IndexChange], of collection: String) {
        if !keys.isEmpty { entries[ExactString(collection)] = keys }
    }

    @inline(__always)
    private static func modify<T, R>(_ value: inout T, _ body: (inout T) -> R) -> R { body(&value) }

    mutating func recordCleared(_ collection: String) {
        recordCleared(ExactString(collection))
    }

    private mutating func recordCleared(_ collection: ExactString) {
        entries[collection] = nil
        cleared.insert(collection)
    }

    mutating func recordRemovedEverything() {
        entries.removeAll()
        cleared.removeAll()
        removedEverything = true
    }

    mutating func recordExtensionChanges(_ payload: [UInt8], named name: String) {
        extensionPayloads[ExactString(name), default: []].append(payload)
    }

    mutating func recordCommitInfo(_ bytes: [UInt8]) {
        commitInfos.append(bytes)
    }

    mutating func recordUndoAction(_ action: UndoAction) {
        undoActions.append(action)
    }

    /// Appends the changes of `later`, which came after `self`: the result covers both.
    ///
    /// A reset absorbs everything (its queries answer "changed" anyway), so merging into one
    /// keeps nothing but the commit range; an extension whose changes were dropped
    /// (``droppedExtensionChanges``) stays dropped.
    mutating func merge(_ later: Changeset) {
        commits = min(commits.lowerBound, later.commits.lowerBound)...max(commits.upperBound, later.commits.upperBound)
        isReset = isReset || later.isReset
        if isReset {
            becomeReset()
            return
        } else if let laterTime = later.time {
            time = max(time ?? laterTime, laterTime)
        }
        if later.removedEverything {
            entries.removeAll()
            cleared.removeAll()
            removedEverything = true
        }
        for collection in later.cleared { recordCleared(collection) }
        for (collection, keys) in later.entries {
            for (key, change) in keys {
                if let object = change.object { recordObject(collection, key, object) }
                if let metadata = change.metadata { recordMetadata(collection, key, metadata) }
            }
        }
        for (name, payloads) in later.extensionPayloads where extensionPayloads[name] != [Self.droppedExtensionChanges] {
            extensionPayloads[name, default: []].append(contentsOf: payloads)
        }
        commitInfos.append(contentsOf: later.commitInfos)
        undoActions.append(contentsOf: later.undoActions)
    }

    /// The same index changes without the extensions' changes, the commit information and the
    /// undo actions, for an observer that only asks which indexes changed (``ObjectObservation``).
    func indexChangesOnly() -> Changeset {
        guard !extensionPayloads.isEmpty || !commitInfos.isEmpty || !undoActions.isEmpty else { return self }
        var result = self
        result.extensionPayloads = [:]
        result.commitInfos = []
        result.undoActions = []
        return result
    }

    /// Turns this changeset into a reset covering the same commits (see "Resets" above).
    mutating func becomeReset() {
        let covered = commits
        self = Changeset(commit: covered.upperBound)
        commits = covered
        isReset = true
    }

    /// The same changes with every extension's itemized changes replaced by
    /// ``droppedExtensionChanges`` (an extension reports them as a reset); the index changes,
    /// clears and commit information stay.
    func droppingExtensionChanges() -> Changeset {
        var result = self
        for name in extensionPayloads.keys { result.extensionPayloads[name] = [Self.droppedExtensionChanges] }
        return result
    }

    /// The changesets merged, in order; `nil` for none.
    static func merged(_ changesets: some Sequence<Changeset>) -> Changeset? {
        var iterator = changesets.makeIterator()
        guard var result = iterator.next() else { return nil }
        while let next = iterator.next() { result.merge(next) }
        return result
    }

    // MARK: Change log form

    /// The version of the log entries this Larder writes: 2, with `bin` payloads.
    static let logEntryVersion = 2
    /// The version of the entries written by stores of format 1 and 2: payloads as integer arrays.
    static let integerArrayLogEntryVersion = 1

    private static func code(_ change: Change?) -> UInt8 {
        switch change {
        case nil: 0
        case .inserted: 1
        case .updated: 2
        case .removed: 3
        }
    }

    static func change(_ code: UInt8) throws(LarderError) -> Change? {
        switch code {
        case 0: nil
        case 1: .inserted
        case 2: .updated
        case 3: .removed
        default: throw LarderError(.corruptValue, "a change log entry has an unknown change code \(code)")
        }
    }

    /// Where ``logBytes(storedValues:)`` finds the values a commit leaves: the stored bytes
    /// (format byte and payload) of the object, or with `metadata` set the metadata, at
    /// (`collection`, `key`), or `nil` when there is none. The buffer is copied before the next call.
    typealias StoredValues = (_ collection: String, _ key: String, _ metadata: Bool) throws -> UnsafeRawBufferPointer?

    /// The bytes stored in the `log` database: the MessagePack map of ``LogForm``, written
    /// directly (every commit writes one, so it skips `Codable`'s per-value machinery), plus the
    /// `values` key when `storedValues` is given: for each listed index, `[object, metadata]`,
    /// each the stored bytes as `bin` when that half changed and has a value, else `nil`; indexes
    /// with neither are left out.
    func logBytes(storedValues: StoredValues? = nil) throws -> [UInt8] {
        var writer = MessagePackWriter()
        writer.bytes.reserveCapacity(96 + entryCount * (storedValues == nil ? 12 : 64))
        var fits = writer.writeMapHeader(8 + (time == nil ? 0 : 1) + (undoActions.isEmpty ? 0 : 1) + (storedValues == nil ? 0 : 1))
        fits = fits && writer.writeString("version")
        writer.writeInt(Int64(Self.logEntryVersion))
        fits = fits && writer.writeString("first")
        writer.writeUInt(commits.lowerBound)
        fits = fits && writer.writeString("last")
        writer.writeUInt(commits.upperBound)
        fits = fits && writer.writeString("everything")
        writer.writeBool(removedEverything)
        fits = fits && writer.writeString("cleared") && writer.writeArrayHeader(cleared.count)
        for collection in cleared.sorted() { fits = fits && writer.writeString(collection.string) }
        fits = fits && writer.writeString("changes") && writer.writeMapHeader(entries.count)
        for (collection, keys) in entries {
            fits = fits && writer.writeString(collection.string) && writer.writeMapHeader(keys.count)
            for (key, change) in keys {
                fits = fits && writer.writeString(key.string)
                writer.writeUInt(UInt64(Self.code(change.object) | Self.code(change.metadata) << 4))
            }
        }
        func writePayloads(_ payloads: [[UInt8]]) {
            fits = fits && writer.writeArrayHeader(payloads.count)
            for payload in payloads {
                fits = fits && payload.withUnsafeBytes { writer.writeBinary($0) }
            }
        }
        fits = fits && writer.writeString("extensions") && writer.writeMapHeader(extensionPayloads.count)
        for (name, payloads) in extensionPayloads {
            fits = fits && writer.writeString(name.string)
            writePayloads(payloads)
        }
        fits = fits && writer.writeString("info")
        writePayloads(commitInfos)
        if let time {
            fits = fits && writer.writeString("time")
            guard let (seconds, nanoseconds) = MessagePackTimestamp.components(of: time) else {
                throw LarderError(.encodingFailed, "the commit time is not a representable date", operation: "writeChangeLog")
            }
            writer.writeTimestamp(seconds: seconds, nanoseconds: nanoseconds)
        }
        // Only on the commits that undid or redid (entries of every other commit stay as they
        // were); a Larder that predates it skips the key.
        if !undoActions.isEmpty {
            fits = fits && writer.writeString("undo") && writer.writeArrayHeader(undoActions.count)
            for action in undoActions {
                fits = fits && writer.writeArrayHeader(3) && writer.writeString(action.kind.rawValue)
                writer.writeUInt(action.stepID)
                fits = fits && writer.writeString(action.stepName)
            }
        }
        if let storedValues {
            fits = fits && writer.writeString("values")
            let valuesFit = try writeValues(into: &writer, from: storedValues)
            fits = fits && valuesFit
        }
        guard fits else {
            throw LarderError(.encodingFailed, "the changeset is too large for one change log entry", operation: "writeChangeLog")
        }
        return writer.bytes
    }

    /// Writes the `values` map (see ``logBytes(storedValues:)``); `false` when something is too
    /// large for MessagePack.
    private func writeValues(into writer: inout MessagePackWriter, from storedValues: StoredValues) throws -> Bool {
        var fits = true
        // Counts are known only once the absent values are skipped: one-byte placeholders,
        // patched afterwards (they grow in place past 15 entries).
        let mapStart = writer.count
        writer.bytes.append(0x80)
        var collectionsWritten = 0
        for (collection, keys) in entries {
            let collectionStart = writer.count
            fits = fits && writer.writeString(collection.string)
            let keysStart = writer.count
            writer.bytes.append(0x80)
            var keysWritten = 0
            for (key, change) in keys {
                let keyStart = writer.count
                fits = fits && writer.writeString(key.string) && writer.writeArrayHeader(2)
                var present = false
                func writeHalf(_ change: Change?, metadata: Bool) throws {
                    // A removed half has nothing to look up.
                    if let change, change != .removed, let stored = try storedValues(collection.string, key.string, metadata) {
                        fits = fits && writer.writeBinary(stored)
                        present = true
                    } else {
                        writer.writeNil()
                    }
                }
                try writeHalf(change.object, metadata: false)
                try writeHalf(change.metadata, metadata: true)
                if present {
                    keysWritten += 1
                } else {
                    writer.bytes.removeSubrange(keyStart...)
                }
            }
            if keysWritten > 0 {
                fits = fits && writer.patchContainerHeader(at: keysStart, count: keysWritten, isMap: true)
                collectionsWritten += 1
            } else {
                writer.bytes.removeSubrange(collectionStart...)
            }
        }
        return fits && writer.patchContainerHeader(at: mapStart, count: collectionsWritten, isMap: true)
    }
}

extension Sequence where Element == Changeset {
    /// Whether the object or metadata at `index` changed in any of these changesets.
    public func hasChange(for index: YapDB.Index) -> Bool { contains { $0.hasChange(for: index) } }
    /// Whether the object at `index` changed in any of these changesets.
    public func hasObjectChange(for index: YapDB.Index) -> Bool { contains { $0.hasObjectChange(for: index) } }
    /// Whether the metadata at `index` changed in any of these changesets.
    public func hasMetadataChange(for index: YapDB.Index) -> Bool { contains { $0.hasMetadataChange(for: index) } }
    /// Whether anything in `collection` changed in any of these changesets.
    public func hasChange(inCollection collection: String) -> Bool { contains { $0.hasChange(inCollection: collection) } }

    /// Whether the object or metadata of any of `keys` in `collection` changed in any of these.
    public func hasChange(forAnyKeys keys: some Collection<String>, inCollection collection: String) -> Bool {
        contains { $0.hasChange(forAnyKeys: keys, inCollection: collection) }
    }

    /// Whether the object of any of `keys` in `collection` changed in any of these.
    public func hasObjectChange(forAnyKeys keys: some Collection<String>, inCollection collection: String) -> Bool {
        contains { $0.hasObjectChange(forAnyKeys: keys, inCollection: collection) }
    }

    /// Whether the metadata of any of `keys` in `collection` changed in any of these.
    public func hasMetadataChange(forAnyKeys keys: some Collection<String>, inCollection collection: String) -> Bool {
        contains { $0.hasMetadataChange(forAnyKeys: keys, inCollection: collection) }
    }
}
