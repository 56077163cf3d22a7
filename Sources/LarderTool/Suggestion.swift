#if Extras
import Larder

/// "Did you mean": the known name closest to a mistyped one, for the tool's messages about
/// subcommands, shell commands and collections.
enum Suggestion {
    /// The name of `candidates` closest to `typed` by edit distance (letters inserted, removed or
    /// changed), when it is close enough to be a typo: at most 1 edit for names up to 4
    /// characters, 2 up to 8, 3 beyond; nil otherwise, or when `typed` is itself a candidate.
    static func closest(to typed: String, among candidates: some Sequence<String>) -> String? {
        let limit = typed.count <= 4 ? 1 : typed.count <= 8 ? 2 : 3
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            // By bytes, as the store compares names: a name Swift's `==` calls equal to `typed`
            // but stored with other bytes is a different name, and worth suggesting.
            if ExactString.bytesEqual(candidate, typed) { return nil }
            let distance = editDistance(Array(typed.unicodeScalars), Array(candidate.unicodeScalars))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// `; did you mean "name"?` for the closest of `candidates`, or nothing.
    static func didYouMean(_ typed: String, among candidates: some Sequence<String>) -> String {
        closest(to: typed, among: candidates).map { "; did you mean \(CommandFailure.quoted($0))?" } ?? ""
    }

    /// `didYouMean(_:among:)` over the collections of `db` (nothing when they cannot be read).
    static func collection(_ typed: String, in db: Database) -> String {
        didYouMean(typed, among: (try? db.read { try $0.collections() }) ?? [])
    }

    /// The edit distance between `a` and `b` with letters inserted, removed, changed or two
    /// neighbours swapped (each one edit: `kyes` is one from `keys`).
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
#endif
