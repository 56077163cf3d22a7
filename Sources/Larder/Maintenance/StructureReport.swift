/// What ``Database/checkStructure()`` checked and found.
public struct StructureReport: Sendable, Hashable {
    /// The problems found, at most ``StructureReport/problemLimit`` of them.
    public let problems: [StructureProblem]
    /// How many problems there are in all (more than ``problems`` holds when it hit the limit).
    public let problemCount: Int
    /// The objects checked.
    public let objectsChecked: Int
    /// The metadata values checked.
    public let metadataChecked: Int
    /// The collections whose counts were checked.
    public let collectionsChecked: Int
    /// The change log entries checked.
    public let changeLogEntriesChecked: Int
    /// The extension records checked (their state is checked by ``Database/verifyExtensions()``,
    /// which needs them registered).
    public let extensionRecordsChecked: Int
    /// The pages of the data file verified before anything else was read (meta and overflow
    /// pages included).
    public let pagesChecked: Int

    /// Whether the check found nothing wrong.
    public var isConsistent: Bool { problemCount == 0 }

    /// The most problems a report lists.
    public static let problemLimit = 1000
}
