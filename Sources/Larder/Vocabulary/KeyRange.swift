/// Which keys of a collection an enumeration visits, in which order, and how many.
///
/// Keys are ordered by their UTF-8 bytes. All bounds combine: `KeyRange(from: "b", prefix: "b")`
/// visits keys that start with `"b"` and are not less than `"b"`.
///
/// ```swift
/// let latest = try db.read { try $0.keys(inCollection: "log", range: .init(reversed: true, limit: 10)) }
/// let user7 = try db.read { try $0.keys(inCollection: "orders", range: .prefix("user7/")) }
/// ```
public struct KeyRange: Sendable, Hashable {
    /// Visit keys greater than or equal to this one.
    public var from: String?
    /// Visit keys less than this one.
    public var to: String?
    /// Visit keys that start with this prefix.
    public var prefix: String?
    /// Visit keys from the greatest down.
    public var reversed: Bool
    /// Stop after this many keys.
    public var limit: Int?

    /// A range with the given bounds; every argument is optional.
    public init(from: String? = nil, to: String? = nil, prefix: String? = nil, reversed: Bool = false, limit: Int? = nil) {
        self.from = from
        self.to = to
        self.prefix = prefix
        self.reversed = reversed
        self.limit = limit
    }

    /// Whether the two ranges visit the same keys in the same order: bounds and prefixes with the
    /// same UTF-8 bytes (keys are bytes: `"caf\u{E9}"` and `"cafe\u{301}"` bound different ranges),
    /// the same direction and limit.
    public static func == (a: KeyRange, b: KeyRange) -> Bool {
        func same(_ x: String?, _ y: String?) -> Bool {
            switch (x, y) {
            case (nil, nil): true
            case (let x?, let y?): ExactString.bytesEqual(x, y)
            default: false
            }
        }
        return a.reversed == b.reversed && a.limit == b.limit && same(a.from, b.from) && same(a.to, b.to) && same(a.prefix, b.prefix)
    }

    /// Hashes what ``==(_:_:)`` compares, the bounds as their bytes.
    public func hash(into hasher: inout Hasher) {
        for bound in [from, to, prefix] {
            if let bound {
                hasher.combine(true)
                ExactString.hashBytes(of: bound, into: &hasher)
            } else {
                hasher.combine(false)
            }
        }
        hasher.combine(reversed)
        hasher.combine(limit)
    }

    /// Every key, in ascending order.
    public static let all = KeyRange()
    /// The keys that start with `prefix`, in ascending order.
    public static func prefix(_ prefix: String) -> KeyRange { KeyRange(prefix: prefix) }
}
