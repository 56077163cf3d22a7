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
    /// damaged or hostile bytes give an error, never a crash. Neither the check nor the read
    /// recurses: a value 512 deep reads on a thread with a small stack (the test suite reads one
    /// on a 512 KiB thread, in a debug build), and so do ``encoded()`` and `==`.
    /// - Throws: ``ReadError`` when the bytes are cut short, use the reserved byte 0xc1, nest too
    ///   deep, or hold more bytes after the value.
    /// - Complexity: O(*n*) in the length of `bytes`.
    public init(reading bytes: UnsafeRawBufferPointer) throws(ReadError) {
        let reader = MessagePackReader(bytes: bytes)
        var spans: [MessagePackContainerSpan]? = nil
        let end: Int
        do throws(MessagePackReadError) {
            // The check first, so that nothing is built from bytes that turn out to be bad; it
            // walks without recursion, as the read below does.
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

    /// An array or map being read: what it holds so far, and how many values are still to come
    /// (a map's keys and values both count).
    private struct OpenContainer {
        let isMap: Bool
        var remaining: Int
        var elements: [MessagePackValue] = []
        var entries: [Entry] = []
        /// A map's key whose value comes next.
        var key: MessagePackValue?
    }

    /// The value at `offset` of bytes that `validateValue` has accepted; advances past it. The
    /// containers being read are kept on a stack of its own, not the thread's: a value nesting
    /// 512 deep takes a few kilobytes of stack in a debug build, not a megabyte.
    private static func read(_ reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) -> MessagePackValue {
        var open: [OpenContainer] = []
        while true {
            var value: MessagePackValue
            let format = try reader.byte(at: offset)
            switch format {
            case MessagePackFormat.nil:
                offset += 1
                value = .nil
            case MessagePackFormat.false, MessagePackFormat.true:
                value = .bool(try reader.readBool(at: &offset))
            case 0x00...0x7f, 0xe0...0xff, MessagePackFormat.uint8...MessagePackFormat.int64:
                switch try reader.readInteger(at: &offset) {
                case .nonNegative(let number): value = .unsigned(number)
                case .negative(let number): value = .negative(number)
                }
            case MessagePackFormat.float32:
                value = .float(try reader.readFloat(at: &offset))
            case MessagePackFormat.float64:
                value = .double(try reader.readDouble(at: &offset))
            case 0xa0...0xbf, MessagePackFormat.str8, MessagePackFormat.str16, MessagePackFormat.str32:
                let range = try reader.readStringRange(at: &offset)
                value = .string(reader.copy(range.start, range.length))
            case MessagePackFormat.bin8, MessagePackFormat.bin16, MessagePackFormat.bin32:
                let range = try reader.readBinaryRange(at: &offset)
                value = .binary(reader.copy(range.start, range.length))
            case 0x90...0x9f, MessagePackFormat.array16, MessagePackFormat.array32:
                let count = try reader.readArrayHeader(at: &offset)
                guard count == 0 else {
                    var container = OpenContainer(isMap: false, remaining: count)
                    container.elements.reserveCapacity(count)
                    open.append(container)
                    continue
                }
                value = .array([])
            case 0x80...0x8f, MessagePackFormat.map16, MessagePackFormat.map32:
                let count = try reader.readMapHeader(at: &offset)
                guard count == 0 else {
                    var container = OpenContainer(isMap: true, remaining: 2 * count)
                    container.entries.reserveCapacity(count)
                    open.append(container)
                    continue
                }
                value = .map([])
            case MessagePackFormat.fixext1...MessagePackFormat.fixext16, MessagePackFormat.ext8, MessagePackFormat.ext16, MessagePackFormat.ext32:
                let range = try reader.readExtensionRange(at: &offset)
                value = .ext(type: range.type, data: reader.copy(range.start, range.length))
            default:  // 0xc1
                throw .reservedByte(offset: offset)
            }
            // The value goes into the container it belongs to, which may be complete with it,
            // and so on down the stack.
            while !open.isEmpty {
                let top = open.count - 1
                if !open[top].isMap {
                    open[top].elements.append(value)
                } else if let key = open[top].key {
                    open[top].entries.append(Entry(key: key, value: value))
                    open[top].key = nil
                } else {
                    open[top].key = value
                }
                open[top].remaining -= 1
                if open[top].remaining > 0 { break }
                let complete = open.removeLast()
                value = complete.isMap ? .map(complete.entries) : .array(complete.elements)
            }
            if open.isEmpty { return value }
        }
    }
}

extension MessagePackReader {
    /// A copy of `length` bytes at `start`, a range the reader has already checked.
    fileprivate func copy(_ start: Int, _ length: Int) -> [UInt8] {
        [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]))
    }
}
