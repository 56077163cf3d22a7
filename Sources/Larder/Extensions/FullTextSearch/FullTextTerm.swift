/// How a term becomes the bytes it is indexed and looked up under.
enum FullTextTerm {
    /// The longest term kept, in UTF-8 bytes. A longer token (a URL, a base64 blob) is indexed
    /// under its first 255 bytes, cut at a character boundary, and a query word is cut the same
    /// way, so it still finds it. With the separator and the 8-byte document id a `postings` key
    /// stays well under LMDB's 511-byte key limit.
    static let maximumBytes = 255

    /// `term` as it is indexed: cut to ``maximumBytes``; `nil` when it cannot be indexed (it is
    /// empty, or holds a NUL, which separates the term from the document id in a key; the
    /// tokenizer yields neither).
    static func indexed(_ term: String) -> String? {
        let utf8 = term.utf8
        guard !utf8.isEmpty, !utf8.contains(0) else { return nil }
        guard utf8.count > maximumBytes else { return term }
        var bytes = Array(utf8)
        // Back up to the first byte of a scalar (continuation bytes are 10xxxxxx).
        var end = maximumBytes
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        bytes.removeSubrange(end...)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes `term` is indexed and looked up under (see ``indexed(_:)``).
    static func bytes(of term: String) -> [UInt8]? {
        indexed(term).map { Array($0.utf8) }
    }

    /// The bytes a prefix query matches terms against: like ``bytes(of:)``.
    static func prefixBytes(of prefix: String) -> [UInt8]? {
        bytes(of: prefix)
    }
}
