/// The changes a write transaction has made to one view's tree and group counts and not yet
/// applied: applied together, the tree's in key order, before anything reads the list and before
/// the commit (see ``ListRuntime/settle(in:)``), so that the items of one leaf cost one descent
/// and one write, and a group's count one read and one write.
struct PendingTreeChanges {
    /// The changes in the order they were made; a key may appear more than once.
    private var log: [CountedTreeChange] = []
    /// About what the log holds in memory.
    private(set) var bytes = 0
    /// The change of each group's count, by the group's encoding at the start of its item keys
    /// (``ItemKeys/groupPrefix(of:)``: a slice of an item key, not a copy); turned into the
    /// `groups` database's keys once per group when the changes are applied.
    private(set) var groupCounts: [GroupPrefix: Int] = [:]

    /// A group's encoding at the start of its item keys, hashed and compared as raw bytes (an
    /// `ArraySlice`'s own hashing feeds the hasher one element at a time).
    struct GroupPrefix: Hashable {
        let bytes: ArraySlice<UInt8>

        static func == (a: GroupPrefix, b: GroupPrefix) -> Bool {
            a.bytes.count == b.bytes.count && CountedTreeBytes.compare(a.bytes, b.bytes) == 0
        }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Adds `change` to the count of the group whose item keys start with `groupPrefix`.
    mutating func changeCount(ofGroupPrefix groupPrefix: ArraySlice<UInt8>, by change: Int) {
        groupCounts[GroupPrefix(bytes: groupPrefix), default: 0] += change
    }

    /// Notes that `key` must be in the tree (`present`) or out of it, replacing what an earlier
    /// change said of the same key; returns ``bytes`` after it.
    @discardableResult
    mutating func add(_ key: [UInt8], present: Bool) -> Int {
        log.append(CountedTreeChange(key: key, present: present))
        bytes += key.count + MemoryLayout<CountedTreeChange>.stride
        return bytes
    }

    /// The changes to apply: for each key the last one made, ascending by key.
    func netted() -> [CountedTreeChange] {
        var order = Array(log.indices)
        // Ties (one key changed more than once) keep the order they were made in.
        order.sort { a, b in
            let order = log[a].key.withUnsafeBufferPointer { a in
                log[b].key.withUnsafeBufferPointer { b in CountedTreeBytes.compare(a, b) }
            }
            return order != 0 ? order < 0 : a < b
        }
        var netted: [CountedTreeChange] = []
        netted.reserveCapacity(order.count)
        for position in order {
            let change = log[position]
            if let last = netted.last, last.key == change.key {
                netted[netted.count - 1] = change
            } else {
                netted.append(change)
            }
        }
        return netted
    }
}
