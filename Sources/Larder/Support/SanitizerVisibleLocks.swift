#if LARDER_TSAN
import LarderMessagePack

/// In a ThreadSanitizer build, this module's `Mutex` is one the sanitizer sees
/// (`LarderMessagePack.SanitizerVisibleMutex`).
typealias Mutex<Value: ~Copyable> = SanitizerVisibleMutex<Value>
#endif
