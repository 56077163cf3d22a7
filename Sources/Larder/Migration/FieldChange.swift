/// A change to the fields of a stored struct, as a ``MigrationStep`` makes it: the steps a
/// type's evolution is usually made of, which the `larder migrate` command can also apply.
///
/// A Codable struct is stored as a MessagePack map from property names to values; these work on
/// that map. A value that is not a map (or not MessagePack) fails the step with
/// ``LarderError/Code/migrationFailed``.
public enum FieldChange: Sendable, Equatable {
    /// The field `old` is called `new` from now on (nothing happens when there is no `old`).
    case rename(String, to: String)
    /// The field `name` is added with `value` (a field already there is left as it is).
    case add(String, value: MessagePackValue)
    /// The field `name` goes.
    case remove(String)

    /// Applies the change to `value`, a map.
    func apply(to value: inout MessagePackValue) {
        switch self {
        case .rename(let old, let new):
            guard let moved = value[old] else { return }
            value[old] = nil
            value[new] = moved
        case .add(let name, let added):
            if value[name] == nil { value[name] = added }
        case .remove(let name):
            value[name] = nil
        }
    }
}
