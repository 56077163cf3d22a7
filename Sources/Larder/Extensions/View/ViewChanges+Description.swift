// What a view's changes print: one line a person can read in a log or a test failure, instead of
// the nested structs' default dump.

extension ViewChanges: CustomStringConvertible {
    /// `reset`, `no changes`, or the sections and rows, `; `-separated:
    /// `insert section tools; insert items/k1 at tools[0]; move items/k2 tools[3] → garden[0]`.
    public var description: String {
        if isReset { return "reset" }
        let parts = sections.map(\.description) + rows.map(\.description)
        return parts.isEmpty ? "no changes" : parts.joined(separator: "; ")
    }
}

extension ViewChanges.RowChange: CustomStringConvertible {
    /// `insert items/k1 at tools[0]`, `delete items/k1 from tools[2]`,
    /// `move items/k1 tools[2] → garden[0]`, `update items/k1 at tools[3]`.
    public var description: String {
        let from = self.from.map(\.description) ?? "?"
        let to = self.to.map(\.description) ?? "?"
        switch kind {
        case .insert: return "insert \(index) at \(to)"
        case .delete: return "delete \(index) from \(from)"
        case .move: return "move \(index) \(from) → \(to)"
        case .update: return "update \(index) at \(to)"
        }
    }
}

extension ViewChanges.SectionChange: CustomStringConvertible {
    /// `insert section tools` or `delete section tools`.
    public var description: String { "\(kind.rawValue) section \(group)" }
}
