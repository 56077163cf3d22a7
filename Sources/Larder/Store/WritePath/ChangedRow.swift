/// What changed at one index. A written value comes with the archiver that wrote it, so that
/// nobody need decode what was just encoded.
///
/// A class: every participant of the transaction is handed the same row, and passing one
/// reference costs one retain where copying the fields would retain each of them.
final class ChangedRow {
    let index: YapDB.Index
    /// What became of the object; `nil`: nothing.
    let object: ValueChange?
    /// What became of the metadata; `nil`: nothing.
    let metadata: ValueChange?
    /// The object written, when ``object`` is ``ValueChange/written``, boxed as the type it was
    /// written as (the cache keeps the box; an extension takes the value out as its type).
    let writtenObjectBox: CachedValueBox?
    /// The archiver that wrote ``writtenObjectBox``.
    let objectArchiver: (any Archiver)?
    /// The metadata value written, when ``metadata`` is ``ValueChange/written``, boxed.
    let metadataBox: CachedValueBox?
    /// The archiver that wrote ``metadataBox``.
    let metadataArchiver: (any Archiver)?
    /// Whether this change created the object: there was none at the index just before (so
    /// nothing derived from an earlier object there, such as its edges, can exist).
    let createdObject: Bool
    /// The object's bytes as just stored (framing included), when ``object`` is
    /// ``ValueChange/written``: what a participant that keeps stored images (undo) would read back.
    let storedObject: [UInt8]?
    /// The metadata's bytes as just stored, when ``metadata`` is ``ValueChange/written``.
    let storedMetadata: [UInt8]?

    init(index: YapDB.Index, object: ValueChange?, metadata: ValueChange?,
         writtenObject: CachedValueBox? = nil, objectArchiver: (any Archiver)? = nil,
         metadataValue: CachedValueBox? = nil, metadataArchiver: (any Archiver)? = nil, createdObject: Bool = false,
         storedObject: [UInt8]? = nil, storedMetadata: [UInt8]? = nil) {
        self.storedObject = storedObject
        self.storedMetadata = storedMetadata
        self.index = index
        self.object = object
        self.metadata = metadata
        self.writtenObjectBox = writtenObject
        self.objectArchiver = objectArchiver
        self.metadataBox = metadataValue
        self.metadataArchiver = metadataArchiver
        self.createdObject = createdObject
    }

    /// `object` written by `archiver`.
    static func written<A: Archiver>(object: A.Value, by archiver: A, at index: YapDB.Index, stored: [UInt8]) -> ChangedRow {
        ChangedRow(index: index, object: .written, metadata: nil, writtenObject: CachedValue(object), objectArchiver: archiver, storedObject: stored)
    }

    /// `metadata` written by `archiver`.
    static func written<A: Archiver>(metadata: A.Value, by archiver: A, at index: YapDB.Index, stored: [UInt8]) -> ChangedRow {
        ChangedRow(index: index, object: nil, metadata: .written, metadataValue: CachedValue(metadata), metadataArchiver: archiver, storedMetadata: stored)
    }
}
