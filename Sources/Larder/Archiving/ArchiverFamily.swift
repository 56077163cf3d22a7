/// An archiver that brings others with it into the collection it is registered for: a
/// ``PolymorphicArchiver`` brings one archiver per concrete type, and keeps values of its base
/// type whose concrete type it does not know out of the collection.
protocol ArchiverFamily: Sendable {
    /// The archivers to register beside this one, with the type each archives.
    var memberArchivers: [(type: ObjectIdentifier, archiver: any Sendable)] { get }
    /// The error for writing `value`, whose type has no archiver registered in the collection,
    /// when the family claims it; `nil` when it does not.
    func refusal(toArchive value: Any) -> LarderError?
}
