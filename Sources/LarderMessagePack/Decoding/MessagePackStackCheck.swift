#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How much of its stack the calling thread has left, for ``MessagePackDecoder``: a `Decodable`
/// type that holds values of its own type recurses through its `init(from:)` as deep as the input
/// nests, about 2 KB of stack a level, and that recursion is the type's, not the decoder's, so it
/// cannot be turned into a loop. The decoder checks what is left before it descends, once a value
/// nests ``checkedDepth`` levels, and throws rather than let the thread overflow its stack.
enum MessagePackStackCheck {
    /// The addresses of the calling thread's stack: `lowest..<highest`.
    struct Bounds {
        var lowest: UInt
        var highest: UInt
    }

    /// The nesting from which each nested decode checks the stack left: a value shallower than
    /// this takes less than 64 KB of stack even in a debug build.
    static let checkedDepth = 24

    /// How much stack a nested decode must find left: room for one more level of the decoder and
    /// a type's `init(from:)`, many times over.
    static let reserve: UInt = 64 * 1024

    #if !canImport(Darwin)
    private typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32

    /// glibc's and musl's `pthread_getattr_np`, which Swift's C modules leave out (it is an
    /// extension of POSIX that needs `_GNU_SOURCE`).
    private static let getAttributes: GetAttributes? = dlsym(nil, "pthread_getattr_np").map { unsafeBitCast($0, to: GetAttributes.self) }
    #endif

    /// The bounds of the calling thread's stack; `nil` when the system does not say.
    static func currentBounds() -> Bounds? {
        #if canImport(Darwin)
        let thread = pthread_self()
        let highest = UInt(bitPattern: pthread_get_stackaddr_np(thread))
        let size = UInt(pthread_get_stacksize_np(thread))
        guard highest > size else { return nil }
        return Bounds(lowest: highest - size, highest: highest)
        #else
        guard let getAttributes else { return nil }
        var attributes = pthread_attr_t()
        guard getAttributes(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var start: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(&attributes, &start, &size) == 0, let start, size > 0 else { return nil }
        let lowest = UInt(bitPattern: start)
        return Bounds(lowest: lowest, highest: lowest + UInt(size))
        #endif
    }

    /// How many bytes of `bounds` lie below the caller's frame; `nil` when the caller runs on
    /// another stack than the one `bounds` describes (a coroutine's, say).
    @inline(never)
    static func left(in bounds: Bounds) -> UInt? {
        var marker = 0
        let here = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        guard bounds.lowest < here, here < bounds.highest else { return nil }
        return here - bounds.lowest
    }
}
