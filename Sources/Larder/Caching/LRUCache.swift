/// A least-recently-used cache with O(1) lookup, insertion and removal: a dictionary of slots
/// into an array of nodes linked in recency order, with freed slots reused.
struct LRUCache<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value?
        var newer = -1
        var older = -1
    }

    private var nodes: [Node] = []
    private var slots: [Key: Int] = [:]
    private var free: [Int] = []
    private var newest = -1
    private var oldest = -1

    /// The most entries kept; 0 keeps none. Lowering it evicts the oldest entries at once.
    var limit: Int {
        didSet {
            limit = max(0, limit)
            while slots.count > limit { evictOldest() }
        }
    }

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    var count: Int { slots.count }

    /// The value for `key`, which becomes the most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        moveToNewest(slot)
        return nodes[slot].value
    }

    /// Whether `key` is cached, without changing its recency.
    func contains(_ key: Key) -> Bool { slots[key] != nil }

    /// Stores `value` for `key` as the most recently used, evicting the oldest beyond the limit.
    mutating func set(_ value: Value, for key: Key) {
        guard limit > 0 else { return }
        let fresh = free.last ?? nodes.count
        var existing = -1
        // One hash lookup for both cases: claim `fresh` for a new key, or find the old slot.
        { (slot: inout Int) in
            if slot < 0 { slot = fresh } else { existing = slot }
        }(&slots[key, default: -1])
        if existing >= 0 {
            nodes[existing].value = value
            moveToNewest(existing)
            return
        }
        if fresh == nodes.count {
            nodes.append(Node(key: key, value: value))
        } else {
            free.removeLast()
            nodes[fresh] = Node(key: key, value: value)
        }
        linkAsNewest(fresh)
        if slots.count > limit { evictOldest() }
    }

    mutating func removeValue(for key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        release(slot)
    }

    mutating func removeAll(where shouldRemove: (Key) -> Bool) {
        for (key, slot) in slots where shouldRemove(key) {
            slots[key] = nil
            release(slot)
        }
    }

    mutating func removeAll() {
        nodes.removeAll()
        slots.removeAll()
        free.removeAll()
        newest = -1
        oldest = -1
    }

    /// Keys from the most to the least recently used (for tests).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = newest
        while slot >= 0 {
            keys.append(nodes[slot].key)
            slot = nodes[slot].older
        }
        return keys
    }

    private mutating func evictOldest() {
        guard oldest >= 0 else { return }
        let slot = oldest
        slots[nodes[slot].key] = nil
        release(slot)
    }

    private mutating func release(_ slot: Int) {
        unlink(slot)
        nodes[slot].value = nil
        free.append(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = -1
        nodes[slot].older = -1
    }

    private mutating func linkAsNewest(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private mutating func moveToNewest(_ slot: Int) {
        guard newest != slot else { return }
        unlink(slot)
        linkAsNewest(slot)
    }
}
