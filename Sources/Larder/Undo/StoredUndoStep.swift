import Foundation

/// One undo step as stored: its name, when it was recorded, and for each index it changed the
/// stored bytes (format byte included) of the object and the metadata before and after.
struct StoredUndoStep: Codable, Equatable {
    struct Entry: Codable, Equatable {
        var collection: String
        var key: String
        // The images as stored (MessagePack `bin`, as `Data` is in the Codable form).
        var objectBefore: [UInt8]?
        var objectAfter: [UInt8]?
        var metadataBefore: [UInt8]?
        var metadataAfter: [UInt8]?

        init(_ index: YapDB.Index, before: StoredImage, after: StoredImage) {
            collection = index.collection
            key = index.key
            objectBefore = before.object
            objectAfter = after.object
            metadataBefore = before.metadata
            metadataAfter = after.metadata
        }

        private enum CodingKeys: String, CodingKey {
            case collection, key, objectBefore, objectAfter, metadataBefore, metadataAfter
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            collection = try container.decode(String.self, forKey: .collection)
            key = try container.decode(String.self, forKey: .key)
            objectBefore = try container.decodeIfPresent(Data.self, forKey: .objectBefore).map { [UInt8]($0) }
            objectAfter = try container.decodeIfPresent(Data.self, forKey: .objectAfter).map { [UInt8]($0) }
            metadataBefore = try container.decodeIfPresent(Data.self, forKey: .metadataBefore).map { [UInt8]($0) }
            metadataAfter = try container.decodeIfPresent(Data.self, forKey: .metadataAfter).map { [UInt8]($0) }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(collection, forKey: .collection)
            try container.encode(key, forKey: .key)
            try container.encodeIfPresent(objectBefore.map { Data($0) }, forKey: .objectBefore)
            try container.encodeIfPresent(objectAfter.map { Data($0) }, forKey: .objectAfter)
            try container.encodeIfPresent(metadataBefore.map { Data($0) }, forKey: .metadataBefore)
            try container.encodeIfPresent(metadataAfter.map { Data($0) }, forKey: .metadataAfter)
        }

        var index: YapDB.Index { YapDB.Index(collection: collection, key: key) }
        var changesNothing: Bool { objectBefore == objectAfter && metadataBefore == metadataAfter }
    }

    var name: String
    /// When it was recorded (a MessagePack timestamp, like the change log's times).
    var time: Date
    var entries: [Entry]
    /// The token of the group that made it, if a group did (see ``UndoGroup``).
    var group: String? = nil

    /// Adds the changes of a later write: an index already here keeps its image before and takes
    /// the later image after. Entries that end where they began are dropped.
    mutating func merge(_ later: [Entry]) {
        var positions: [YapDB.Index: Int] = [:]
        for (position, entry) in entries.enumerated() { positions[entry.index] = position }
        for entry in later {
            if let position = positions[entry.index] {
                entries[position].objectAfter = entry.objectAfter
                entries[position].metadataAfter = entry.metadataAfter
            } else {
                positions[entry.index] = entries.count
                entries.append(entry)
            }
        }
        entries.removeAll { $0.changesNothing }
    }
}

extension StoredUndoStep {
    /// The step as MessagePack: exactly the bytes of its `Codable` form (a test compares them),
    /// written straight from the images without `Codable`'s per-field work or a `Data` copy of
    /// each image (callgrind: ~9,000 instructions per entry less, row 13 of larder-bench).
    func messagePackBytes() throws -> [UInt8] {
        var writer = MessagePackWriter()
        var size = 64 + name.utf8.count
        for entry in entries {
            size += 96 + entry.collection.utf8.count + entry.key.utf8.count
            for image in [entry.objectBefore, entry.objectAfter, entry.metadataBefore, entry.metadataAfter] { size += image?.count ?? 0 }
        }
        writer.bytes.reserveCapacity(size)
        _ = writer.writeMapHeader(group == nil ? 3 : 4)
        try Self.write("name", name, into: &writer)
        _ = writer.writeString("time")
        guard let (seconds, nanoseconds) = MessagePackTimestamp.components(of: time) else {
            throw LarderError(.encodingFailed, "the undo step's time cannot be stored", operation: "undo")
        }
        writer.writeTimestamp(seconds: seconds, nanoseconds: nanoseconds)
        _ = writer.writeString("entries")
        guard writer.writeArrayHeader(entries.count) else { throw LarderError(.encodingFailed, "an undo step has too many entries", operation: "undo") }
        for entry in entries {
            var fields = 2
            if entry.objectBefore != nil { fields += 1 }
            if entry.objectAfter != nil { fields += 1 }
            if entry.metadataBefore != nil { fields += 1 }
            if entry.metadataAfter != nil { fields += 1 }
            _ = writer.writeMapHeader(fields)
            try Self.write("collection", entry.collection, into: &writer)
            try Self.write("key", entry.key, into: &writer)
            try Self.write("objectBefore", entry.objectBefore, of: entry, into: &writer)
            try Self.write("objectAfter", entry.objectAfter, of: entry, into: &writer)
            try Self.write("metadataBefore", entry.metadataBefore, of: entry, into: &writer)
            try Self.write("metadataAfter", entry.metadataAfter, of: entry, into: &writer)
        }
        if let group { try Self.write("group", group, into: &writer) }
        return writer.bytes
    }

    /// Writes `image` under `key`, nothing when it is absent.
    @inline(__always)
    private static func write(_ key: String, _ image: [UInt8]?, of entry: Entry, into writer: inout MessagePackWriter) throws {
        guard let image else { return }
        _ = writer.writeString(key)
        guard image.withUnsafeBytes({ writer.writeBinary($0) }) else {
            throw LarderError(.encodingFailed, "a stored value is too large for an undo step", operation: "undo", index: entry.index)
        }
    }

    private static func write(_ key: String, _ value: String, into writer: inout MessagePackWriter) throws {
        _ = writer.writeString(key)
        guard writer.writeString(value) else { throw LarderError(.encodingFailed, "a string is too long for an undo step", operation: "undo") }
    }
}
