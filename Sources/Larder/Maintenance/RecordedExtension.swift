/// An extension as the store records it: what ``Database/recordedExtensions()`` lists.
///
/// The record is written by registration in any process; it outlives the process, so tools can
/// list the extensions of a store without registering them (which they cannot do: an extension's
/// closures live in the program that defines it).
public struct RecordedExtension: Sendable, Hashable {
    /// The name it was registered under.
    public let name: String
    /// Its kind: `view`, `filteredView`, `secondaryIndex`, `relationships`, `fullTextSearch`, or
    /// the kind name of a newer extension.
    public let kind: String
    /// The version tag it was last built with.
    public let versionTag: String
    /// The collections it reads, `nil` for every collection.
    public let collections: [String]?
    /// The extensions it is built from (a filtered view's view).
    public let dependencies: [String]
    /// Whether a write made without it registered (or a rebuilt dependency) left it out of date:
    /// the next registration rebuilds it, whatever its tag.
    public let isStale: Bool
    /// Whether this process has it registered (``Database/registeredExtensions``).
    public let isRegisteredInThisProcess: Bool
}
