// What tools that show a changeset without knowing its writers' types need: the commit
// information and the extensions' change payloads as MessagePack values rather than decoded Swift
// values (the `larder log` command prints them as JSON).

extension Changeset {
    /// The commit information attached by ``ReadWriteTransaction/setCommitInfo(_:)``, each value
    /// as the MessagePack bytes its `Encodable` produced: one per transaction that attached one,
    /// in commit order. For programs that do not know the writers' types (``commitInfo(as:)``
    /// decodes them as one); read each with `MessagePackValue(reading:)`.
    ///
    /// ```swift
    /// for info in changeset.encodedCommitInfo {
    ///     print(try MessagePackValue(reading: info))
    /// }
    /// ```
    public var encodedCommitInfo: [[UInt8]] { commitInfos }

    /// The names of the extensions that recorded changes in this changeset, in UTF-8 byte order
    /// (two names that Swift's `String ==` calls equal are two extensions, both listed).
    public var extensionsWithChanges: [String] {
        extensionPayloads.keys.sorted().map(\.string)
    }

    /// What the extension `name` recorded, one payload per commit that had any, in commit order,
    /// as the extension encoded it (MessagePack for Larder's own extensions); empty when it
    /// recorded nothing. A payload that is the MessagePack string `"dropped"` stands for changes
    /// dropped to bound a slow observer's buffer.
    public func encodedExtensionChanges(named name: String) -> [[UInt8]] {
        extensionChanges(named: name)
    }
}
