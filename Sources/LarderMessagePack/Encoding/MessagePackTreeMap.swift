/// A map under construction in the fallback encoder; keeps keys in first-written
/// order and lets a later write to the same key replace the value.
final class MessagePackTreeMap {
    private(set) var keys: [String] = []
    private(set) var values: [MessagePackTreeSlot] = []
    private var indexByKey: [String: Int] = [:]

    /// Returns a fresh slot stored under `key`.
    func makeSlot(forKey key: String) -> MessagePackTreeSlot {
        let slot = MessagePackTreeSlot()
        if let index = indexByKey[key] {
            values[index] = slot
        } else {
            indexByKey[key] = keys.count
            keys.append(key)
            values.append(slot)
        }
        return slot
    }
}
