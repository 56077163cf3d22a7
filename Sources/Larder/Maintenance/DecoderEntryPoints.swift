/// The internal decoders of bytes that come from disk, for the fuzzing tool of this package
/// (`larder-fuzz`): each reads untrusted bytes and must throw, never crash.
package enum DecoderEntryPoints {
    /// A stored value as the store frames it (a format byte, then the payload), decoded as `T` by
    /// the Codable archivers.
    package static func framedValue<T: Decodable>(_ bytes: UnsafeRawBufferPointer, as type: T.Type) throws -> T {
        let value = try ValueFraming.unframe(bytes)
        return try CodableFormats.decode(T.self, from: value.payload, format: value.format, messagePack: MessagePackDecoder())
    }

    /// A change log entry (the `log` database).
    package static func changeLogEntry(_ bytes: UnsafeRawBufferPointer) throws {
        _ = try Changeset(logBytes: bytes)
    }

    /// A change log entry as the history reader reads it: the record of one index, without
    /// decoding the whole entry.
    package static func historyRecord(_ bytes: UnsafeRawBufferPointer) throws {
        for metadata in [false, true] {
            _ = try ChangeLog.record(of: YapDB.Index(collection: "c", key: "k"), metadata: metadata, commit: 1, in: bytes)
        }
    }

    /// An undo step (the `larder` database).
    package static func undoStep(_ bytes: UnsafeRawBufferPointer) throws {
        _ = try MessagePackDecoder().decode(StoredUndoStep.self, from: bytes)
    }

    /// A node and a header of a view's counted tree.
    package static func treeNode(_ bytes: UnsafeRawBufferPointer) throws {
        _ = try? CountedTreeHeader(decoding: [UInt8](bytes))
        _ = try CountedTreeNode(decoding: [UInt8](bytes), id: 1)
    }

    /// An extension record (the `larder` database).
    package static func extensionRecord(_ bytes: UnsafeRawBufferPointer) throws {
        _ = try MessagePackDecoder().decode(ExtensionRecord.self, from: bytes)
    }

    /// A full-text search's documents record (the `documents` part).
    package static func fullTextDocument(_ bytes: UnsafeRawBufferPointer) throws {
        _ = try FullTextDocumentRecord(decoding: bytes)
    }

    /// A node of a spatial index's R-tree (the `nodes` part).
    package static func spatialNode(_ bytes: UnsafeRawBufferPointer) throws {
        _ = try SpatialNode(decoding: bytes, id: 1)
    }

    /// A relationships edge: the bytes as its key, then its last byte as its rules, each way.
    package static func relationshipEdge(_ bytes: UnsafeRawBufferPointer) throws {
        let split = max(bytes.count - 1, 0)
        let key = UnsafeRawBufferPointer(rebasing: bytes[..<split])
        let rules = UnsafeRawBufferPointer(rebasing: bytes[split...])
        _ = try? RelationshipsRuntime.decode(key, rules: rules, reversed: false)
        _ = try RelationshipsRuntime.decode(key, rules: rules, reversed: true)
    }

    /// A commit a replica receives from its primary (bytes from another machine).
    package static func replicatedCommit(_ bytes: UnsafeRawBufferPointer) throws {
        _ = try ReplicatedCommit(decoding: bytes)
    }
}
