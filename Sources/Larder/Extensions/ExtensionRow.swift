/// What changed at one index, with the values written when the write knew them (so that an
/// extension need not decode what was just encoded).
struct ExtensionRow {
    let index: YapDB.Index
    let objectChanged: Bool
    let metadataChanged: Bool
    /// The object written, when the change wrote one.
    let writtenObject: Any?
    /// The metadata written (`.some(nil)`: removed), when the change wrote or removed it.
    let writtenMetadata: Any??
}
