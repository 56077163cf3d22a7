#if Extras
/// What is wrong with an import line.
struct RecordError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
#endif
