extension MessagePackValue {
    /// The MessagePack bytes of the value, each part in the smallest layout MessagePack allows
    /// (the layouts ``MessagePackEncoder`` chooses).
    ///
    /// A string, binary, array, map or extension payload may hold at most 2³² − 1 bytes or
    /// elements, MessagePack's limit; a larger one stops the program.
    /// - Complexity: O(*n*) in the size of the result.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// Appends the value's MessagePack bytes to `bytes` (see ``encoded()``).
    /// - Complexity: O(*n*) in the size of what it appends.
    public func encode(into bytes: inout [UInt8]) {
        var writer = MessagePackWriter()
        // The caller's array moves into the writer and back, so appends never copy it.
        swap(&writer.bytes, &bytes)
        write(to: &writer)
        swap(&writer.bytes, &bytes)
    }

    /// Writes the value, its children after their container's header: the values still to
    /// write are kept on a stack of its own, not the thread's, so any nesting writes.
    private func write(to writer: inout MessagePackWriter) {
        var pending = [self]
        while let value = pending.popLast() {
            let fits: Bool
            switch value {
            case .nil:
                writer.writeNil()
                fits = true
            case .bool(let flag):
                writer.writeBool(flag)
                fits = true
            case .negative(let number):
                writer.writeInt(number)
                fits = true
            case .unsigned(let number):
                writer.writeUInt(number)
                fits = true
            case .float(let number):
                writer.writeFloat(number)
                fits = true
            case .double(let number):
                writer.writeDouble(number)
                fits = true
            case .string(let bytes):
                fits = writer.writeStringHeader(bytes.count)
                if fits { writer.bytes.append(contentsOf: bytes) }
            case .binary(let bytes):
                fits = bytes.withUnsafeBytes { writer.writeBinary($0) }
            case .array(let elements):
                fits = writer.writeArrayHeader(elements.count)
                if fits { pending.append(contentsOf: elements.reversed()) }
            case .map(let entries):
                fits = writer.writeMapHeader(entries.count)
                if fits {
                    for entry in entries.reversed() {
                        pending.append(entry.value)
                        pending.append(entry.key)
                    }
                }
            case .ext(let type, let data):
                fits = data.withUnsafeBytes { writer.writeExtension(type: type, payload: $0) }
            }
            precondition(fits, "MessagePackValue misuse: a string, binary, array, map or extension larger than MessagePack's 2^32 - 1 limit")
        }
    }
}
