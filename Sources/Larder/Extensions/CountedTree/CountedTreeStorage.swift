/// Where a counted tree keeps its nodes: bytes by node id.
///
/// Node id 0 is reserved for the tree's header (root id, height, count, next free id), which the
/// tree writes itself. The tree never holds on to bytes a storage lends across a write: `node(_:)`
/// returns an array the tree owns (a copy, for LMDB), which the tree parses in place and may edit
/// and store again, so a storage may hand out copies of pages that a later write invalidates.
///
/// Removing a node that is not stored is not an error.
protocol CountedTreeStorage {
    /// The bytes of node `id`, or nil when there is no such node.
    func node(_ id: UInt64) throws -> [UInt8]?
    /// Stores `bytes` as node `id`, replacing what was there.
    func setNode(_ id: UInt64, _ bytes: [UInt8]) throws
    /// Removes node `id`; does nothing when it is absent.
    func removeNode(_ id: UInt64) throws
    /// Every stored node id, the header's included, or nil when the storage cannot list them.
    ///
    /// Only ``CountedTree/checkStructure()`` (to find nodes that nothing references) and
    /// ``CountedTree/removeAll()`` (to clear a tree even when its structure is damaged) use it;
    /// the default answers nil.
    func nodeIDs() throws -> [UInt64]?
}

extension CountedTreeStorage {
    func nodeIDs() throws -> [UInt64]? { nil }
}
