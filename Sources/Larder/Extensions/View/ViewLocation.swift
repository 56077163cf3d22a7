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

    /// Whether the two are one location: the groups have the same UTF-8 bytes (two groups that
    /// Swift's `String ==` calls equal are two groups of the view) and the positions are equal.
    public static func == (a: ViewLocation, b: ViewLocation) -> Bool {
        a.position == b.position && ExactString.bytesEqual(a.group, b.group)
    }

    /// Hashes the group's bytes and the position, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        ExactString.hashBytes(of: group, into: &hasher)
        hasher.combine(position)
    }
}
