/// Ascending or descending order of query results (named so that it does not shadow
/// Foundation's `SortOrder`).
public enum IndexOrder: Sendable, Hashable {
    /// Smallest columns first (by ``TupleKey`` order), then by collection and key.
    case ascending
    /// Largest columns first: the ascending order reversed.
    case descending
}

/// The former name of ``IndexOrder``, which shadowed Foundation's `SortOrder`.
@available(*, deprecated, renamed: "IndexOrder", message: "SortOrder was renamed IndexOrder so that it does not shadow Foundation.SortOrder")
public typealias SortOrder = IndexOrder
