#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Decoder` that reads MessagePack in place from a borrowed buffer.
///
/// One instance serves a whole top-level decode: it always stands for the value
/// at `valueOffset`, which `decodeNested` moves around the nested `init(from:)`
/// calls. Keyed containers index their map once (key byte ranges and value
/// offsets, kept in the shared `keyEntries` array so creating a container costs
/// no allocation of its own) and compare keys as UTF-8 bytes.
///
/// The buffer is only borrowed: `invalidate()` forgets it when the top-level
/// call returns, so a decoder or container that a type smuggled out of its
/// `init(from:)` can only throw, never read freed memory.
final class MessagePackBufferDecoder: Decoder {
    /// Where one map entry sits. `keyLength` is -1 when the key is an integer.
    /// Each keyed container's entries are preceded by one extra entry whose
    /// `keyStart` holds the lookup hint: the entry after the last one found.
    /// Keys are usually read in the order they were written, so lookups mostly
    /// hit on the first comparison.
    struct KeyEntry {
        var keyStart: Int
        var keyLength: Int
        var valueStart: Int
    }

    /// Everything the decoder mutates. It lives behind a pointer because Swift
    /// checks every access to a class's stored `var` at run time (exclusivity
    /// enforcement), which is expensive on this hot path; accesses through a
    /// pointer are not checked. The pointer is owned by this object.
    private struct State {
        var bytes: UnsafeRawBufferPointer
        var codingPath: [any CodingKey]
        /// Offset of the value this decoder currently stands for.
        var valueOffset: Int
        var depth: Int
        var keyEntries: [KeyEntry] = []
        /// Ends of the big containers, from validation (empty for small inputs).
        var spans: [MessagePackContainerSpan]
        /// Super decoders handed out; invalidated together with this one.
        var children: [MessagePackBufferDecoder] = []
        /// Entries of the top-level map, indexed while the input was validated
        /// (see `prepare()`): the first keyed container at offset 0 uses them
        /// instead of scanning the map again.
        var topLevelMap: TopLevelMap?
        /// The box of the last top-level keyed container handed out (a
        /// `KeyedDecodingContainer` is one reference to it), reused when nobody kept it.
        var topLevelBox: AnyObject?
        var topLevelBoxKey: ObjectIdentifier?
        var link: MessagePackContainerLink?
        /// The bounds of the decoding thread's stack, looked up when a value first
        /// nests `MessagePackStackCheck.checkedDepth` deep (`nil` after that: the
        /// system did not say).
        var stackBounds: MessagePackStackCheck.Bounds?
        var stackBoundsLookedUp = false
    }

    /// The top-level map's index, made by `prepare()`. Its entries sit at the
    /// start of `keyEntries` (the hint first), where they stay for the whole decode.
    struct TopLevelMap {
        var entryCount: Int
        /// The first key that is neither a string nor an integer, which a keyed
        /// container of this map reports as it would have found it scanning.
        var unsupportedKey: MessagePackReadError?
    }

    private let state: UnsafeMutablePointer<State>

    private let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    lazy var userInfo: [CodingUserInfoKey: Any] = sendableUserInfo.mapValues { $0 }

    var codingPath: [any CodingKey] { state.pointee.codingPath }
    var bytes: UnsafeRawBufferPointer { state.pointee.bytes }
    var reader: MessagePackReader { MessagePackReader(bytes: state.pointee.bytes) }

