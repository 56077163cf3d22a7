#if LARDER_TSAN
/// In a ThreadSanitizer build, this module's `Mutex` is one the sanitizer sees
/// (``SanitizerVisibleMutex``).
typealias Mutex<Value: ~Copyable> = SanitizerVisibleMutex<Value>
#endif
