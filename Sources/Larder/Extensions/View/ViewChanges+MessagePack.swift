import LarderMessagePack

// The change log records a view's changes of each commit as MessagePack. These write the bytes
// `MessagePackEncoder().encode(changes)` writes (the same keys in the same order, the same
// smallest forms, absent locations left out), without `Codable`'s per-property boxes: a commit
// that changes a few items of a view would otherwise spend more on this encoding than on the
// writes. `ViewChangesEncodingTests` compares the two on random changes.

extension ViewChanges {
    /// The MessagePack form of these changes, as ``ViewHandle/changes(in:)-(Changeset)`` decodes it.
    /// - Throws: `EncodingError.invalidValue` when a string has no MessagePack form (past 4 GiB).
    func messagePackBytes() throws -> [UInt8] {
        var writer = MessagePackFieldWriter(bytes: [])
        writer.bytes.reserveCapacity(32 + 64 * rows.count + 24 * sections.count)
        try writer.beginMap(count: 3)
        try writer.writeKey("rows")
        try writer.writeArrayHeader(rows.count)
        for row in rows { try row.write(to: &writer) }
        try writer.writeKey("sections")
        try writer.writeArrayHeader(sections.count)
        for section in sections {
            try writer.beginMap(count: 2)
            try writer.write(section.kind.rawValue, forKey: "kind")
            try writer.write(section.group, forKey: "group")
        }
        try writer.write(isReset, forKey: "isReset")
        return writer.bytes
    }
}

extension ViewChanges.RowChange {
    fileprivate func write(to writer: inout MessagePackFieldWriter) throws {
        try writer.beginMap(count: 2 + (from == nil ? 0 : 1) + (to == nil ? 0 : 1))
        try writer.write(kind.rawValue, forKey: "kind")
        try writer.writeKey("index")
        try writer.beginMap(count: 2)
        try writer.write(index.collection, forKey: "collection")
        try writer.write(index.key, forKey: "key")
        if let from {
            try writer.writeKey("from")
            try from.write(to: &writer)
        }
        if let to {
            try writer.writeKey("to")
            try to.write(to: &writer)
        }
    }
}

extension ViewLocation {
    fileprivate func write(to writer: inout MessagePackFieldWriter) throws {
        try writer.beginMap(count: 2)
        try writer.write(group, forKey: "group")
        try writer.write(position, forKey: "position")
    }
}
