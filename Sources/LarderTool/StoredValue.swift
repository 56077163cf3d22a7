#if Extras
import Larder

/// A stored value as the tool handles it: the format byte and the payload after it, copied out of
/// the store, never decoded as a Swift type.
struct StoredValue: Equatable {
    var format: ArchiveFormat
    var payload: [UInt8]
    /// The version of its collection's values it was written at (0: none recorded; see
    /// `ValueMigrations`), kept by export and import.
    var version: Int = 0
}

/// Reads and writes ``StoredValue``s through the library's ordinary write path (changesets,
/// counts, extensions and the change log all see the write), storing the payload exactly as
/// given behind the archiver's format byte.
struct StoredValueArchiver: Archiver {
    /// The format byte written in front of the payload.
    let format: ArchiveFormat

    init(format: ArchiveFormat) {
        self.format = format
    }

    func archive(_ value: StoredValue, into bytes: inout [UInt8]) throws {
        bytes.append(contentsOf: value.payload)
    }

    func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> StoredValue {
        StoredValue(format: format, payload: [UInt8](bytes))
    }
}

extension ReadWriteTransaction {
    /// Stores `object` and `metadata` (`nil`: none) at (`collection`, `key`) byte for byte, with
    /// the versions they record.
    func setStored(_ object: StoredValue, metadata: StoredValue?, forKey key: String, inCollection collection: String) throws {
        try withStoredVersions(object: object.version, metadata: metadata?.version ?? 0) {
            try setObject(
                object, forKey: key, inCollection: collection, archiver: StoredValueArchiver(format: object.format),
                metadata: metadata, metadataArchiver: StoredValueArchiver(format: metadata?.format ?? .messagePack))
        }
    }
}

extension ReadTransaction {
    /// Whether any object (`object`) and any metadata value (`metadata`) of `collection` is
    /// stored at a version of its collection's values (see `ValueMigrations`): where they are,
    /// the tools ask which version a value they write is at.
    func carriesVersions(inCollection collection: String) throws -> (object: Bool, metadata: Bool) {
        (try storedVersions(inCollection: collection).keys.contains { $0 > 0 },
         try storedVersions(inCollection: collection, metadata: true).keys.contains { $0 > 0 })
    }
}
#endif
