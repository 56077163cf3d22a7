/// Which entries of a secondary index a query selects, by the values of its columns.
public struct IndexQuery: Sendable, Hashable {
    /// Entries with keys in [lower, upper); `upper` `nil`: to the end.
    let lower: [UInt8]
    let upper: [UInt8]?

    /// Every entry.
    public static let all = IndexQuery(lower: [], upper: nil)

    /// Entries whose leading columns equal `columns` (all columns, or the first few).
    /// - Complexity: O(m) for the m bytes of `columns`; building a query reads nothing.
    public static func equal(_ columns: TupleKey) -> IndexQuery {
        let prefix = columns.bytes
        return IndexQuery(lower: prefix, upper: KeyRange.successor(of: prefix))
    }

    /// Entries whose leading columns equal `leading` and whose next column lies between `from`
    /// and `to` (either may be `nil`: unbounded); `from` is included unless `fromInclusive` is
    /// `false`, `to` is excluded unless `toInclusive` is `true`.
    ///
    /// ```swift
    /// .range(where: TupleKey("tools"), from: 10.0, to: 20.0)   // category == "tools", 10 <= price < 20
    /// ```
    ///
    /// Bounds compare by kind first (see ``TupleKey``): against a `Double` column, give `Double`
    /// bounds (`10.0`, not `10`, which is an integer and sorts before every double).
    /// - Complexity: O(m) for the m bytes of the columns and bounds; building a query reads
    ///   nothing.
    public static func range(
        where leading: TupleKey = TupleKey([]), from: (any TupleKeyComponent)? = nil, fromInclusive: Bool = true,
        to: (any TupleKeyComponent)? = nil, toInclusive: Bool = false
    ) -> IndexQuery {
        let prefix = leading.bytes
        func bound(_ value: any TupleKeyComponent) -> [UInt8] { prefix + TupleKey([value.tupleComponent]).bytes }
        let lower = from.map { fromInclusive ? bound($0) : KeyRange.successor(of: bound($0)) ?? [0xFF] } ?? prefix
        let upper = to.map { toInclusive ? KeyRange.successor(of: bound($0)) : bound($0) } ?? KeyRange.successor(of: prefix)
        return IndexQuery(lower: lower, upper: upper)
    }

    /// Entries whose leading columns equal `leading` and whose next column is a string that
    /// starts with `stringPrefix` (UTF-8 bytes).
    /// - Complexity: O(m) for the m bytes of the columns and prefix; building a query reads
    ///   nothing.
    public static func prefix(where leading: TupleKey = TupleKey([]), stringPrefix: String) -> IndexQuery {
        var bytes = leading.bytes
        let encoded = TupleKey([.string(stringPrefix)]).bytes
        bytes.append(contentsOf: encoded.dropLast())  // without the terminator: any continuation matches
        return IndexQuery(lower: bytes, upper: KeyRange.successor(of: bytes))
    }

    /// Entries whose leading columns equal `leading` and whose next column is a descending string
    /// (a ``Descending`` `String`) that starts with `stringPrefix`'s value (UTF-8 bytes). They
    /// come in the column's order, Z to A.
    ///
    /// ```swift
    /// .prefix(where: TupleKey("inbox"), stringPrefix: Descending("re"))   // folder == "inbox", title starts with "re"
    /// ```
    /// - Complexity: O(m) for the m bytes of the columns and prefix; building a query reads
    ///   nothing.
    public static func prefix(where leading: TupleKey = TupleKey([]), stringPrefix: Descending<String>) -> IndexQuery {
        var bytes = leading.bytes
        let encoded = TupleKey([.descending(.string(stringPrefix.value))]).bytes
        // Without the complemented string terminator and end marker: the type byte and the
        // complemented escaped prefix, which every continuation of the prefix starts with (the
        // escape keeps a string's prefix a prefix of its bytes, a NUL included).
        bytes.append(contentsOf: encoded.dropLast(2))
        return IndexQuery(lower: bytes, upper: KeyRange.successor(of: bytes))
    }
}
