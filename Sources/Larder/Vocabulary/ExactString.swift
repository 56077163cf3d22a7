#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A name as the store knows it: a collection, a key, an extension, a view group, a term. It
/// compares, hashes and sorts by its UTF-8 bytes, as LMDB keeps them, where `String` compares
/// canonical equivalence: `"caf\u{E9}"` and `"cafe\u{301}"` are one `String` and two names.
///
/// Every dictionary, set or sort keyed by a name uses it (or the bytes themselves); see
/// "Names are bytes" in Documentation/Errors.md. Wrapping costs nothing, and native
/// strings (small or not) are compared with `memcmp` and hashed as one run of bytes, as
/// `String` hashes ASCII.
package struct ExactString: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name.
    package let string: String

    @inline(__always)
    package init(_ string: String) {
        self.string = string
    }

    package init(stringLiteral value: String) {
        self.string = value
    }

    @inline(__always)
    package static func == (a: ExactString, b: ExactString) -> Bool {
        bytesEqual(a.string, b.string)
    }

    @inline(__always)
    package func hash(into hasher: inout Hasher) {
        Self.hashBytes(of: string, into: &hasher)
    }

    /// What `Dictionary` and `Set` hash a name with: ``NameHash``, not `Hasher`.
    @inline(__always)
    package func _rawHashValue(seed: Int) -> Int {
        NameHash.hash(string, seed: seed)
    }

    @inline(__always)
    package static func < (a: ExactString, b: ExactString) -> Bool {
        bytesPrecede(a.string, b.string)
    }

    package var description: String { string }

    // MARK: Comparing strings as bytes

    /// Whether `a` and `b` have the same UTF-8 bytes; a length test and one `memcmp` for native
    /// strings.
    @inline(__always)
    package static func bytesEqual(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
            }
        }
        return (fast ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// Whether the UTF-8 bytes of `a` sort before those of `b` (LMDB's order of keys).
    @inline(__always)
    package static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
        return (fast ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Feeds the UTF-8 bytes of `string` to `hasher`, then a 0xFF (a byte UTF-8 never holds,
    /// as `String` ends its own), so that a name hashed before another within one hash (a
    /// collection, then a key) ends unambiguously.
    @inline(__always)
    package static func hashBytes(of string: String, into hasher: inout Hasher) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if done == nil {  // a bridged or foreign string: the same bytes, hashed the same way
            Array(string.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        hasher.combine(0xFF as UInt8)
    }
}

extension Set<ExactString> {
    /// The names `strings`, told apart by their bytes.
    package init(names strings: some Sequence<String>) {
        self.init()
        for string in strings { insert(ExactString(string)) }
    }
}
