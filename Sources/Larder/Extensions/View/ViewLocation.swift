/// Where an item of a view is: its group and its position in the group (from 0).
public struct ViewLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The group.
    public var group: String
    /// The position in the group, from 0.
    public var position: Int

    /// The location `position` in `group`.
    public init(group: String, position: Int) {
        self.group = group
        self.position = position
    }

    /// `group[position]`.
    public var description: String { "\(group)[\(position)]" }
}
