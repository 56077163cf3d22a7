#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte order counted tree keys follow, and the separators cut from them.
enum CountedTreeBytes {
    /// Compares as `memcmp` does, a prefix first: negative, zero or positive.
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let shared = min(a.count, b.count)
        if shared > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, shared)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    static func compare(_ a: ArraySlice<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        a.withUnsafeBufferPointer { compare($0, b) }
    }

    static func compare(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        a.withUnsafeBufferPointer { left in b.withUnsafeBufferPointer { compare(left, $0) } }
    }

    /// The shortest prefix of `right` that is greater than `left`, given `left < right`: a
    /// separator between the two that is often much shorter than either key.
    static func shortestSeparator(after left: ArraySlice<UInt8>, upTo right: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var shared = 0
        while shared < left.count, shared < right.count,
              left[left.startIndex + shared] == right[right.startIndex + shared] {
            shared += 1
        }
        return right.prefix(shared + 1)
    }
}
