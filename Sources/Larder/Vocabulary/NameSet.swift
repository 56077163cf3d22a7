/// A set of names (collections, keys) that tells them apart by their UTF-8 bytes, as
/// ``ExactString`` does, and reads as a sequence of `String`s: what package APIs hand out where a
/// `Set<String>` would keep one of two canonically equivalent names.
///
/// ``sorted()`` lists the names in byte order (the store's order), not in `String`'s.
package struct NameSet: Sequence, Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The names.
    package private(set) var members: Set<ExactString> = []

    package init() {}

    package init(_ names: some Sequence<String>) {
        for name in names { members.insert(ExactString(name)) }
    }

    package init(arrayLiteral names: String...) {
        self.init(names)
    }

    package var count: Int { members.count }

    package var isEmpty: Bool { members.isEmpty }

    /// Whether `name`, byte for byte, is in the set.
    package func contains(_ name: String) -> Bool {
        members.contains(ExactString(name))
    }

    /// Adds `name`; returns whether it was not there.
    @discardableResult
    package mutating func insert(_ name: String) -> Bool {
        members.insert(ExactString(name)).inserted
    }

    /// Removes `name`; returns whether it was there.
    @discardableResult
    package mutating func remove(_ name: String) -> Bool {
        members.remove(ExactString(name)) != nil
    }

    package func makeIterator() -> LazyMapSequence<Set<ExactString>, String>.Iterator {
        members.lazy.map(\.string).makeIterator()
    }

    /// The names in UTF-8 byte order.
    package func sorted() -> [String] {
        members.sorted().map(\.string)
    }

    package var description: String { sorted().description }
}
