/// What changed at one index. A written value comes with the archiver that wrote it, so that
/// nobody need decode what was just encoded.
struct ChangedRow {
    let index: YapDB.Index
    /// What became of the object; `nil`: nothing.
    let object: ValueChange?
    /// What became of the metadata; `nil`: nothing.
    let metadata: ValueChange?
    /// The object written, when ``object`` is ``ValueChange/written``.
    let writtenObject: Any?
    /// The archiver that wrote ``writtenObject``.
    let objectArchiver: (any Archiver)?
    /// The metadata value written, when ``metadata`` is ``ValueChange/written``.
    let metadataValue: Any?
    /// The archiver that wrote ``metadataValue``.
    let metadataArchiver: (any Archiver)?
    /// Whether this change created the object: there was none at the index just before (so
    /// nothing derived from an earlier object there, such as its edges, can exist).
    let createdObject: Bool

    init(index: YapDB.Index, object: ValueChange?, metadata: ValueChange?,
         writtenObject: Any? = nil, objectArchiver: (any Archiver)? = nil,
         metadataValue: Any? = nil, metadataArchiver: (any Archiver)? = nil, createdObject: Bool = false) {
        self.index = index
        self.object = object
        self.metadata = metadata
        self.writtenObject = writtenObject
        self.objectArchiver = objectArchiver
        self.metadataValue = metadataValue
        self.metadataArchiver = metadataArchiver
        self.createdObject = createdObject
    }

    /// `object` written by `archiver`.
    static func written<A: Archiver>(object: A.Value, by archiver: A, at index: YapDB.Index) -> ChangedRow {
        ChangedRow(index: index, object: .written, metadata: nil, writtenObject: object, objectArchiver: archiver)
    }

    /// `metadata` written by `archiver`.
    static func written<A: Archiver>(metadata: A.Value, by archiver: A, at index: YapDB.Index) -> ChangedRow {
        ChangedRow(index: index, object: nil, metadata: .written, metadataValue: metadata, metadataArchiver: archiver)
    }
}
