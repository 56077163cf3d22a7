/// The item keys of one object in a list (a view or a filtered view): none, one (the common
/// case, held without an array of arrays), or several, in byte order and each once, when the
/// view's grouping puts the object in several groups.
enum ItemKeys: Equatable, Sendable {
    case none
    case one([UInt8])
    case several([[UInt8]])

    /// The keys `keys` make: sorted by bytes, each once.
    init(_ keys: [[UInt8]]) {
        switch keys.count {
        case 0: self = .none
        case 1: self = .one(keys[0])
        default:
            var sorted = keys
            sorted.sort { a, b in a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { CountedTreeBytes.compare(a, $0) < 0 } } }
            var previous: [UInt8]?
            sorted.removeAll { key in
                defer { previous = key }
                return key == previous
            }
            self = sorted.count == 1 ? .one(sorted[0]) : .several(sorted)
        }
    }

    /// One key, or none.
    init(_ key: [UInt8]?) {
        self = key.map { .one($0) } ?? .none
    }

    /// The keys, in byte order.
    var all: [[UInt8]] {
        switch self {
        case .none: []
        case .one(let key): [key]
        case .several(let keys): keys
        }
    }

    /// How many keys.
    var count: Int {
        switch self {
        case .none: 0
        case .one: 1
        case .several(let keys): keys.count
        }
    }

    /// The pairs of keys that a change from `old` to `new` moves an item between, `nil` on a side
    /// where the item is not. With at most one key on each side the two are one pair, whatever
    /// their groups (an item whose group changed moves); with more, keys pair up by group, so
    /// that an item leaving one of its groups is a removal there and one entering a group is an
    /// insertion there.
    static func pairs(from old: ItemKeys, to new: ItemKeys) -> [(old: [UInt8]?, new: [UInt8]?)] {
        switch (old, new) {
        case (.none, .none): return []
        case (.none, .one(let key)): return [(nil, key)]
        case (.one(let key), .none): return [(key, nil)]
        case (.one(let a), .one(let b)): return [(a, b)]
        case (.none, .several(let keys)): return keys.map { (nil, $0) }
        case (.several(let keys), .none): return keys.map { ($0, nil) }
        default:
            // Both sides are in byte order, and an item key starts with its group (a
            // self-delimiting string), so they are in group order too: one merge pairs them.
            let oldKeys = old.all
            let newKeys = new.all
            var pairs: [(old: [UInt8]?, new: [UInt8]?)] = []
            pairs.reserveCapacity(max(oldKeys.count, newKeys.count))
            var o = 0
            var n = 0
            while o < oldKeys.count || n < newKeys.count {
                guard o < oldKeys.count else {
                    pairs.append((nil, newKeys[n]))
                    n += 1
                    continue
                }
                guard n < newKeys.count else {
                    pairs.append((oldKeys[o], nil))
                    o += 1
                    continue
                }
                let oldGroup = Self.groupPrefix(of: oldKeys[o])
                let newGroup = Self.groupPrefix(of: newKeys[n])
                if oldGroup == newGroup {
                    pairs.append((oldKeys[o], newKeys[n]))
                    o += 1
                    n += 1
                } else if oldGroup.lexicographicallyPrecedes(newGroup) {
                    pairs.append((oldKeys[o], nil))
                    o += 1
                } else {
                    pairs.append((nil, newKeys[n]))
                    n += 1
                }
            }
            return pairs
        }
    }

    /// The encoded group at the start of an item key (its first tuple component: the string type
    /// byte, the escaped UTF-8, the `0x00` terminator), without decoding it.
    static func groupPrefix(of itemKey: [UInt8]) -> ArraySlice<UInt8> {
        var position = 1
        while position < itemKey.count {
            if itemKey[position] == 0 {
                // 0x00 0xFF is an escaped NUL inside the string; a lone 0x00 ends it.
                if position + 1 < itemKey.count, itemKey[position + 1] == 0xFF {
                    position += 2
                    continue
                }
                return itemKey[..<(position + 1)]
            }
            position += 1
        }
        return itemKey[...]
    }
}
