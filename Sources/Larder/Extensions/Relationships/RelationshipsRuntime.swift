/// The relationships extension as the store runs it.
///
/// Storage, all ``TupleKey``s with string components:
/// - `x.<name>.forward`: `source ‖ name ‖ destination ‖ owner` → the rules (one byte). `owner` is
///   null when the source declared the edge, else the index of the manual edge object.
/// - `x.<name>.reverse`: `destination ‖ name ‖ source ‖ owner` → the rules.
/// - `x.<name>.owners`: `owner ‖ forward key` → empty, for the edges added by hand (whose owner,
///   the manual edge object, is not their source): to find them when the owner changes. The
///   edges a value declares itself are its forward edges with a null owner.
final class RelationshipsRuntime: ExtensionRuntime {
    /// The kind's name in the store's records.
    static var kindName: String { "relationships" }
    static var partNames: [String] { ["forward", "reverse", "owners"] }

    let name: String
    let definition: Relationships
    let parts: ExtensionParts
    /// Edge sources by collection (its bytes: a type's edges come from its own collection, not
    /// from one whose name Swift calls equal), the manual edges included.
    private let sources: [ExactString: [Relationships.EdgeSource]]
    /// Where the edges added by hand are stored.
    private let manualEdgesCollection: ExactString
    /// The collections garbage collection deletes from, by their bytes.
    private let garbageCollected: Set<ExactString>

    init(name: String, definition: Relationships, parts: ExtensionParts) {
        self.name = name
        self.definition = definition
        self.parts = parts
        var sources = definition.sources
        manualEdgesCollection = ExactString(RelationshipsHandle(name: name).manualEdgesCollection)
        sources[manualEdgesCollection, default: []].append(.manual)
        self.sources = sources
        garbageCollected = Set(names: definition.garbageCollectedCollections)
    }

    /// Whether `collection` is where the roots are, byte for byte.
    private static func isRoots(_ collection: String) -> Bool {
        ExactString.bytesEqual(collection, ReadWriteTransaction.rootsCollection)
    }

    var kind: String { Self.kindName }
    var versionTag: String { definition.versionTag }
    /// Every collection: a deletion anywhere may be the end of an edge.
    var collections: Set<ExactString>? { nil }
    var dependencies: [String] { [] }
    var readsMetadata: Bool { false }

    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime {
        RelationshipsRuntime(name: name, definition: definition, parts: parts)
    }

    // MARK: Keys

    /// One stored edge with the value that declared it.
    struct StoredEdge {
        let edge: RelationshipEdge
        /// The value that declared the edge: the source, or a manual edge object.
        let owner: YapDB.Index
        /// The key the edge was found under, when it was found by a scan, and whether that key is
        /// its reverse key (else its forward key): removing the edge deletes that key as it is.
        var foundKey: [UInt8]? = nil
        var foundKeyIsReverse = false

        /// The edge's forward key: the key it was found under when that was its forward key.
        var forwardKey: [UInt8] {
            foundKey.flatMap { foundKeyIsReverse ? nil : $0 } ?? RelationshipsRuntime.forwardKey(edge, owner: owner)
        }

        /// The edge's reverse key: the key it was found under when that was its reverse key.
        var reverseKey: [UInt8] {
            foundKey.flatMap { foundKeyIsReverse ? $0 : nil } ?? RelationshipsRuntime.reverseKey(edge, owner: owner)
        }
    }

    /// The bytes of the tuple `(first.collection, first.key, name, second.collection,
    /// second.key, owner)`, where owner is null when it is the source, else `(collection, key)`:
    /// written straight into one buffer sized for them.
    private static func edgeKey(_ first: YapDB.Index, _ name: String, _ second: YapDB.Index, owner: YapDB.Index, source: YapDB.Index) -> [UInt8] {
        let ownsItself = owner == source
        var bytes: [UInt8] = []
        bytes.reserveCapacity(first.collection.utf8.count + first.key.utf8.count + name.utf8.count + second.collection.utf8.count
                              + second.key.utf8.count + 12 + (ownsItself ? 0 : owner.collection.utf8.count + owner.key.utf8.count + 6))
        TupleComponent.appendString(first.collection, to: &bytes)
        TupleComponent.appendString(first.key, to: &bytes)
        TupleComponent.appendString(name, to: &bytes)
        TupleComponent.appendString(second.collection, to: &bytes)
        TupleComponent.appendString(second.key, to: &bytes)
        if ownsItself {
            TupleComponent.null.encode(into: &bytes)
        } else {
            bytes.append(TupleTypeByte.nestedStart)
            TupleComponent.appendString(owner.collection, to: &bytes)
            TupleComponent.appendString(owner.key, to: &bytes)
            bytes.append(TupleTypeByte.nestedEnd)
        }
        return bytes
    }

