/// How a term becomes the bytes it is indexed and looked up under.
enum FullTextTerm {
    /// The longest term kept, in UTF-8 bytes. A longer token (a URL, a base64 blob) is indexed
    /// under its first 255 bytes, cut at a character boundary, and a query word is cut the same
    /// way, so it still finds it. With the separator and the 8-byte document id a `postings` key
    /// stays well under LMDB's 511-byte key limit.
    static let maximumBytes = 255

    /// The bytes `term` is indexed under, `nil` when it cannot be indexed (it is empty, or holds
    /// a NUL, which separates the term from the document id in a key; the tokenizer yields
    /// neither).
    static func bytes(of term: String) -> [UInt8]? {
        var bytes = Array(term.utf8)
        guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
        if bytes.count > maximumBytes {
            // Back up to the first byte of a scalar (continuation bytes are 10xxxxxx).
            var end = maximumBytes
            while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            bytes.removeSubrange(end...)
        }
        return bytes
    }

    /// The bytes a prefix query matches terms against: like ``bytes(of:)``, but an empty prefix
    /// is not refused here (the query refuses it).
    static func prefixBytes(of prefix: String) -> [UInt8]? {
        prefix.isEmpty ? nil : bytes(of: prefix)
    }
}
