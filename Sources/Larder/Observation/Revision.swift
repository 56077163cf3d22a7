#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One commit in the history of a ``Persistable`` value, with the value it left decoded: what
/// `ReadTransaction.history(of:key:)` and `history(of:id:)` return.
///
/// ```swift
/// let prices = try db.read { try $0.history(of: Product.self, key: "p1") }
///     .compactMap { revision in revision.value.map { (revision.commit, $0.price) } }
/// ```
public struct Revision<Value> {
    /// The commit as the change log records it, with the raw value.
    public let entry: HistoryEntry
    /// The value after the commit; `nil` when there was none (removed or cleared) or it was not
    /// recorded (``HistoryEntry/isValueKnown``).
    public let value: Value?

    /// The number of the commit.
    public var commit: UInt64 { entry.commit }
    /// When the commit was made, when known.
    public var time: Date? { entry.time }
    /// What the commit did to the value.
    public var event: HistoryEntry.Event { entry.event }
}

extension Revision: Sendable where Value: Sendable {}
