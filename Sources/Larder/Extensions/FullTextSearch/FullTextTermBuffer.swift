/// The UTF-8 bytes of the term being built, in memory that the tokenizer sets up once per text
/// (on the stack, as long as words are short) and reuses for every word of it: terms are made on
/// every insert, and a growing array per word would cost an allocation each.
struct FullTextTermBuffer: ~Copyable {
    /// The bytes; the first `count` are the term.
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    /// How many bytes fit before the buffer must grow.
    private(set) var capacity: Int
    /// How many bytes the term has.
    var count = 0
    /// Whether `bytes` was allocated here (and is deallocated here), rather than lent.
    private var ownsBytes: Bool

    /// An empty buffer with room for `capacity` bytes (at least one).
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        bytes = .allocate(capacity: self.capacity)
        ownsBytes = true
    }

    /// An empty buffer in `storage` (not empty), which must outlive it; it moves to memory of
    /// its own when a term outgrows `storage`.
    init(lending storage: UnsafeMutableBufferPointer<UInt8>) {
        precondition(!storage.isEmpty, "a term buffer needs room for at least one byte")
        bytes = storage.baseAddress!
        capacity = storage.count
        ownsBytes = false
    }

    /// Frees the memory the buffer allocated, none of what it was lent.
    deinit {
        if ownsBytes { bytes.deallocate() }
    }

    /// Makes room for `additional` more bytes.
    @inline(__always)
    mutating func reserve(_ additional: Int) {
        if count + additional > capacity { grow(to: count + additional) }
    }

    /// Moves the bytes to a buffer with room for at least `minimum` bytes.
    private mutating func grow(to minimum: Int) {
        let larger = max(minimum, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: bytes, count: count)
        if ownsBytes { bytes.deallocate() }
        bytes = moved
        ownsBytes = true
        capacity = larger
    }

    /// Appends one byte.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        bytes[count] = byte
        count += 1
    }

    /// Appends `source`'s bytes.
    mutating func append(_ source: UnsafeBufferPointer<UInt8>) {
        guard let base = source.baseAddress, !source.isEmpty else { return }
        reserve(source.count)
        (bytes + count).update(from: base, count: source.count)
        count += source.count
    }

    /// Appends the UTF-8 bytes of `text`.
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Whether the term is made of ASCII letters only (what the English stemmer accepts once
    /// lowercased).
    var isASCIILetters: Bool {
        for index in 0..<count {
            let byte = bytes[index] | 0x20
            if byte < UInt8(ascii: "a") || byte > UInt8(ascii: "z") { return false }
        }
        return true
    }

    /// The term as a string (terms of up to 15 bytes are stored inline, without allocating).
    func makeString() -> String {
        String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