    static func forwardKey(_ edge: RelationshipEdge, owner: YapDB.Index) -> [UInt8] {
        edgeKey(edge.source, edge.name, edge.destination, owner: owner, source: edge.source)
    }

    static func reverseKey(_ edge: RelationshipEdge, owner: YapDB.Index) -> [UInt8] {
        edgeKey(edge.destination, edge.name, edge.source, owner: owner, source: edge.source)
    }

    static func ownersKey(owner: YapDB.Index, forwardKey: [UInt8]) -> [UInt8] {
        TupleKey([.string(owner.collection), .string(owner.key), .bytes(forwardKey)]).bytes
    }

    /// The prefix of every key about `index`, and of its edges named `name` when given.
    static func prefix(_ index: YapDB.Index, named name: String? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(index.collection.utf8.count + index.key.utf8.count + (name?.utf8.count ?? 0) + 6)
        TupleComponent.appendString(index.collection, to: &bytes)
        TupleComponent.appendString(index.key, to: &bytes)
        if let name { TupleComponent.appendString(name, to: &bytes) }
        return bytes
    }

    /// The edge stored under a forward (`reversed` false) or reverse key, with its rules.
    static func decode(_ key: some Collection<UInt8>, rules: UnsafeRawBufferPointer, reversed: Bool) throws -> StoredEdge {
        let components = try TupleKey(decoding: key).components
        guard components.count == 6,
              case .string(let firstCollection) = components[0], case .string(let firstKey) = components[1],
              case .string(let name) = components[2],
              case .string(let secondCollection) = components[3], case .string(let secondKey) = components[4],
              rules.count == 1
        else { throw LarderError(.corruptValue, "a relationship entry is not an edge", operation: "relationships") }
        let first = YapDB.Index(collection: firstCollection, key: firstKey)
        let second = YapDB.Index(collection: secondCollection, key: secondKey)
        let (source, destination) = reversed ? (second, first) : (first, second)
        var owner = source
        switch components[5] {
        case .null: break
        case .tuple(let parts):
            guard parts.count == 2, case .string(let collection) = parts[0], case .string(let key) = parts[1] else { fallthrough }
            owner = YapDB.Index(collection: collection, key: key)
        default:
            throw LarderError(.corruptValue, "a relationship entry has no valid owner", operation: "relationships")
        }
        let edge = RelationshipEdge(name: name, source: source, destination: destination, rules: DeleteRules(rawValue: rules[0]), isManual: owner != source)
        return StoredEdge(edge: edge, owner: owner)
    }

    /// The edges stored under keys starting with `prefix` in the forward or reverse part, each
    /// with the key it was found under when `keepingKeys` (for removing it).
    func edges(withPrefix prefix: [UInt8], reversed: Bool, keepingKeys: Bool = false, in lmdb: LMDBTransaction) throws -> [StoredEdge] {
        var found: [StoredEdge] = []
        try lmdb.forEachEntry(in: parts[reversed ? "reverse" : "forward"], withPrefix: prefix) { key, value in
            var stored = try Self.decode(key, rules: value, reversed: reversed)
            if keepingKeys {
                stored.foundKey = [UInt8](key)
                stored.foundKeyIsReverse = reversed
            }
            found.append(stored)
            return true
        }
        return found
    }

