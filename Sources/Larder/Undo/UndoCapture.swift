/// What an undoable write transaction has changed so far: the bytes stored at each index it
/// touched before it first touched it. The transaction's ``UndoRecorder`` keeps it, so a group
/// commit's failed caller drops its own.
struct UndoCapture {
    /// The name of the step.
    let name: String
    /// The group the step joins, if it is made inside ``DatabaseAccess/undoGroup(named:_:)``.
    let group: UndoGroup?
    /// The images before the transaction, by index.
    private(set) var before: [YapDB.Index: StoredImage] = [:]
    /// The indexes in the order they were first touched.
    private(set) var order: [YapDB.Index] = []

    init(name: String, group: UndoGroup?) {
        self.name = name
        self.group = group
    }

    func hasImage(of index: YapDB.Index) -> Bool {
        before[index] != nil
    }

    mutating func record(_ image: StoredImage, of index: YapDB.Index) {
        guard before[index] == nil else { return }
        before[index] = image
        order.append(index)
    }

    /// The bytes each index holds after the changes so far, kept from the bytes the write path
    /// stored, so that the step needs no read back at the end (row 13 of larder-bench). An index
    /// that has an image in `before` and none here is unchanged since; one in `unknownAfter` is
    /// read back from the store.
    private(set) var after: [YapDB.Index: StoredImage] = [:]
    private(set) var unknownAfter: Set<YapDB.Index> = []

    /// The image at `index` now, if known.
    private func current(_ index: YapDB.Index) -> StoredImage? {
        if unknownAfter.contains(index) { return nil }
        return after[index] ?? before[index]
    }

    /// Follows one change of the write: what it made of each half of a captured index.
    mutating func follow(_ change: WriteChange) {
        switch change {
        case .row(let row):
            guard before[row.index] != nil else { return }
            guard var image = current(row.index),
                  let object = Self.half(image.object, after: row.object, stored: row.storedObject),
                  let metadata = Self.half(image.metadata, after: row.metadata, stored: row.storedMetadata) else {
                unknownAfter.insert(row.index)
                return
            }
            image.object = object
            image.metadata = metadata
            after[row.index] = image
        case .removed(let index):
            guard before[index] != nil else { return }
            setEmpty(index)
        case .cleared(let collection):
            for index in order where index.collection == collection { setEmpty(index) }
        case .removedEverything:
            for index in order { setEmpty(index) }
        }
    }

    private mutating func setEmpty(_ index: YapDB.Index) {
        unknownAfter.remove(index)
        after[index] = StoredImage()
    }

    /// One half's bytes after `change`: `.some(bytes or nil)` when known, `nil` when not.
    private static func half(_ old: [UInt8]?, after change: ValueChange?, stored: [UInt8]?) -> [UInt8]?? {
        switch change {
        case nil, .touched?: return .some(old)
        case .removed?: return .some(nil)
        case .written?: return stored.map { .some($0) }
        case .restored?: return nil
        }
    }
}
