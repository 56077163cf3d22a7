/// Builds `collection ‖ 0x00 ‖ key`, the key of the `objects` and `metadata` databases, on the
/// stack, after checking the rules of DESIGN.md (no NUL in a collection, no empty key, at most
/// LMDB's key size).
enum StorageKey {
    static func validate(collection: String, key: String, maxKeySize: Int, operation: String) throws(LarderError) {
        if key.isEmpty {
            throw LarderError(.emptyKey, "keys may not be empty", operation: operation, index: YapDB.Index(collection: collection, key: key))
        }
        if collection.utf8.contains(0) {
            throw LarderError(.invalidCollection, "collection names may not contain NUL (0x00)", operation: operation, index: YapDB.Index(collection: collection, key: key))
        }
        let length = collection.utf8.count + 1 + key.utf8.count
        if length > maxKeySize {
            throw LarderError(
                .keyTooLong,
                "collection and key take \(length) bytes stored; the limit is \(maxKeySize) (UTF-8 bytes of collection + 1 + key)",
                operation: operation, index: YapDB.Index(collection: collection, key: key))
        }
    }

    static func validate(collection: String, operation: String) throws(LarderError) {
        if collection.utf8.contains(0) {
            throw LarderError(.invalidCollection, "collection names may not contain NUL (0x00)", operation: operation)
        }
    }

    /// Calls `body` with the storage key of (`collection`, `key`).
    ///
    /// The lengths come first (O(1) for native strings), then both strings are copied with
    /// `memcpy` from their contiguous UTF-8, and the NUL check runs over the bytes just copied:
    /// one pass over the bytes, not a separate validation pass and a byte-by-byte copy.
    @inline(__always)
    static func with<R>(
        collection: String, key: String, maxKeySize: Int, operation: String,
        _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        let collectionCount = collection.utf8.count
        let length = collectionCount + 1 + key.utf8.count
        if length == collectionCount + 1 || length > maxKeySize {
            // An empty or too long key: `validate` throws the error, in its order of checks.
            try validate(collection: collection, key: key, maxKeySize: maxKeySize, operation: operation)
        }
        return try withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { buffer in
            let base = buffer.baseAddress!
            copy(collection, to: base)
            if UnsafeRawBufferPointer(start: base, count: collectionCount).contains(0) {
                throw LarderError(.invalidCollection, "collection names may not contain NUL (0x00)", operation: operation, index: YapDB.Index(collection: collection, key: key))
            }
            base.storeBytes(of: 0, toByteOffset: collectionCount, as: UInt8.self)
            copy(key, to: base + collectionCount + 1)
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// Copies the UTF-8 bytes of `string` to `destination`, with `memcpy` when they are
    /// contiguous (native strings, small or not), else byte by byte.
    @inline(__always)
    private static func copy(_ string: String, to destination: UnsafeMutableRawPointer) {
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            guard let source = bytes.baseAddress else { return }
            destination.copyMemory(from: source, byteCount: bytes.count)
        }
        if copied == nil {
            var offset = 0
            for byte in string.utf8 {
                destination.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                offset += 1
            }
        }
    }

    /// The storage-key prefix of every key in `collection`: `collection ‖ 0x00`.
    static func prefix(of collection: String) -> [UInt8] {
        var bytes = Array(collection.utf8)
        bytes.append(0)
        return bytes
    }

    /// Splits a storage key into its index.
    static func index(from bytes: UnsafeRawBufferPointer) -> YapDB.Index {
        guard let separator = bytes.firstIndex(of: 0) else {
            return YapDB.Index(collection: "", key: String(decoding: bytes, as: UTF8.self))
        }
        return YapDB.Index(
            collection: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<separator]), as: UTF8.self),
            key: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(separator + 1)...]), as: UTF8.self))
    }
}
