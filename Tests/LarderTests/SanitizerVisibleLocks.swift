#if LARDER_TSAN
import LarderMessagePack

/// In a ThreadSanitizer build the tests' `Mutex` is the one `Larder` uses there (one the
/// sanitizer sees); it also settles which of the two `Mutex` types `@testable import Larder`
/// would otherwise show beside the standard library's.
typealias Mutex<Value: ~Copyable> = SanitizerVisibleMutex<Value>
#endif
