/// What a write transaction has changed so far, recorded as it goes: the ``Changeset`` its commit
/// will carry.
///
/// The changeset is a two-level table, by collection and then by key. Writes come in runs to one
/// collection, so the recorder appends each change of the current run to a plain list and nets
/// the list into the table only when somebody asks (a read in the transaction, the commit) or the
/// run moves to another collection: the collection's name is looked up once per run rather than at
/// every write, and the table of keys grows once, to its final size, instead of doubling (and
/// rehashing every key) as the writes arrive. Collections and keys are told apart by their bytes
/// (``ExactString``), as the store keeps them.
struct ChangeRecorder {
    /// One recorded change of the current run, in order.
    private struct Pending {
        let key: String
        let change: Changeset.Change
        let ofMetadata: Bool
    }

    /// Everything recorded but the current run.
    private var settled: Changeset
    /// The collection of the current run.
    private var collection: String?
    private var pending: [Pending] = []

    /// A recorder that goes on from `changeset`.
    init(_ changeset: Changeset = Changeset(commit: 0)) {
        settled = changeset
    }

    mutating func recordObject(_ index: YapDB.Index, _ change: Changeset.Change) {
        if !isCurrent(index.collection) { startRun(in: index.collection) }
        pending.append(Pending(key: index.key, change: change, ofMetadata: false))
    }

    mutating func recordMetadata(_ index: YapDB.Index, _ change: Changeset.Change) {
        if !isCurrent(index.collection) { startRun(in: index.collection) }
        pending.append(Pending(key: index.key, change: change, ofMetadata: true))
    }

    mutating func recordCleared(_ collection: String) {
        if isCurrent(collection) {
            // What the run recorded is removed with the collection.
            pending.removeAll(keepingCapacity: true)
            self.collection = nil
        }
        settled.recordCleared(collection)
    }

    mutating func recordRemovedEverything() {
        pending.removeAll(keepingCapacity: true)
        collection = nil
        settled.recordRemovedEverything()
    }

    mutating func recordExtensionChanges(_ payload: [UInt8], named name: String) {
        settled.recordExtensionChanges(payload, named: name)
    }

    mutating func recordCommitInfo(_ bytes: [UInt8]) {
        settled.recordCommitInfo(bytes)
    }

    /// Lets a feature note something about the commit as a whole in its changeset (the undo
    /// stack, which commits undid or redid); the index changes are not for `body` to touch.
    mutating func annotate(_ body: (inout Changeset) -> Void) {
        body(&settled)
    }

    /// Whether the object or the metadata at `index` changed (see ``Changeset/hasChange(for:)``).
    mutating func hasChange(for index: YapDB.Index) -> Bool {
        if isCurrent(index.collection) { settle() }
        return settled.hasChange(for: index)
    }

    /// Everything recorded, as one changeset; the recorder goes on from it.
    mutating func changeset() -> Changeset {
        settle()
        return settled
    }

    /// Whether `name` is the collection of the current run, byte for byte.
    @inline(__always)
    private func isCurrent(_ name: String) -> Bool {
        guard let collection else { return false }
        return ExactString.bytesEqual(name, collection)
    }

    private mutating func startRun(in name: String) {
        settle()
        collection = name
    }

    /// Nets the current run's changes into ``settled``, in order.
    private mutating func settle() {
        guard let collection, !pending.isEmpty else { return }
        var keys = settled.takeKeys(of: collection)
        keys.reserveCapacity(keys.count + pending.count)
        for change in pending {
            if change.ofMetadata {
                Changeset.record(metadata: change.change, at: ExactString(change.key), in: &keys)
            } else {
                Changeset.record(object: change.change, at: ExactString(change.key), in: &keys)
            }
        }
        pending.removeAll(keepingCapacity: true)
        settled.restoreKeys(keys, of: collection)
    }
}
