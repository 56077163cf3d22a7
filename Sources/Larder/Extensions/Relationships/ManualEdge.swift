/// An edge added by hand, stored as an object in the extension's manual-edges collection (so
/// that it is data like any other: in changesets, in the log, restored by a rebuild).
struct ManualEdge: Codable {
    var name: String
    var source: YapDB.Index
    var destination: YapDB.Index
    var rules: DeleteRules

    /// The key of the edge `name` from `source` to `destination`: lengths then bytes, so that no
    /// two edges share a key whatever their strings contain.
    static func key(name: String, source: YapDB.Index, destination: YapDB.Index) -> String {
        [name, source.collection, source.key, destination.collection, destination.key]
            .map { "\($0.utf8.count):\($0)" }
            .joined(separator: "|")
    }
}