    init(bytes: UnsafeRawBufferPointer, userInfo: [CodingUserInfoKey: any Sendable], spans: [MessagePackContainerSpan],
         codingPath: [any CodingKey] = [], valueOffset: Int = 0, depth: Int = 0) {
        state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State(bytes: bytes, codingPath: codingPath, valueOffset: valueOffset, depth: depth, spans: spans))
        sendableUserInfo = userInfo
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Forgets the borrowed buffer (here and in every super decoder handed out).
    /// The entry table keeps its capacity, for the next decode if this object is reused.
    func invalidate() {
        if state.pointee.topLevelBox != nil && !isKnownUniquelyReferenced(&state.pointee.topLevelBox) {
            // Someone kept the top-level container: it now keeps this decoder
            // alive (and so unused by anyone else), and later decodes make a new one.
            state.pointee.link?.keptDecoder = self
            state.pointee.link = nil
            state.pointee.topLevelBox = nil
            state.pointee.topLevelBoxKey = nil
        }
        state.pointee.bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        state.pointee.keyEntries.removeAll(keepingCapacity: true)
        state.pointee.spans = []
        state.pointee.topLevelMap = nil
        for child in state.pointee.children { child.invalidate() }
        state.pointee.children = []
    }

    /// Decoders with empty `userInfo`, kept between top-level decodes.
    static let pool = MessagePackObjectPool<MessagePackBufferDecoder>(capacity: 16)
    /// A decoder whose scratch table grew beyond this many entries is not kept,
    /// so one huge value does not pin its memory for the life of the process.
    static let maximumKeptEntries = 4_096

    /// Readies an invalidated decoder (one from `pool`, with empty `userInfo`)
    /// for a new top-level decode of `bytes`.
    func reuse(bytes: UnsafeRawBufferPointer) {
        state.pointee.bytes = bytes
        state.pointee.codingPath.removeAll()
        state.pointee.valueOffset = 0
        state.pointee.depth = 0
        // The next decode may run on another thread.
        state.pointee.stackBoundsLookedUp = false
    }

    /// How many map entries the scratch table holds room for.
    var keptEntryCapacity: Int { state.pointee.keyEntries.capacity }

    // MARK: Validation

