/// What an undoable write transaction has changed so far: for each index it touched, the bytes
/// stored there before it first touched it, and the bytes there now. The transaction's
/// ``UndoRecorder`` keeps it, so a group commit's failed caller drops its own.
///
/// The images after are followed from the bytes the write path stored (``ChangedRow``), so the
/// step needs no read back at the end (row 13 of larder-bench); an index whose change did not say
/// what it stored has no known image after and is read back. One slot per index, found by one
/// hash lookup — none at all for the change that follows the image just recorded.
///
/// A class: the recorder asks it about every change, and reaching a struct's methods through the
/// recorder's optional property copied (retained and released) all of its tables each time. A
/// nested transaction works on a ``copy()``. Like its transaction, it is used by one thread at a
/// time and never reentered, so its tables skip Swift's run-time exclusivity checks.
final class UndoCapture {
    /// The name of the step.
    let name: String
    /// The group the step joins, if it is made inside ``DatabaseAccess/undoGroup(named:_:)``.
    let group: UndoGroup?
    /// The indexes in the order they were first touched; slot `n` is `order[n]`'s.
    @exclusivity(unchecked) private(set) var order: [YapDB.Index] = []
    /// The image before the transaction, by slot.
    @exclusivity(unchecked) private(set) var before: [StoredImage] = []
    /// The image now, by slot; `nil` when not known (read it back).
    @exclusivity(unchecked) private(set) var after: [StoredImage?] = []
    @exclusivity(unchecked) private var slots: [YapDB.Index: Int] = [:]
    /// The slot last recorded or found: the change that follows an image's recording is at it.
    @exclusivity(unchecked) private var lastSlot = -1

    init(name: String, group: UndoGroup?) {
        self.name = name
        self.group = group
    }

    /// An independent copy, for a nested transaction that may fail.
    func copy() -> UndoCapture {
        let copy = UndoCapture(name: name, group: group)
        copy.order = order
        copy.before = before
        copy.after = after
        copy.slots = slots
        copy.lastSlot = lastSlot
        return copy
    }

    private func slot(of index: YapDB.Index) -> Int? {
        if lastSlot >= 0, order[lastSlot] == index { return lastSlot }
        guard let slot = slots[index] else { return nil }
        lastSlot = slot
        return slot
    }

    /// Records the image `read` returns as `index`'s image before the transaction, unless the
    /// index has one already (then `read` is not called): one hash lookup.
    func recordIfNew(_ index: YapDB.Index, _ read: () throws -> StoredImage) throws {
        if lastSlot >= 0, order[lastSlot] == index { return }
        let next = order.count
        // Through the defaulting subscript's modify: one lookup finds the slot or inserts `next`.
        let slot = Self.slot(in: &slots[index, default: next])
        lastSlot = slot
        guard slot == next else { return }
        let image: StoredImage
        do {
            image = try read()
        } catch {
            slots[index] = nil
            lastSlot = -1
            throw error
        }
        order.append(index)
        before.append(image)
        after.append(image)
    }

    @inline(__always)
    private static func slot(in entry: inout Int) -> Int { entry }

    /// Follows one change of the write: what it made of each half of a captured index.
    func follow(_ change: WriteChange) {
        switch change {
        case .row(let row):
            guard let slot = slot(of: row.index) else { return }
            guard let image = after[slot],
                  let object = Self.half(image.object, after: row.object, stored: row.storedObject),
                  let metadata = Self.half(image.metadata, after: row.metadata, stored: row.storedMetadata) else {
                after[slot] = nil
                return
            }
            after[slot] = StoredImage(object: object, metadata: metadata)
        case .removed(let index):
            guard let slot = slot(of: index) else { return }
            after[slot] = StoredImage()
        case .cleared(let collection):
            for (slot, index) in order.enumerated() where ExactString.bytesEqual(index.collection, collection) { after[slot] = StoredImage() }
        case .removedEverything:
            for slot in after.indices { after[slot] = StoredImage() }
        }
    }

    /// One half's bytes after `change`: `.some(bytes or nil)` when known, `nil` when not. Bytes
    /// the write path stored are copied: the write path reuses its buffer for the next value.
    private static func half(_ old: [UInt8]?, after change: ValueChange?, stored: [UInt8]?) -> [UInt8]?? {
        switch change {
        case nil, .touched?: return .some(old)
        case .removed?: return .some(nil)
        case .written?: return stored.map { bytes in .some(bytes.withUnsafeBufferPointer { Array($0) }) }
        case .restored?: return nil
        }
    }
}
