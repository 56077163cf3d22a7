extension MessagePackValue {
    /// Why bytes are not one well-formed MessagePack value.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        /// The byte offset at or near which the bytes went wrong.
        public let offset: Int
        /// What is wrong, in a sentence.
        public let reason: String

        /// The reason, which names the offset.
        public var description: String { reason }

        init(_ error: MessagePackReadError) {
            self.offset = error.offset
            self.reason = error.message
        }

        init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }
    }

    /// Reads the one MessagePack value that `bytes` hold.
    ///
    /// Every length is checked against the buffer and containers may nest at most 512 deep, so
    /// damaged or hostile bytes give an error, never a crash.
    /// - Throws: ``ReadError`` when the bytes are cut short, use the reserved byte 0xc1, nest too
    ///   deep, or hold more bytes after the value.
    /// - Complexity: O(*n*) in the length of `bytes`.
    public init(reading bytes: UnsafeRawBufferPointer) throws(ReadError) {
        let reader = MessagePackReader(bytes: bytes)
        var spans: [MessagePackContainerSpan]? = nil
        let end: Int
        do throws(MessagePackReadError) {
            // The iterative check first: it bounds the nesting, so the recursive read below can
            // never run out of stack.
            end = try reader.validateValue(at: 0, spans: &spans)
        } catch {
            throw ReadError(error)
        }
        guard end == bytes.count else {
            throw ReadError(offset: end, reason: "Found \(bytes.count - end) unexpected bytes after the top-level MessagePack value, which ends at offset \(end).")
        }
        do throws(MessagePackReadError) {
            var offset = 0
            self = try Self.read(reader, at: &offset)
        } catch {
            throw ReadError(error)
        }
    }

    /// Reads the one MessagePack value that `bytes` hold.
    /// - Throws: ``ReadError`` when the bytes are not exactly one well-formed value (see
    ///   ``init(reading:)-(UnsafeRawBufferPointer)``).
    /// - Complexity: O(*n*) in the length of `bytes`.
    public init(reading bytes: [UInt8]) throws(ReadError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(ReadError) in try MessagePackValue(reading: buffer) }
        }
        self = try result.get()
    }

    /// The value at `offset` of bytes that `validateValue` has accepted; advances past it.
    private static func read(_ reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) -> MessagePackValue {
        let format = try reader.byte(at: offset)
        switch format {
        case MessagePackFormat.nil:
            offset += 1
            return .nil
        case MessagePackFormat.false, MessagePackFormat.true:
            return .bool(try reader.readBool(at: &offset))
        case 0x00...0x7f, 0xe0...0xff, MessagePackFormat.uint8...MessagePackFormat.int64:
            switch try reader.readInteger(at: &offset) {
            case .nonNegative(let value): return .unsigned(value)
            case .negative(let value): return .negative(value)
            }
        case MessagePackFormat.float32:
            return .float(try reader.readFloat(at: &offset))
        case MessagePackFormat.float64:
            return .double(try reader.readDouble(at: &offset))
        case 0xa0...0xbf, MessagePackFormat.str8, MessagePackFormat.str16, MessagePackFormat.str32:
            let range = try reader.readStringRange(at: &offset)
            return .string(reader.copy(range.start, range.length))
        case MessagePackFormat.bin8, MessagePackFormat.bin16, MessagePackFormat.bin32:
            let range = try reader.readBinaryRange(at: &offset)
            return .binary(reader.copy(range.start, range.length))
        case 0x90...0x9f, MessagePackFormat.array16, MessagePackFormat.array32:
            let count = try reader.readArrayHeader(at: &offset)
            var elements: [MessagePackValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try read(reader, at: &offset)) }
            return .array(elements)
        case 0x80...0x8f, MessagePackFormat.map16, MessagePackFormat.map32:
            let count = try reader.readMapHeader(at: &offset)
            var entries: [Entry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try read(reader, at: &offset)
                entries.append(Entry(key: key, value: try read(reader, at: &offset)))
            }
            return .map(entries)
        case MessagePackFormat.fixext1...MessagePackFormat.fixext16, MessagePackFormat.ext8, MessagePackFormat.ext16, MessagePackFormat.ext32:
            let range = try reader.readExtensionRange(at: &offset)
            return .ext(type: range.type, data: reader.copy(range.start, range.length))
        default:  // 0xc1
            throw .reservedByte(offset: offset)
        }
    }
}

extension MessagePackReader {
    /// A copy of `length` bytes at `start`, a range the reader has already checked.
    fileprivate func copy(_ start: Int, _ length: Int) -> [UInt8] {
        [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]))
    }
}