    /// Checks the whole input before any value is built: every length, the
    /// nesting depth and the end of the top-level value against the end of the input.
    ///
    /// A top-level map (the usual stored value) is checked while its entries
    /// are indexed, so its bytes are walked once instead of twice; anything
    /// else is walked by `MessagePackReader.validateValue`. Both report the
    /// same first problem in the same words.
    /// - Throws: `DecodingError.dataCorrupted` for malformed input or trailing bytes.
    func prepare(spans: inout [MessagePackContainerSpan]?) throws {
        let bytes = state.pointee.bytes
        let end: Int
        do throws(MessagePackReadError) {
            if spans == nil, let format = bytes.first, MessagePackFormat.isMap(format) {
                end = try indexTopLevelMap()
            } else {
                end = try reader.validateValue(at: 0, spans: &spans)
            }
        } catch {
            state.pointee.keyEntries.removeAll(keepingCapacity: true)
            state.pointee.topLevelMap = nil
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: error.message))
        }
        guard end == bytes.count else {
            state.pointee.keyEntries.removeAll(keepingCapacity: true)
            state.pointee.topLevelMap = nil
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [],
                debugDescription: "Found \(bytes.count - end) unexpected bytes after the top-level MessagePack value, which ends at offset \(end)."))
        }
        if let spans { state.pointee.spans = spans }
    }

    /// Validates the map at offset 0 entry by entry (each key and value walked
    /// once, at depth 1) and records its entries; returns the offset past it.
    private func indexTopLevelMap() throws(MessagePackReadError) -> Int {
        let reader = self.reader
        var position = 0
        let count = try reader.readMapHeader(at: &position)
        // The header check guarantees 2 bytes per entry remain, so this is bounded by the input.
        state.pointee.keyEntries.reserveCapacity(count + 1)
        state.pointee.keyEntries.append(KeyEntry(keyStart: 0, keyLength: 0, valueStart: 0))
        var map = TopLevelMap(entryCount: count, unsupportedKey: nil)
        for _ in 0..<count {
            let keyOffset = position
            let format = try reader.byte(at: keyOffset)
            if MessagePackFormat.isString(format) {
                // Reading the string's range checks all a validation walk of it would.
                let (start, length) = try reader.readStringRange(at: &position)
                state.pointee.keyEntries.append(KeyEntry(keyStart: start, keyLength: length, valueStart: position))
                position = try reader.validateValue(at: position, depth: 1)
                continue
            }
            position = try reader.validateValue(at: keyOffset, depth: 1)
            if MessagePackFormat.isInteger(format) {
                state.pointee.keyEntries.append(KeyEntry(keyStart: keyOffset, keyLength: -1, valueStart: position))
            } else {
                if map.unsupportedKey == nil { map.unsupportedKey = .unsupportedKey(found: format, offset: keyOffset) }
                state.pointee.keyEntries.append(KeyEntry(keyStart: 0, keyLength: -2, valueStart: position))
            }
            position = try reader.validateValue(at: position, depth: 1)
        }
        state.pointee.topLevelMap = map
        return position
    }

    // MARK: Values

    func decodeTopLevel<T: Decodable>(_ type: T.Type) throws -> T {
        guard let kind = MessagePackScalarKind(T.self) else {
            return try decodeNested(T.self, at: state.pointee.valueOffset, key: nil)
        }
        var offset = state.pointee.valueOffset
        do throws(MessagePackReadError) {
            return try MessagePackScalarDecoding.read(T.self, kind: kind, from: reader, at: &offset)
        } catch {
            throw error.decodingError(expecting: T.self, codingPath: codingPath)
        }
    }

    /// Runs `T.init(from:)` with this decoder standing for the value at `offset`.
    ///
    /// `containerPath` is the coding path of the container the value is read
    /// from. It normally equals the decoder's own path (so `key` is simply
    /// pushed), but a container obtained from `nestedContainer` sits deeper, and
    /// then its extra keys are pushed too for the duration of the call.
    /// - Throws: `DecodingError.dataCorrupted` beyond the nesting limit, or when
    ///   the thread's stack has too little left for another level (see
    ///   `MessagePackStackCheck`), and whatever `T.init(from:)` throws.
    func decodeNested<T: Decodable>(
        _ type: T.Type, at offset: Int, key: (any CodingKey)?, containerPath: [any CodingKey]? = nil
    ) throws -> T {
        guard state.pointee.depth < MessagePackReader.maximumDepth else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: (containerPath ?? codingPath) + (key.map { [$0] } ?? []),
                debugDescription: "Decoding \(T.self) would nest more than \(MessagePackReader.maximumDepth) levels deep."))
        }
        if state.pointee.depth >= MessagePackStackCheck.checkedDepth {
            try checkStackLeft(for: T.self, key: key, containerPath: containerPath)
        }
        let outerOffset = state.pointee.valueOffset
        // Containers created while decoding this value die with it (unless a type
        // smuggles one out, which then sees no keys), so their index entries are
        // dropped afterwards and memory stays proportional to the nesting depth.
        let outerEntryCount = state.pointee.keyEntries.count
        var replacedPath: [any CodingKey]?
        var pushedKeys = 0
        if let key {
            let ownCount = state.pointee.codingPath.count
            if let containerPath, containerPath.count != ownCount {
                if containerPath.count > ownCount {
                    // A nested container: its path is this decoder's path plus the
                    // nested keys, so only those are pushed (copying the whole path
                    // for every element would cost the depth each time).
                    state.pointee.codingPath.append(contentsOf: containerPath[ownCount...])
                    pushedKeys = containerPath.count - ownCount
                } else {
                    // Only a container used outside the value that made it gets here.
                    replacedPath = state.pointee.codingPath
                    state.pointee.codingPath = Array(containerPath)
                }
            }
            state.pointee.codingPath.append(key)
            pushedKeys += 1
        }
        state.pointee.valueOffset = offset
        state.pointee.depth += 1
        defer {
            state.pointee.valueOffset = outerOffset
            state.pointee.depth -= 1
            if let replacedPath {
                state.pointee.codingPath = replacedPath
            } else if pushedKeys > 0 && state.pointee.codingPath.count >= pushedKeys {
                state.pointee.codingPath.removeLast(pushedKeys)
            }
            truncateKeyEntries(to: outerEntryCount)
        }
        return try T(from: self)
    }

    /// Throws when the thread's stack has less than `MessagePackStackCheck.reserve`
    /// bytes left for decoding another level of `T`.
    private func checkStackLeft<T>(for type: T.Type, key: (any CodingKey)?, containerPath: [any CodingKey]?) throws {
        if !state.pointee.stackBoundsLookedUp {
            state.pointee.stackBounds = MessagePackStackCheck.currentBounds()
            state.pointee.stackBoundsLookedUp = true
        }
        guard let bounds = state.pointee.stackBounds, let left = MessagePackStackCheck.left(in: bounds),
              left < MessagePackStackCheck.reserve else { return }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: (containerPath ?? codingPath) + (key.map { [$0] } ?? []),
            debugDescription: "Decoding \(T.self) \(state.pointee.depth + 1) levels deep would leave less than \(MessagePackStackCheck.reserve / 1024) KiB of the \((bounds.highest - bounds.lowest) / 1024) KiB stack of this thread; decode it on a thread with a larger stack (a value may nest \(MessagePackReader.maximumDepth) levels, about 2 KB of stack each)."))
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if state.pointee.valueOffset == 0, let map = state.pointee.topLevelMap, state.pointee.codingPath.isEmpty {
            if let unsupported = map.unsupportedKey {
                throw unsupported.decodingError(expecting: [String: Any].self, codingPath: [])
            }
            return topLevelContainer(Key.self)
        }
        return KeyedDecodingContainer(try makeKeyedContainer(Key.self, at: state.pointee.valueOffset, codingPath: nil))
    }

    /// A container's entry count: its own, or for the reused top-level
    /// container (-1) the count of the current input's top-level map (0 once invalidated).
    @inline(__always)
    func resolvedEntryCount(_ count: Int) -> Int {
        count >= 0 ? count : state.pointee.topLevelMap?.entryCount ?? 0
    }

    /// Whether a `KeyedDecodingContainer` is exactly one reference to its box,
    /// as it has been since Swift 4; otherwise boxes are never reused.
    private static let containerIsOneReference =
        MemoryLayout<KeyedDecodingContainer<MessagePackCodingKey>>.size == MemoryLayout<AnyObject>.size

    /// The keyed container of the top-level map: the previous decode's box when
    /// it was made for the same `Key` and nobody kept it, so that most decodes
    /// allocate no container at all.
    private func topLevelContainer<Key: CodingKey>(_ type: Key.Type) -> KeyedDecodingContainer<Key> {
        let key = ObjectIdentifier(Key.self)
        if state.pointee.topLevelBoxKey == key && isKnownUniquelyReferenced(&state.pointee.topLevelBox),
           let box = state.pointee.topLevelBox {
            return unsafeBitCast(box, to: KeyedDecodingContainer<Key>.self)
        }
        let link: MessagePackContainerLink
        if let existing = state.pointee.link {
            link = existing
        } else {
            link = MessagePackContainerLink(decoder: self)
            state.pointee.link = link
        }
        let container = KeyedDecodingContainer(MessagePackKeyedDecodingContainer<Key>(topLevelOf: link))
        if Self.containerIsOneReference {
            state.pointee.topLevelBox = unsafeBitCast(container, to: AnyObject.self)
            state.pointee.topLevelBoxKey = key
        }
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try makeUnkeyedContainer(at: state.pointee.valueOffset, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        MessagePackSingleValueDecodingContainer(decoder: self, offset: state.pointee.valueOffset, codingPath: codingPath)
    }

    // MARK: Containers

    /// Indexes the map at `offset` for a keyed container whose path is `ownPath`, or this
    /// decoder's path when that is nil.
    func makeKeyedContainer<Key: CodingKey>(
        _ type: Key.Type, at offset: Int, codingPath ownPath: [any CodingKey]?
    ) throws -> MessagePackKeyedDecodingContainer<Key> {
        let reader = self.reader
        var position = offset
        let hintIndex = state.pointee.keyEntries.count
        let firstEntry = hintIndex + 1
        do throws(MessagePackReadError) {
            let count = try reader.readMapHeader(at: &position)
            // The header check guarantees 2 bytes per entry remain, so this is bounded
            // by the input size; growing geometrically keeps many small maps linear.
            let needed = firstEntry + count
            if needed > state.pointee.keyEntries.capacity {
                state.pointee.keyEntries.reserveCapacity(max(needed, 2 * state.pointee.keyEntries.capacity))
            }
            state.pointee.keyEntries.append(KeyEntry(keyStart: 0, keyLength: 0, valueStart: 0))
            for _ in 0..<count {
                let keyOffset = position
                let format = try reader.byte(at: keyOffset)
                let entry: KeyEntry
                switch format {
                case 0xa0...0xbf, MessagePackFormat.str8, MessagePackFormat.str16, MessagePackFormat.str32:
                    let (start, length) = try reader.readStringRange(at: &position)
                    entry = KeyEntry(keyStart: start, keyLength: length, valueStart: position)
                case 0x00...0x7f, 0xe0...0xff, MessagePackFormat.uint8...MessagePackFormat.int64:
                    _ = try reader.readInteger(at: &position)
                    entry = KeyEntry(keyStart: keyOffset, keyLength: -1, valueStart: position)
                default:
                    throw .unsupportedKey(found: format, offset: keyOffset)
                }
                position = try endOfValue(at: position)
                state.pointee.keyEntries.append(entry)
            }
            return MessagePackKeyedDecodingContainer(
                decoder: self, firstEntry: firstEntry, entryCount: count, codingPath: ownPath)
        } catch {
            truncateKeyEntries(to: hintIndex)
            throw error.decodingError(expecting: [String: Any].self, codingPath: ownPath ?? codingPath)
        }
    }

    /// Offset just past the value at `offset`, jumping over big containers with
    /// the span table instead of walking them (see `MessagePackContainerSpan`).
    func endOfValue(at offset: Int) throws(MessagePackReadError) -> Int {
        let reader = self.reader
        if !state.pointee.spans.isEmpty {
            let header = try reader.header(at: offset)
            guard header.isContainer && header.children > 0 else { return header.next }
            if let end = MessagePackContainerSpan.end(ofContainerAt: offset, in: state.pointee.spans) {
                return end
            }
        }
        return try reader.skipValue(at: offset)
    }

    /// Drops index entries of containers that are gone (never traps, even if a
    /// misused decoder already lost them).
    private func truncateKeyEntries(to count: Int) {
        let current = state.pointee.keyEntries.count
        if count >= 0 && count < current {
            state.pointee.keyEntries.removeSubrange(count..<current)
        }
    }

    func makeUnkeyedContainer(at offset: Int, codingPath: [any CodingKey]) throws -> MessagePackUnkeyedDecodingContainer {
        var position = offset
        do throws(MessagePackReadError) {
            let count = try reader.readArrayHeader(at: &position)
            return MessagePackUnkeyedDecodingContainer(decoder: self, codingPath: codingPath, elementCount: count, position: position)
        } catch {
            throw error.decodingError(expecting: [Any].self, codingPath: codingPath)
        }
    }

    /// A separate decoder for the value at `offset`, as `superDecoder()` returns.
    func makeChildDecoder(at offset: Int, codingPath: [any CodingKey]) -> MessagePackBufferDecoder {
        let child = MessagePackBufferDecoder(bytes: bytes, userInfo: sendableUserInfo, spans: state.pointee.spans,
                                             codingPath: codingPath, valueOffset: offset, depth: state.pointee.depth + 1)
        state.pointee.children.append(child)
        return child
    }

    // MARK: Key lookup

    /// Returns the value offset stored under `key` in a keyed container's entries.
    func findValue(forKey key: String, firstEntry: Int, entryCount: Int) -> Int? {
        let entryCount = resolvedEntryCount(entryCount)
        // Also rejects containers that outlived their value (their entries are gone).
        guard entryCount > 0, firstEntry >= 1, firstEntry + entryCount <= state.pointee.keyEntries.count else { return nil }
        let hintIndex = firstEntry - 1
        var key = key
        return key.withUTF8 { keyBytes -> Int? in
            var index = state.pointee.keyEntries[hintIndex].keyStart
            if index < 0 || index >= entryCount { index = 0 }
            for _ in 0..<entryCount {
                let entry = state.pointee.keyEntries[firstEntry + index]
                if matches(entry, keyBytes) {
                    state.pointee.keyEntries[hintIndex].keyStart = index + 1
                    return entry.valueStart
                }
                index += 1
                if index == entryCount { index = 0 }
            }
            return nil
        }
    }

    @inline(__always)
    private func matches(_ entry: KeyEntry, _ keyBytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if entry.keyLength < 0 {
            return integerKeyText(at: entry.keyStart)?.utf8.elementsEqual(keyBytes) ?? false
        }
        let length = entry.keyLength
        guard length == keyBytes.count else { return false }
        // Re-checked because an invalidated decoder has an empty buffer.
        let bytes = self.bytes
        guard entry.keyStart >= 0, entry.keyStart <= bytes.count, length <= bytes.count - entry.keyStart,
              let stored = bytes.baseAddress, let wanted = keyBytes.baseAddress else { return length == 0 }
        // Eight bytes at a time, then four, two and one: most keys are one or two words.
        let start = stored + entry.keyStart
        let other = UnsafeRawPointer(wanted)
        var index = 0
        while length - index >= 8 {
            if start.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                != other.loadUnaligned(fromByteOffset: index, as: UInt64.self) { return false }
            index += 8
        }
        if length - index >= 4 {
            if start.loadUnaligned(fromByteOffset: index, as: UInt32.self)
                != other.loadUnaligned(fromByteOffset: index, as: UInt32.self) { return false }
            index += 4
        }
        if length - index >= 2 {
            if start.loadUnaligned(fromByteOffset: index, as: UInt16.self)
                != other.loadUnaligned(fromByteOffset: index, as: UInt16.self) { return false }
            index += 2
        }
        return index == length || start.load(fromByteOffset: index, as: UInt8.self) == other.load(fromByteOffset: index, as: UInt8.self)
    }

    /// The decimal text of an integer map key, which is what string keys are matched against.
    private func integerKeyText(at offset: Int) -> String? {
        var position = offset
        return (try? reader.readInteger(at: &position))?.description
    }

    /// Builds the keys of a keyed container that `Key` can represent.
    func allKeys<Key: CodingKey>(_ type: Key.Type, firstEntry: Int, entryCount: Int) -> [Key] {
        let entryCount = resolvedEntryCount(entryCount)
        guard firstEntry >= 0, firstEntry + entryCount <= state.pointee.keyEntries.count else { return [] }
        let reader = self.reader
        var keys: [Key] = []
        keys.reserveCapacity(entryCount)
        for entry in state.pointee.keyEntries[firstEntry..<firstEntry + entryCount] {
            if entry.keyLength < 0 {
                guard let text = integerKeyText(at: entry.keyStart) else { continue }
                if let key = Key(stringValue: text) ?? Int(text).flatMap(Key.init(intValue:)) {
                    keys.append(key)
                }
            } else {
                guard entry.keyStart >= 0, entry.keyStart <= bytes.count, entry.keyLength <= bytes.count - entry.keyStart,
                      let text = reader.makeString(start: entry.keyStart, length: entry.keyLength),
                      let key = Key(stringValue: text) else { continue }
                keys.append(key)
            }
        }
        return keys
    }
}
