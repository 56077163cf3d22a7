/// Which positions of each group a followed view shows (``ViewObservation``): all of them, the
/// first or last n, or a range of positions (a window that ``ViewObservation/setRange(_:)``
/// slides).
public enum ViewRange: Sendable, Hashable {
    /// Every item of the group.
    case all
    /// The first `n` items (the top of a list).
    case first(Int)
    /// The last `n` items (the end of a chat).
    case last(Int)
    /// The items at these positions (counted from 0; clamped to the group).
    case positions(Range<Int>)

    /// The positions shown of a group of `count` items.
    func positions(inGroupOf count: Int) -> Range<Int> {
        switch self {
        case .all: 0..<count
        case .first(let n): 0..<min(max(n, 0), count)
        case .last(let n): max(count - max(n, 0), 0)..<count
        case .positions(let range): range.clamped(to: 0..<count)
        }
    }
}
