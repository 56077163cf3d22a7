import Foundation

/// One undo step as stored: its name, when it was recorded, and for each index it changed the
/// stored bytes (format byte included) of the object and the metadata before and after.
struct StoredUndoStep: Codable, Equatable {
    struct Entry: Codable, Equatable {
        var collection: String
        var key: String
        var objectBefore: Data?
        var objectAfter: Data?
        var metadataBefore: Data?
        var metadataAfter: Data?

        init(_ index: YapDB.Index, before: StoredImage, after: StoredImage) {
            collection = index.collection
            key = index.key
            objectBefore = before.object.map { Data($0) }
            objectAfter = after.object.map { Data($0) }
            metadataBefore = before.metadata.map { Data($0) }
            metadataAfter = after.metadata.map { Data($0) }
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
