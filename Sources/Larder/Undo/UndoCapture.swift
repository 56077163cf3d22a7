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
}