    /// How many edges are stored under keys starting with `prefix`.
    func edgeCount(withPrefix prefix: [UInt8], reversed: Bool, in lmdb: LMDBTransaction) throws -> Int {
        var count = 0
        try lmdb.forEachEntry(in: parts[reversed ? "reverse" : "forward"], withPrefix: prefix) { _, _ in
            count += 1
            return true
        }
        return count
    }

    // MARK: Keeping the edges

    func apply(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        switch change {
        case .row(let row):
            if Self.isRoots(row.index.collection) { requestCollection(in: txn) }
            guard let sources = sources[ExactString(row.index.collection)] else { return }
            try replaceEdges(of: row.index, with: try links(of: row.index, from: sources, written: row.writtenObjectBox, in: txn),
                             created: row.createdObject, in: txn)
        case .removed(let index):
            if Self.isRoots(index.collection) { requestCollection(in: txn) }
            try cascade(in: txn) { try removed(index, in: txn, cascade: $0) }
        case .cleared(let collection):
            if Self.isRoots(collection) { requestCollection(in: txn) }
            let lmdb = txn.lmdb
            var indexes = Set<YapDB.Index>()
            let prefix = TupleKey([.string(collection)]).bytes
            for part in ["forward", "reverse"] {
                try lmdb.forEachEntry(in: parts[part], withPrefix: prefix) { key, value in
                    let stored = try Self.decode(key, rules: value, reversed: part == "reverse")
                    indexes.insert(part == "reverse" ? stored.edge.destination : stored.edge.source)
                    return true
                }
            }
            try lmdb.forEachEntry(in: parts["owners"], withPrefix: prefix) { key, _ in
                let components = try TupleKey(decoding: key).components
                if components.count == 3, case .string(let ownerKey) = components[1] { indexes.insert(YapDB.Index(collection: collection, key: ownerKey)) }
                return true
            }
            try cascade(in: txn) { queue in
                for index in indexes.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                    try removed(index, in: txn, cascade: queue)
                }
            }
        case .removedEverything:
            try parts.empty(in: txn.lmdb)
        }
    }

    /// The links the object at `index` declares, `nil` when it declares none (gone or another type).
    private func links(of index: YapDB.Index, from sources: [Relationships.EdgeSource], written: CachedValueBox?, in txn: ReadTransaction) throws -> [Relationships.Link] {
        var all: [Relationships.Link] = []
        for source in sources {
            if let links = try source.links(txn, index, written) { all += links }
        }
        return all
    }

    /// Stores the edges `owner` declares now in place of those it declared before. An owner the
    /// write has just `created` declared none before (its edges went with its removal), so there
    /// is nothing to look up.
    private func replaceEdges(of owner: YapDB.Index, with links: [Relationships.Link], created: Bool = false, in txn: ReadWriteTransaction) throws {
        let lmdb = txn.lmdb
        // The edges wanted, by forward key. A value declares few links: they are found by a
        // scan, and through a dictionary only when there are many (hashing every key cost more
        // than the rest of the bookkeeping).
        var wanted: [WantedEdge] = []
        wanted.reserveCapacity(links.count)
        var positions: [[UInt8]: Int]? = links.count > 16 ? [:] : nil
        func position(of key: [UInt8]) -> Int? {
            positions.map { $0[key] } ?? wanted.firstIndex { $0.key == key }
        }
        for link in links {
            let source = link.source ?? owner
            let edge = RelationshipEdge(name: link.name, source: source, destination: link.destination, rules: link.rules, isManual: source != owner)
            let key = Self.forwardKey(edge, owner: owner)
            guard key.count <= txn.maxKeySize, source == owner || Self.ownersKey(owner: owner, forwardKey: key).count <= txn.maxKeySize else {
                throw LarderError(.keyTooLong, "the edge \(edge.name) from collection \(edge.source.collection) to collection \(edge.destination.collection) is too long to store: the indexes at both ends and the name together must stay well under \(txn.maxKeySize) bytes", operation: "relationships", index: owner, extensionName: name)
            }
            if let at = position(of: key) {
                // The same edge declared twice is one edge with the rules of both.
                wanted[at].rules.formUnion(link.rules)
            } else {
                positions?[key] = wanted.count
                wanted.append(WantedEdge(key: key, edge: edge, rules: link.rules))
            }
        }
        for stored in created ? [] : try ownedEdges(of: owner, outgoing: nil, in: lmdb) {
            let key = stored.forwardKey
            let at = position(of: key)
            if let at, wanted[at].rules == stored.edge.rules {
                wanted[at].isStored = true  // unchanged
                continue
            }
            try removeEntries(of: stored, in: lmdb)
            if at == nil { noteReferenceRemoved(to: stored.edge.destination, in: txn) }
        }
        for entry in wanted where !entry.isStored {
            let edge = entry.edge
            try withUnsafeBytes(of: entry.rules.rawValue) { rules in
                try entry.key.withUnsafeBytes { try lmdb.put(parts["forward"], key: $0, value: rules) }
                try Self.reverseKey(edge, owner: owner).withUnsafeBytes { try lmdb.put(parts["reverse"], key: $0, value: rules) }
                if edge.source != owner {
                    try Self.ownersKey(owner: owner, forwardKey: entry.key).withUnsafeBytes { try lmdb.put(parts["owners"], key: $0, value: UnsafeRawBufferPointer(start: nil, count: 0)) }
                }
            }
        }
    }

    /// The edges `owner` declared. Those it is the source of are its forward edges (`outgoing`,
    /// when the caller has them); only edges added by hand have another owner, listed in `owners`.
    private func ownedEdges(of owner: YapDB.Index, outgoing: [StoredEdge]?, in lmdb: LMDBTransaction) throws -> [StoredEdge] {
        guard ExactString(owner.collection) == manualEdgesCollection else {
            return try (outgoing ?? edges(withPrefix: Self.prefix(owner), reversed: false, keepingKeys: true, in: lmdb)).filter { $0.owner == owner }
        }
        var forwardKeys: [[UInt8]] = []
        let prefix = Self.prefix(owner)
        try lmdb.forEachEntry(in: parts["owners"], withPrefix: prefix) { key, _ in
            let components = try TupleKey(decoding: key).components
            guard components.count == 3, case .bytes(let forwardKey) = components[2] else {
                throw LarderError(.corruptValue, "a relationship owner entry does not name an edge", operation: "relationships", extensionName: name)
            }
            forwardKeys.append(forwardKey)
            return true
        }
        return try forwardKeys.map { key in
            guard let rules = try key.withUnsafeBytes({ try lmdb.get(parts["forward"], key: $0) }) else {
                throw LarderError(.corruptValue, "a relationship owner entry names an edge that is not stored", operation: "relationships", extensionName: name)
            }
            var stored = try Self.decode(key, rules: rules, reversed: false)
            stored.foundKey = key
            return stored
        }
    }

    /// Deletes the entries of one edge.
    private func removeEntries(of stored: StoredEdge, in lmdb: LMDBTransaction) throws {
        // The key the edge was found under is deleted as it is; only the other one is built.
        let key = stored.forwardKey
        let reverse = stored.reverseKey
        _ = try key.withUnsafeBytes { try lmdb.delete(parts["forward"], key: $0) }
        _ = try reverse.withUnsafeBytes { try lmdb.delete(parts["reverse"], key: $0) }
        if stored.owner != stored.edge.source {
            _ = try Self.ownersKey(owner: stored.owner, forwardKey: key).withUnsafeBytes { try lmdb.delete(parts["owners"], key: $0) }
        }
    }

    // MARK: Delete rules

    /// What deleting values makes the rules do, run one after another so that a long chain of
    /// cascades does not nest calls.
    final class CascadeQueue {
        enum Action {
            case delete(YapDB.Index)
            case nullify(RelationshipEdge)
            case touch(YapDB.Index)
        }

        /// A "last source" or "last destination" rule waiting for its condition.
        enum Check {
            /// Delete `node` once no edge named `name` into it has a source left.
            case noSourceLeft(YapDB.Index, name: String)
            /// Delete `node` once no edge named `name` from it has a destination left.
            case noDestinationLeft(YapDB.Index, name: String)
        }

        var actions: [Action] = []
        var next = 0
        var checks: [Check] = []
    }

    /// Runs `body` with the transaction's cascade queue, then, if this is the outermost deletion,
    /// carries out the queued actions until none are left. An action that deletes comes back
    /// here (through the store's removal) and only queues more.
    ///
    /// The "last source / last destination" checks wait until everything else has run, and run
    /// again after every round that deleted something, so that the result does not depend on the
    /// order of the edges: what is deleted is the smallest set closed under every rule.
    /// What this extension keeps in `txn`'s write attempt.
    private func writeState(in txn: ReadWriteTransaction) -> RelationshipsWriteState {
        txn.extensionWork.state(of: parts) { RelationshipsWriteState() }
    }

    private func cascade(in txn: ReadWriteTransaction, _ body: (CascadeQueue) throws -> Void) throws {
        let state = writeState(in: txn)
        if let queue = state.cascade {
            return try body(queue)
        }
        let queue = CascadeQueue()
        state.cascade = queue
        defer { state.cascade = nil }
        try body(queue)
        while true {
            while queue.next < queue.actions.count {
                let action = queue.actions[queue.next]
                queue.next += 1
                try perform(action, in: txn)
            }
            let checks = queue.checks
            queue.checks = []
            var deleted = false
            for check in checks {
                switch try evaluate(check, in: txn) {
                case .deleted: deleted = true
                case .waiting: queue.checks.append(check)
                case .moot: break
                }
            }
            if !deleted { return }
        }
    }

    private func perform(_ action: CascadeQueue.Action, in txn: ReadWriteTransaction) throws {
        switch action {
        case .delete(let index):
            try txn.removeObject(forKey: index.key, inCollection: index.collection)
        case .nullify(let edge):
            let source = edge.source
            guard try txn.hasObject(forKey: source.key, inCollection: source.collection) else { return }
            var nullified = false
            for typeSource in sources[ExactString(source.collection)] ?? [] where try typeSource.nullify(txn, source, edge) {
                nullified = true
                break
            }
            if !nullified { try txn.touchObject(forKey: source.key, inCollection: source.collection) }
        case .touch(let index):
            try txn.touchObject(forKey: index.key, inCollection: index.collection)
        }
    }

    private enum CheckResult { case deleted, waiting, moot }

    private func evaluate(_ check: CascadeQueue.Check, in txn: ReadWriteTransaction) throws -> CheckResult {
        let node: YapDB.Index, edgeName: String, reversed: Bool
        switch check {
        case .noSourceLeft(let index, let name): (node, edgeName, reversed) = (index, name, true)
        case .noDestinationLeft(let index, let name): (node, edgeName, reversed) = (index, name, false)
        }
        guard try txn.hasObject(forKey: node.key, inCollection: node.collection) else { return .moot }
        for stored in try edges(withPrefix: Self.prefix(node, named: edgeName), reversed: reversed, in: txn.lmdb) {
            let other = reversed ? stored.edge.source : stored.edge.destination
            if try txn.hasObject(forKey: other.key, inCollection: other.collection) { return .waiting }
        }
        try txn.removeObject(forKey: node.key, inCollection: node.collection)
        return .deleted
    }

    /// The object at `index` was deleted: its own edges go, and the rules of every edge it was an
    /// end of are queued.
    private func removed(_ index: YapDB.Index, in txn: ReadWriteTransaction, cascade queue: CascadeQueue) throws {
        let lmdb = txn.lmdb
        let outgoing = try edges(withPrefix: Self.prefix(index), reversed: false, keepingKeys: true, in: lmdb)
        let incoming = try edges(withPrefix: Self.prefix(index), reversed: true, in: lmdb)
        for stored in try ownedEdges(of: index, outgoing: outgoing, in: lmdb) {
            try removeEntries(of: stored, in: lmdb)
            noteReferenceRemoved(to: stored.edge.destination, in: txn)
        }
        // An undo or redo puts back what the rules did when the step was made: no rule runs again.
        guard !txn.isRestoring else { return }
        for stored in outgoing {
            let edge = stored.edge
            if stored.owner != index { queue.actions.append(.delete(stored.owner)) }  // a manual edge whose end is gone
            if edge.rules.contains(.deleteDestinationWithSource) { queue.actions.append(.delete(edge.destination)) }
            if edge.rules.contains(.deleteDestinationWithLastSource) { queue.checks.append(.noSourceLeft(edge.destination, name: edge.name)) }
            if edge.rules.contains(.notifyDestination) { queue.actions.append(.touch(edge.destination)) }
        }
        for stored in incoming {
            let edge = stored.edge
            if stored.owner != edge.source { queue.actions.append(.delete(stored.owner)) }
            if edge.rules.contains(.deleteSourceWithDestination) { queue.actions.append(.delete(edge.source)) }
            if edge.rules.contains(.deleteSourceWithLastDestination) { queue.checks.append(.noDestinationLeft(edge.source, name: edge.name)) }
            if edge.rules.contains(.nullifySource) { queue.actions.append(.nullify(edge)) }
        }
    }

    // MARK: Garbage collection

    /// Asks for a collection at the end of the transaction when `destination` may have lost its
    /// last reference.
    private func noteReferenceRemoved(to destination: YapDB.Index, in txn: ReadWriteTransaction) {
        if garbageCollected.contains(ExactString(destination.collection)) { requestCollection(in: txn) }
    }

    private func requestCollection(in txn: ReadWriteTransaction) {
        guard definition.collectsAfterWrites, !garbageCollected.isEmpty, !txn.isRestoring else { return }
        writeState(in: txn).collectionRequested = true
    }

    func willFinish(in txn: ReadWriteTransaction) throws {
        // Deleting garbage may run rules that remove references again: repeat until it settles.
        guard let state = txn.extensionWork.existingState(of: parts, as: RelationshipsWriteState.self) else { return }
        while state.collectionRequested {
            state.collectionRequested = false
            _ = try collectGarbage(in: txn)
        }
    }

    /// Deletes the values of the garbage-collected collections that no root and no value outside
    /// them reaches through edges; returns what it deleted (not counting what rules then deleted).
    func collectGarbage(in txn: ReadWriteTransaction) throws -> [YapDB.Index] {
        let collected = garbageCollected
        guard !collected.isEmpty else { return [] }
        let lmdb = txn.lmdb
        var frontier: [YapDB.Index] = []
        for rootName in try txn.rootNames() {
            if let index = try txn.rootIndex(named: rootName) { frontier.append(index) }
        }
        try lmdb.forEachEntry(in: parts["forward"]) { key, value in
            let source = try Self.decode(key, rules: value, reversed: false).edge.source
            if !collected.contains(ExactString(source.collection)) { frontier.append(source) }
            return true
        }
        var reached = Set<YapDB.Index>()
        while let index = frontier.popLast() {
            guard reached.insert(index).inserted else { continue }
            for stored in try edges(withPrefix: Self.prefix(index), reversed: false, in: lmdb) where !reached.contains(stored.edge.destination) {
                frontier.append(stored.edge.destination)
            }
        }
        var garbage: [YapDB.Index] = []
        for collection in collected.sorted().lazy.map(\.string) {
            try txn.enumerateKeys(inCollection: collection) { key, _ in
                let index = YapDB.Index(collection: collection, key: key)
                if !reached.contains(index) { garbage.append(index) }
            }
        }
        var deleted: [YapDB.Index] = []
        for index in garbage where try txn.removeObject(forKey: index.key, inCollection: index.collection) {
            deleted.append(index)
        }
        return deleted
    }

    // MARK: Rebuilding and checking

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let collections = Set(sources.keys)
        let total = try txn.objectCount(in: collections)
        var done = 0
        progress(0, total)
        try txn.forEachObjectIndex(in: collections) { index in
            if let sources = sources[ExactString(index.collection)] {
                try replaceEdges(of: index, with: try links(of: index, from: sources, written: nil, in: txn), in: txn)
            }
            done += 1
            if done % 1024 == 0 { progress(done, total) }
        }
        progress(done, total)
    }

    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]? { nil }

    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]] {
        var contents: [String: [[UInt8]]] = [:]
        for part in Self.partNames { contents[part] = try parts.entries(of: part, in: txn.lmdb) }
        return contents
    }
}
