#if Extras
/// How `@Archived(layout:)` writes a type's map.
public enum ArchivedLayout: Sendable {
    /// Each entry under its field's name, as `Codable` writes it (what ``Archived()`` writes).
    case named
    /// Each entry under its field's number, the `Int` raw value of its `CodingKeys` case.
    case numbered
}
#endif
