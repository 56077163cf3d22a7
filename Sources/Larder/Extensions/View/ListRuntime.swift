/// The sorted, grouped list that views and filtered views keep, and the reads and change
/// reports they share.
///
/// Storage, in two plain databases:
/// - `tree`: a counted B+tree (``CountedTree``) of item keys, `group ‖ sort key ‖ collection ‖ key`
///   encoded as one ``TupleKey`` (the sort key nested), so byte order is list order and ranks
///   give positions in O(log n);
/// - `groups`: 0x01 ‖ group name (UTF-8) → number of items (`UInt64`, big-endian); absent when empty.
///
/// No map from an object to its item: when an object changes, its old item key is derived again
/// from the object's previous bytes (``ExtensionMaintenance/previousValue(_:metadata:at:in:)``),
/// which is why the definition's closures must be pure (see ``derive``). Store format 4 dropped
/// the map that format 3 kept (`StoreFormat.derivedExtensions`).
///
/// A view's runtime holds one (``ListKeeping``).
struct ListRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable {
    static var partNames: [String] { ["tree", "groups"] }

    /// The item keys of an object with its metadata (`nil` when the list does not read metadata
    /// or there is none): none when it is not in the list, several when it is in several groups.
    /// The definition of the list: it must answer the same for the same arguments, since an
    /// item's old keys are found by asking it again.
    typealias Derive = @Sendable (_ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> ItemKeys

    let name: String
    let parts: ExtensionParts
    /// The collections whose objects the list holds, by their bytes; `nil`: all.
    let collections: Set<ExactString>?
    /// The list's definition (see ``Derive``).
    let derive: Derive

    init(name: String, parts: ExtensionParts, collections: Set<ExactString>?, derive: @escaping Derive) {
        self.name = name
        self.parts = parts
        self.collections = collections
        self.derive = derive
    }

    /// Whether the definition reads metadata.
    var readsMetadata: Bool { Metadata.self != NoMetadata.self }

    func tree(_ lmdb: LMDBTransaction) -> CountedTree<LMDBTreeStorage> {
        CountedTree(storage: LMDBTreeStorage(lmdb: lmdb, database: parts["tree"]))
    }

    // MARK: Item keys

    /// The bytes of `TupleKey([.string(group), .tuple(sort.components), .string(collection),
    /// .string(key)])`, written straight into one buffer sized for them.
    static func itemKey(group: String, sort: TupleKey, index: YapDB.Index) -> [UInt8] {
        var bytes: [UInt8] = []
        // Each string: a type byte and a terminator (more only for NULs); the sort key's
        // components rarely pass 16 bytes each.
        bytes.reserveCapacity(group.utf8.count + index.collection.utf8.count + index.key.utf8.count + 8 + 16 * sort.components.count)
        TupleComponent.appendString(group, to: &bytes)
        bytes.append(TupleTypeByte.nestedStart)
        sort.encode(into: &bytes)
        bytes.append(TupleTypeByte.nestedEnd)
        TupleComponent.appendString(index.collection, to: &bytes)
        TupleComponent.appendString(index.key, to: &bytes)
        return bytes
    }

    /// The item keys of an object in each of `groups` with sort key `sort`: the part after the
    /// group (sort key, collection, key) is encoded once and copied after each group.
    static func itemKeys(groups: [String], sort: TupleKey, index: YapDB.Index) -> ItemKeys {
        guard groups.count > 1 else { return groups.first.map { .one(itemKey(group: $0, sort: sort, index: index)) } ?? .none }
        var suffix: [UInt8] = []
        suffix.reserveCapacity(index.collection.utf8.count + index.key.utf8.count + 6 + 16 * sort.components.count)
        suffix.append(TupleTypeByte.nestedStart)
        sort.encode(into: &suffix)
        suffix.append(TupleTypeByte.nestedEnd)
        TupleComponent.appendString(index.collection, to: &suffix)
        TupleComponent.appendString(index.key, to: &suffix)
        return ItemKeys(groups.map { group in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(group.utf8.count + 2 + suffix.count)
            TupleComponent.appendString(group, to: &bytes)
            bytes.append(contentsOf: suffix)
            return bytes
        })
    }

    /// The encoded group at the start of an item key (its first tuple component: the string type
    /// byte, the escaped UTF-8, the `0x00` terminator), without decoding it.
    static func groupPrefix(of itemKey: [UInt8]) -> ArraySlice<UInt8> {
        ItemKeys.groupPrefix(of: itemKey)
    }

    /// The group an item key starts with, read from its bytes without decoding the rest.
    /// - Throws: ``LarderError/Code/corruptValue`` when the key does not start with a string.
    static func group(ofItemKey itemKey: [UInt8]) throws -> String {
        let key = try groupKey(ofItemKey: itemKey)
        return key.withUnsafeBytes { groupName($0) }
    }

    /// The group and index of an item key.
    static func split(itemKey bytes: some Collection<UInt8>) throws -> (group: String, index: YapDB.Index) {
        let components = try TupleKey(decoding: bytes).components
        guard components.count == 4, case .string(let group) = components[0], case .string(let collection) = components[2],
              case .string(let key) = components[3]
        else {
            throw LarderError(.corruptValue, "a view item key is not (group, sort key, collection, key)", operation: "view")
        }
        return (group, YapDB.Index(collection: collection, key: key))
    }

    /// The first item key of `group`, and the first key after the group.
    static func bounds(ofGroup group: String) -> (lower: [UInt8], upper: [UInt8]) {
        let lower = TupleKey([.string(group)]).bytes
        return (lower, KeyRange.successor(of: lower) ?? [0xFF])
    }

    // MARK: Item keys of objects

    /// The item keys of `index` as its object and metadata are now: the values `row` wrote, else
    /// the stored ones (the previous values when the change left them as they were).
    private func currentItemKeys(of row: ChangedRow, in txn: ReadWriteTransaction) throws -> ItemKeys {
        let work = txn.extensionWork
        guard let object = try work.value(Object.self, metadata: false, after: row, in: txn) else { return .none }
        let metadata = readsMetadata ? try work.value(Metadata.self, metadata: true, after: row, in: txn) : nil
        return derive(row.index, object, metadata)
    }

    /// The item keys of `index` as its object and metadata are stored in `transaction`.
    /// - Throws: a damaged stored value, LMDB failures.
    func storedItemKeys(of index: YapDB.Index, in transaction: ReadTransaction) throws -> ItemKeys {
        guard let object = try transaction.extensionObject(Object.self, at: index, written: nil) else { return .none }
        let metadata = readsMetadata ? try transaction.extensionMetadata(Metadata.self, at: index, written: nil) : nil
        return derive(index, object, metadata)
    }

    /// The item keys `index` had before the change being applied, derived from its previous
    /// object and metadata.
    private func previousItemKeys(of index: YapDB.Index, in txn: ReadWriteTransaction) throws -> ItemKeys {
        let work = txn.extensionWork
        guard let object = try work.previousValue(Object.self, metadata: false, at: index, in: txn) else { return .none }
        let metadata = readsMetadata ? try work.previousValue(Metadata.self, metadata: true, at: index, in: txn) : nil
        return derive(index, object, metadata)
    }

    // MARK: Changing the list

    /// Brings the list up to date with one change of the objects it reads.
    /// - Throws: ``LarderError/Code/keyTooLong`` for an item key over LMDB's limit; a damaged
    ///   stored value; LMDB failures.
    func apply(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        switch change {
        case .row(let row):
            let new = try currentItemKeys(of: row, in: txn)
            // A created object had no object before it, so no item (every removal of an object
            // takes its items out in the same transaction).
            let old = row.createdObject ? .none : try previousItemKeys(of: row.index, in: txn)
            try place(row.index, from: old, to: new, in: txn)
        case .removed(let index):
            try place(index, from: try previousItemKeys(of: index, in: txn), to: .none, in: txn)
        case .cleared(let collection):
            try removeItems(inCollection: collection, in: txn)
        case .removedEverything:
            try removeAllItems(in: txn)
        }
    }

    /// Moves the items of `index` from item keys `old` to `new` (none: not in the list), keeping
    /// the group counts, and notes the object as changed in this transaction.
    /// - Throws: ``LarderError/Code/keyTooLong`` when a new key is over LMDB's key limit; as
    ///   ``settle(in:)`` when the waiting changes outgrow their limit.
    func place(_ index: YapDB.Index, from old: ItemKeys, to new: ItemKeys, in txn: ReadWriteTransaction) throws {
        writeState(in: txn).noteTouched(index, from: old, to: new, limit: Self.itemizedChangeLimit)
        guard old != new else { return }
        switch (old, new) {
        // One key at most on each side, the common case: no list of pairs is made.
        case (.none, .one(let key)): try placeItem(index, from: nil, to: key, in: txn)
        case (.one(let key), .none): try placeItem(index, from: key, to: nil, in: txn)
        case (.one(let a), .one(let b)): try placeItem(index, from: a, to: b, in: txn)
        default:
            for (oldKey, newKey) in ItemKeys.pairs(from: old, to: new) { try placeItem(index, from: oldKey, to: newKey, in: txn) }
        }
    }

    /// Moves one item of `index` from item key `old` to `itemKey` (`nil`: not in the list),
    /// keeping the group counts; the change report is the caller's (a rebuild has none).
    /// - Throws: as ``place(_:from:to:in:)``.
    func placeItem(_ index: YapDB.Index, from old: [UInt8]?, to itemKey: [UInt8]?, in txn: ReadWriteTransaction) throws {
        let state = writeState(in: txn)
        guard old != itemKey else { return }
        if let itemKey, itemKey.count > txn.maxKeySize {
            throw LarderError(.keyTooLong, "the view item (group, sort key, collection, key) takes \(itemKey.count) bytes; the limit is \(txn.maxKeySize)", operation: "view", index: index, extensionName: name)
        }
        // The tree's and the group counts' changes wait for the transaction's other changes
        // (see `settle(in:)`).
        var settleNow = false
        // An item that stays in its group (a new sort key) leaves the group's count alone.
        let oldGroup = old.map { Self.groupPrefix(of: $0) }
        let newGroup = itemKey.map { Self.groupPrefix(of: $0) }
        let sameGroup = oldGroup != nil && oldGroup == newGroup
        if let old, let oldGroup {
            settleNow = state.deferTreeChange(old, present: false)
            if !sameGroup { state.deferCountChange(ofGroupPrefix: oldGroup, by: -1) }
        }
        if let itemKey, let newGroup {
            settleNow = state.deferTreeChange(itemKey, present: true) || settleNow
            if !sameGroup { state.deferCountChange(ofGroupPrefix: newGroup, by: 1) }
        }
        if settleNow { try settle(in: txn) }
    }

    /// What this list keeps in `txn`'s write attempt.
    @inline(__always)
    func writeState(in txn: ReadWriteTransaction) -> ListWriteState {
        txn.extensionWork.state(of: parts) { ListWriteState() }
    }

    /// Applies the changes of the tree and of the group counts this transaction has made and not
    /// yet applied, the tree's in key order (``CountedTree/apply(sorted:)``). Whatever reads the
    /// list in a write transaction calls this first: the list's reads, its change report, a
    /// filtered view's rebuild, verification.
    /// - Throws: what the tree throws (a damaged tree).
    func settle(in txn: ReadWriteTransaction) throws {
        guard let pending = txn.extensionWork.existingState(of: parts, as: ListWriteState.self)?.takePending() else { return }
        let tree = tree(txn.lmdb)
        let countBefore = try tree.count()
        try tree.apply(sorted: pending.netted())
        // Each change took out an item its old key said was there and put in one its new key
        // said was not: the tree's count moves by the sum of the group counts' changes unless a
        // key was not where the definition put it.
        let expected = countBefore + pending.groupCounts.values.reduce(0, +)
        let count = try tree.count()
        guard count == expected else {
            throw LarderError(.extensionInconsistent, "the list holds \(count) items where its definition accounts for \(expected): its grouping, sorting or filter gave another answer for a value that did not change (they must be pure functions of their arguments), or its definition or its type's decoding changed without a new versionTag; register it with a new versionTag to rebuild it", operation: "view", extensionName: name)
        }
        for (groupPrefix, change) in pending.groupCounts where change != 0 {
            try changeCount(ofGroupKey: try Self.groupKey(ofGroupPrefix: groupPrefix.bytes), by: change, in: txn.lmdb)
        }
    }

    /// Applies the tree's waiting changes when `transaction` is a write transaction.
    /// - Throws: as ``settle(in:)``.
    func settle(ifWriting transaction: ReadTransaction) throws {
        if let txn = transaction as? ReadWriteTransaction { try settle(in: txn) }
    }

    /// The tree, with this transaction's changes applied when `transaction` writes.
    /// - Throws: as ``settle(in:)``.
    func settledTree(in transaction: ReadTransaction) throws -> CountedTree<LMDBTreeStorage> {
        try settle(ifWriting: transaction)
        return tree(transaction.lmdb)
    }

    /// Forgets the tree's waiting changes (its databases were emptied).
    func discardPending(in txn: ReadWriteTransaction) {
        txn.extensionWork.existingState(of: parts, as: ListWriteState.self)?.pending = nil
    }

    /// Runs a rebuild's `body` over the emptied list: waiting changes from before are forgotten
    /// first, and what `body` placed is applied before returning (a runtime being registered is
    /// not among the transaction's extensions yet, so its commit would not apply them).
    /// - Throws: what `body` throws, and as ``settle(in:)``.
    func rebuilding(in txn: ReadWriteTransaction, _ body: () throws -> Void) throws {
        discardPending(in: txn)
        try body()
        try settle(in: txn)
    }

    // MARK: Reads, with the transaction's waiting changes applied

    /// The groups that hold at least one item, in UTF-8 byte order, as `transaction` sees them.
    /// - Throws: as ``settle(in:)``, and LMDB failures.
    func groups(in transaction: ReadTransaction) throws -> [String] {
        try settle(ifWriting: transaction)
        var names: [String] = []
        try transaction.lmdb.forEachEntry(in: parts["groups"]) { key, _ in
            names.append(Self.groupName(key))
            return true
        }
        return names
    }

    /// The number of items in `group` as `transaction` sees it.
    /// - Throws: as ``settle(in:)``, and LMDB failures.
    func count(ofGroup group: String, in transaction: ReadTransaction) throws -> Int {
        try settle(ifWriting: transaction)
        return try Self.count(ofGroupKey: Self.groupKey(group), in: transaction.lmdb, database: parts["groups"])
    }

    /// Where `index` is in the list as `transaction` sees it.
    /// - Throws: as ``settle(in:)``, and when the stored state is damaged.
    func location(of index: YapDB.Index, in transaction: ReadTransaction) throws -> ViewLocation? {
        try locations(of: index, in: transaction).first
    }

    /// Every place of `index` in the list as `transaction` sees it (one per group it is in), in
    /// the groups' byte order.
    /// - Throws: as ``settle(in:)``, and when the stored state is damaged.
    func locations(of index: YapDB.Index, in transaction: ReadTransaction) throws -> [ViewLocation] {
        let tree = try settledTree(in: transaction)
        var groupStarts: [ExactString: Int] = [:]
        // The item keys its object gives, those the list holds.
        return try storedItemKeys(of: index, in: transaction).all.compactMap { itemKey in
            try tree.contains(itemKey) ? try location(ofItemKey: itemKey, in: transaction.lmdb, groupStarts: &groupStarts) : nil
        }
    }

    private func changeCount(ofGroupKey key: [UInt8], by change: Int, in lmdb: LMDBTransaction) throws {
        let count = try Self.count(ofGroupKey: key, in: lmdb, database: parts["groups"]) + change
        try key.withUnsafeBytes { key in
            if count > 0 {
                try withUnsafeBytes(of: UInt64(count).bigEndian) { try lmdb.put(parts["groups"], key: key, value: $0) }
            } else {
                _ = try lmdb.delete(parts["groups"], key: key)
            }
        }
    }

    /// The `groups` key of `group`: a 0x01 byte, then its UTF-8 (LMDB refuses the empty key of
    /// the group "").
    static func groupKey(_ group: String) -> [UInt8] {
        [1] + Array(group.utf8)
    }

    /// The `groups` key of the group an item key starts with, read from the item key's bytes
    /// (its first component: the string type byte, the UTF-8 with each `0x00` escaped as
    /// `0x00 0xFF`, a `0x00` terminator) without decoding the key or making a `String`.
    /// - Throws: ``LarderError/Code/corruptValue`` when the key does not start with a string.
    static func groupKey(ofItemKey itemKey: [UInt8]) throws -> [UInt8] {
        try groupKey(ofGroupPrefix: groupPrefix(of: itemKey))
    }

    /// The `groups` key of the group encoded as `prefix` (``groupPrefix(of:)``).
    /// - Throws: ``LarderError/Code/corruptValue`` when `prefix` is not an encoded string.
    static func groupKey(ofGroupPrefix prefix: ArraySlice<UInt8>) throws -> [UInt8] {
        guard prefix.count >= 2, prefix.first == TupleTypeByte.string, prefix.last == 0 else {
            throw LarderError(.corruptValue, "a view item key does not start with its group", operation: "view")
        }
        var key: [UInt8] = [1]
        key.reserveCapacity(prefix.count - 1)
        var position = prefix.startIndex + 1
        let end = prefix.endIndex - 1
        while position < end {
            let byte = prefix[position]
            key.append(byte)
            position += byte == 0 ? 2 : 1  // an escaped NUL: 0x00 0xFF
        }
        return key
    }

    static func groupName(_ key: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: key.dropFirst()), as: UTF8.self)
    }

    static func count(ofGroupKey key: [UInt8], in lmdb: LMDBTransaction, database: DatabaseHandle) throws -> Int {
        guard let stored = try key.withUnsafeBytes({ try lmdb.get(database, key: $0) }), stored.count == 8 else { return 0 }
        return Int(UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self)))
    }

    /// The list's changes in this commit, for the changeset.
    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]? {
        try settle(in: txn)
        return try listChanges(in: txn)
    }

    /// Takes every item of `collection` out of the list: all of them when the list reads that
    /// collection only, else those the list's keys name (a scan of the list; no map says which
    /// items a collection has).
    /// - Complexity: O(n) for the n items of the list when it reads other collections too.
    func removeItems(inCollection collection: String, in txn: ReadWriteTransaction) throws {
        if collections == [ExactString(collection)] { return try removeAllItems(in: txn) }
        let tree = try settledTree(in: txn)
        let total = try tree.count()
        // By object: one in several groups has several keys, all removed as one change.
        var removed: [YapDB.Index: [[UInt8]]] = [:]
        var rank = 0
        while rank < total {
            let keys = try tree.keys(from: rank, limit: 512, reversed: false)
            guard !keys.isEmpty else { break }
            for key in keys {
                let index = try Self.split(itemKey: key).index
                if ExactString.bytesEqual(index.collection, collection) { removed[index, default: []].append(key) }
            }
            rank += keys.count
        }
        for (index, keys) in removed { try place(index, from: ItemKeys(keys), to: .none, in: txn) }
    }

    /// Takes every item out of the list.
    func removeAllItems(in txn: ReadWriteTransaction) throws {
        // The items are reported only until they are too many to itemize: then the report is a
        // reset.
        let tree = try settledTree(in: txn)
        let total = try tree.count()
        if total > Self.itemizedChangeLimit {
            writeState(in: txn).noteReset()
        } else {
            let state = writeState(in: txn)
            var removed: [YapDB.Index: [[UInt8]]] = [:]
            for key in try tree.keys(from: 0, limit: total, reversed: false) { removed[try Self.split(itemKey: key).index, default: []].append(key) }
            for (index, keys) in removed { state.noteTouched(index, from: ItemKeys(keys), to: .none, limit: Self.itemizedChangeLimit) }
        }
        discardPending(in: txn)
        try parts.empty(in: txn.lmdb)
    }

    // MARK: Change reports

    /// Where the item key `itemKey` is in the list as `lmdb` sees it (its rank: where it is, or
    /// would be). `groupStarts` caches the rank of each group's first item across calls on one
    /// snapshot (by the groups' bytes).
    func location(ofItemKey itemKey: [UInt8], in lmdb: LMDBTransaction, groupStarts: inout [ExactString: Int]) throws -> ViewLocation {
        let group = try Self.group(ofItemKey: itemKey)
        let tree = tree(lmdb)
        let start: Int
        if let known = groupStarts[ExactString(group)] {
            start = known
        } else {
            start = try tree.rank(of: Self.bounds(ofGroup: group).lower)
            groupStarts[ExactString(group)] = start
        }
        return ViewLocation(group: group, position: try tree.rank(of: itemKey) - start)
    }

    /// Where each of `itemKeys` is (or would be) in the list as `lmdb` sees it, `nil` for `nil`:
    /// the keys and the first keys of their groups are ranked together, each node of the tree
    /// read once (``CountedTree/ranks(ofSorted:)``).
    /// - Throws: a damaged tree or item key.
    func locations(ofItemKeys itemKeys: [[UInt8]?], in lmdb: LMDBTransaction) throws -> [ViewLocation?] {
        // What to rank: each key, and the first key of each group (by position in `probes`).
        var probes: [[UInt8]] = []
        probes.reserveCapacity(itemKeys.count + 8)
        var probeOfItem: [(probe: Int, group: String, groupProbe: Int)?] = []
        probeOfItem.reserveCapacity(itemKeys.count)
        // By the groups' bytes: two groups Swift calls equal start at two places.
        var groupProbes: [ExactString: Int] = [:]
        for key in itemKeys {
            guard let key else {
                probeOfItem.append(nil)
                continue
            }
            let group = try Self.group(ofItemKey: key)
            let groupProbe: Int
            if let known = groupProbes[ExactString(group)] {
                groupProbe = known
            } else {
                groupProbe = probes.count
                groupProbes[ExactString(group)] = groupProbe
                probes.append(Self.bounds(ofGroup: group).lower)
            }
            probeOfItem.append((probes.count, group, groupProbe))
            probes.append(key)
        }
        guard !probes.isEmpty else { return probeOfItem.map { _ in nil } }
        let order = probes.indices.sorted { a, b in
            probes[a].withUnsafeBufferPointer { a in probes[b].withUnsafeBufferPointer { CountedTreeBytes.compare(a, $0) < 0 } }
        }
        let sortedRanks = try tree(lmdb).ranks(ofSorted: order.map { probes[$0] })
        var ranks = [Int](repeating: 0, count: probes.count)
        for (position, probe) in order.enumerated() { ranks[probe] = sortedRanks[position] }
        return probeOfItem.map { item in
            item.map { ViewLocation(group: $0.group, position: ranks[$0.probe] - ranks[$0.groupProbe]) }
        }
    }

    /// Beyond this many changed items in one commit, a view reports a reset instead of itemized
    /// changes: a list interface reloads after a bulk change anyway, and the itemized report
    /// would cost more than the reload (and fill the change log).
    static var itemizedChangeLimit: Int { 1_000 }

    /// The row and section changes of this transaction: where each changed item was before it
    /// (read in a snapshot of the last commit, which this transaction started from) and where it
    /// is now.
    func listChanges(in txn: ReadWriteTransaction) throws -> [UInt8]? {
        guard let touched = txn.extensionWork.existingState(of: parts, as: ListWriteState.self).map({ $0.touched }) ?? [:] else {
            return try ViewChanges(isReset: true).messagePackBytes()
        }
        guard !touched.isEmpty else { return nil }
        // The committed state before this transaction, read beside it: each item's key before
        // the transaction is ranked there, its key now in the transaction. An object in several
        // groups is one item per group (its keys paired by group).
        var items: [(index: YapDB.Index, before: [UInt8]?, now: [UInt8]?)] = []
        items.reserveCapacity(touched.count)
        for (index, item) in touched {
            switch (item.before, item.now) {
            // One key at most on each side, the common case: no list of pairs is made.
            case (.none, .none): continue
            case (.none, .one(let key)): items.append((index, nil, key))
            case (.one(let key), .none): items.append((index, key, nil))
            case (.one(let a), .one(let b)): items.append((index, a, b))
            default:
                for (before, now) in ItemKeys.pairs(from: item.before, to: item.now) { items.append((index, before, now)) }
            }
        }
        let now = try locations(ofItemKeys: items.map(\.now), in: txn.lmdb)
        return try txn.lmdb.environment.read { before in
            let was = try locations(ofItemKeys: items.map(\.before), in: before)
            var changes = ViewChanges()
            var groups = Set<ExactString>()
            for (position, item) in items.enumerated() {
                let index = item.index
                let old = was[position]
                let new = now[position]
                switch (old, new) {
                case (nil, nil):
                    continue
                case (nil, let new?):
                    changes.rows.append(.init(kind: .insert, index: index, from: nil, to: new))
                case (let old?, nil):
                    changes.rows.append(.init(kind: .delete, index: index, from: old, to: nil))
                case (let old?, let new?):
                    let kind: ViewChanges.RowChange.Kind = item.before == item.now ? .update : .move
                    changes.rows.append(.init(kind: kind, index: index, from: old, to: new))
                }
                if let old { groups.insert(ExactString(old.group)) }
                if let new { groups.insert(ExactString(new.group)) }
            }
            for group in groups.sorted() {
                let key = Self.groupKey(group.string)
                let existed = try Self.count(ofGroupKey: key, in: before, database: parts["groups"]) > 0
                let exists = try Self.count(ofGroupKey: key, in: txn.lmdb, database: parts["groups"]) > 0
                if existed != exists { changes.sections.append(.init(kind: exists ? .insert : .delete, group: group.string)) }
            }
            guard !changes.rows.isEmpty || !changes.sections.isEmpty else { return nil }
            changes.rows.sort { $0.index < $1.index }
            return try changes.messagePackBytes()
        }
    }

    // MARK: Verification

    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]] {
        let tree = try settledTree(in: txn)
        return [
            "tree": try tree.keys(from: 0, limit: try tree.count(), reversed: false),
            "groups": try parts.entries(of: "groups", in: txn.lmdb),
        ]
    }
}
