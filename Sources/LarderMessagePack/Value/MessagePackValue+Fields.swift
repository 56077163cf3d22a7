extension MessagePackValue {
    /// The value of a map's entry whose key is the string `name` (what a Codable struct's
    /// property `name` is encoded as); `nil` when the value is not a map or has no such entry.
    /// Setting a value replaces the entry, or appends one; setting `nil` removes it. Setting on a
    /// value that is not a map does nothing.
    ///
    /// ```swift
    /// var person = try MessagePackValue(reading: bytes)
    /// person["fullName"] = person["name"]
    /// person["name"] = nil
    /// ```
    public subscript(name: String) -> MessagePackValue? {
        get {
            guard case .map(let entries) = self else { return nil }
            let key = Array(name.utf8)
            return entries.first { $0.key == .string(key) }?.value
        }
        set {
            guard case .map(var entries) = self else { return }
            let key = Array(name.utf8)
            let position = entries.firstIndex { $0.key == .string(key) }
            switch (position, newValue) {
            case (let position?, let value?): entries[position].value = value
            case (let position?, nil): entries.remove(at: position)
            case (nil, let value?): entries.append(Entry(key: .string(key), value: value))
            case (nil, nil): return
            }
            self = .map(entries)
        }
    }
}
