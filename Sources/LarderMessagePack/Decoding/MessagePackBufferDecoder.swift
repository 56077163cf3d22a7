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
/// A small top-level map (the usual stored value) is read in one pass: keys
/// are compared where they stand as the type asks for them in the order they
/// were written, and each value is checked by the read that decodes it (see
/// `TopLevelStream`). Only a lookup out of that order indexes the map.
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
        /// The top-level map while it is read in one pass (see `TopLevelStream`);
        /// nil once it is indexed, and for every other input.
        var stream: TopLevelStream?
        /// Whether this decode began by streaming its top-level map; its input is then
        /// checked as it is read, and again in full if the decode fails (see `reportMalformedInput`).
        var streamed = false
        /// Whether a keyed container was handed out for a streamed top-level map, which then
        /// must not have keys other than strings and integers.
        var streamedMapKeyed = false
        /// The top-level map's index, made when a lookup leaves the stream's order
        /// (see `indexStreamedMap()`): the container at offset 0 reads it.
        var topLevelMap: TopLevelMap?
        /// The entries of `topLevelMap`, the hint first, apart from `keyEntries` so that the nested
        /// containers' entries, which come and go with their values, never move them.
        var topLevelEntries: [KeyEntry] = []
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

    /// The top-level map read in one pass. `position` is the offset of the first
    /// entry not yet passed; everything before it has been checked, either by the
    /// read that decoded a value or by the validation walk. A lookup whose key is
    /// the one at `position` returns its value's offset as `pendingValue`; the read
    /// of that value then moves past it (`passedTopLevelValue`).
    struct TopLevelStream {
        var entryCount: Int
        var passed: Int
        var position: Int
        var pendingValue = -1
    }

    /// The top-level map's index, made by `indexTopLevelMap()`. Its entries sit in
    /// `topLevelEntries` (the hint first), where they stay for the whole decode.
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
        state.pointee.topLevelEntries.removeAll(keepingCapacity: true)
        state.pointee.stream = nil
        state.pointee.streamed = false
        state.pointee.streamedMapKeyed = false
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
    var keptEntryCapacity: Int { max(state.pointee.keyEntries.capacity, state.pointee.topLevelEntries.capacity) }

    // MARK: Validation

    /// Readies the input for decoding. A top-level map of a small input is only
    /// opened: it is checked as it is read (`TopLevelStream`), and its end and
    /// the entries nobody read are checked by `finishTopLevelMap()`. Anything
    /// else is checked completely here, before any value is built, by
    /// `MessagePackReader.validateValue`.
    /// - Throws: `DecodingError.dataCorrupted` for malformed input or trailing bytes.
    func prepare(spans: inout [MessagePackContainerSpan]?) throws {
        let bytes = state.pointee.bytes
        let end: Int
        do throws(MessagePackReadError) {
            if spans == nil, let format = bytes.first, MessagePackFormat.isMap(format) {
                var position = 0
                let count = try reader.readMapHeader(at: &position)
                state.pointee.stream = TopLevelStream(entryCount: count, passed: 0, position: position)
                state.pointee.streamed = true
                return
            }
            end = try reader.validateValue(at: 0, spans: &spans)
        } catch {
            throw Self.corrupted(error)
        }
        guard end == bytes.count else { throw Self.trailingBytes(end: end, count: bytes.count) }
        if let spans { state.pointee.spans = spans }
    }

    private static func corrupted(_ error: MessagePackReadError) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: error.message, underlyingError: error.nestingLimit))
    }

    private static func trailingBytes(end: Int, count: Int) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: [],
            debugDescription: "Found \(count - end) unexpected bytes after the top-level MessagePack value, which ends at offset \(end)."))
    }

    /// Checks what the stream of a top-level map has not passed once the value
    /// is decoded: the entries nobody read (walked as validation walks them),
    /// their keys' kinds if a keyed container read the map, and the input's end.
    func finishTopLevelMap() throws {
        guard state.pointee.streamed else { return }
        guard let stream = state.pointee.stream else {
            // The map was indexed, which checked it all; what it found is reported even to a
            // type that ignored the error its lookup threw.
            guard let map = state.pointee.topLevelMap else {
                try reportMalformedInput()
                throw Self.corrupted(.invalidValue("The top-level map could not be read.", offset: 0))
            }
            if state.pointee.streamedMapKeyed, let unsupported = map.unsupportedKey {
                throw unsupported.decodingError(expecting: [String: Any].self, codingPath: [])
            }
            return
        }
        state.pointee.stream = nil
        let reader = self.reader
        var position = stream.position
        var unsupported: MessagePackReadError?
        do throws(MessagePackReadError) {
            for _ in stream.passed..<stream.entryCount {
                let format = try reader.byte(at: position)
                if unsupported == nil && !MessagePackFormat.isString(format) && !MessagePackFormat.isInteger(format) {
                    unsupported = .unsupportedKey(found: format, offset: position)
                }
                position = try reader.validateValue(at: position, depth: 1)
                position = try reader.validateValue(at: position, depth: 1)
            }
        } catch {
            throw Self.corrupted(error)
        }
        guard position == reader.bytes.count else { throw Self.trailingBytes(end: position, count: reader.bytes.count) }
        if state.pointee.streamedMapKeyed, let unsupported {
            throw unsupported.decodingError(expecting: [String: Any].self, codingPath: [])
        }
    }

    /// After a decode that streamed its top-level map failed: throws the input's
    /// first structural problem, in the words of the validation walk, if it has
    /// one, so that a malformed input is reported as malformed whatever the type
    /// read first (as when the whole input was checked before decoding).
    func reportMalformedInput() throws {
        guard state.pointee.streamed else { return }
        let bytes = state.pointee.bytes
        var noSpans: [MessagePackContainerSpan]? = nil
        let end: Int
        do throws(MessagePackReadError) {
            end = try reader.validateValue(at: 0, spans: &noSpans)
        } catch {
            throw Self.corrupted(error)
        }
        guard end == bytes.count else { throw Self.trailingBytes(end: end, count: bytes.count) }
    }

    /// Leaves the stream: indexes the whole top-level map (checking it, as
    /// validation would, and its end), with the lookup hint where the stream stood.
    /// - Throws: `DecodingError.dataCorrupted` for malformed input, and the
    ///   unsupported-key error if a keyed container reads a map with such a key.
    private func indexStreamedMap() throws {
        guard let stream = state.pointee.stream else { return }
        state.pointee.stream = nil
        let end: Int
        do throws(MessagePackReadError) {
            end = try indexTopLevelMap()
        } catch {
            state.pointee.topLevelEntries.removeAll(keepingCapacity: true)
            state.pointee.topLevelMap = nil
            throw Self.corrupted(error)
        }
        guard end == state.pointee.bytes.count else {
            state.pointee.topLevelMap = nil
            throw Self.trailingBytes(end: end, count: state.pointee.bytes.count)
        }
        state.pointee.topLevelEntries[0].keyStart = stream.passed
        if state.pointee.streamedMapKeyed, let unsupported = state.pointee.topLevelMap?.unsupportedKey {
            throw unsupported.decodingError(expecting: [String: Any].self, codingPath: [])
        }
    }

    /// Validates the map at offset 0 entry by entry (each key and value walked
    /// once, at depth 1) and records its entries; returns the offset past it.
    private func indexTopLevelMap() throws(MessagePackReadError) -> Int {
        let reader = self.reader
        var position = 0
        let count = try reader.readMapHeader(at: &position)
        state.pointee.topLevelEntries.removeAll(keepingCapacity: true)
        // The header check guarantees 2 bytes per entry remain, so this is bounded by the input.
        state.pointee.topLevelEntries.reserveCapacity(count + 1)
        state.pointee.topLevelEntries.append(KeyEntry(keyStart: 0, keyLength: 0, valueStart: 0))
        var map = TopLevelMap(entryCount: count, unsupportedKey: nil)
        for _ in 0..<count {
            let keyOffset = position
            let format = try reader.byte(at: keyOffset)
            if MessagePackFormat.isString(format) {
                // Reading the string's range checks all a validation walk of it would.
                let (start, length) = try reader.readStringRange(at: &position)
                state.pointee.topLevelEntries.append(KeyEntry(keyStart: start, keyLength: length, valueStart: position))
                position = try reader.validateValue(at: position, depth: 1)
                continue
            }
            position = try reader.validateValue(at: keyOffset, depth: 1)
            if MessagePackFormat.isInteger(format) {
                state.pointee.topLevelEntries.append(KeyEntry(keyStart: keyOffset, keyLength: -1, valueStart: position))
            } else {
                if map.unsupportedKey == nil { map.unsupportedKey = .unsupportedKey(found: format, offset: keyOffset) }
                state.pointee.topLevelEntries.append(KeyEntry(keyStart: 0, keyLength: -2, valueStart: position))
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
            let message = "Decoding \(T.self) would nest more than \(MessagePackReader.maximumDepth) levels deep."
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: (containerPath ?? codingPath) + (key.map { [$0] } ?? []),
                debugDescription: message, underlyingError: MessagePackNestingLimit(.depth, message)))
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
        let message = "Decoding \(T.self) \(state.pointee.depth + 1) levels deep would leave less than \(MessagePackStackCheck.reserve / 1024) KiB of the \((bounds.highest - bounds.lowest) / 1024) KiB stack of this thread; decode it on a thread with a larger stack (a value may nest \(MessagePackReader.maximumDepth) levels, about 2 KB of stack each)."
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: (containerPath ?? codingPath) + (key.map { [$0] } ?? []),
            debugDescription: message, underlyingError: MessagePackNestingLimit(.stack, message)))
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if state.pointee.valueOffset == 0 && state.pointee.codingPath.isEmpty {
            if state.pointee.stream != nil {
                state.pointee.streamedMapKeyed = true
                return topLevelContainer(Key.self)
            }
            if let map = state.pointee.topLevelMap {
                if let unsupported = map.unsupportedKey {
                    throw unsupported.decodingError(expecting: [String: Any].self, codingPath: [])
                }
                return topLevelContainer(Key.self)
            }
        }
        return KeyedDecodingContainer(try makeKeyedContainer(Key.self, at: state.pointee.valueOffset, codingPath: nil))
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

    /// Returns the value offset stored under `key` in a keyed container's entries
    /// (for the top-level container, entry count -1, the stream or the top-level index).
    /// - Throws: Only for the top-level container, when leaving the stream finds the map
    ///   malformed (see `indexStreamedMap()`).
    @inline(__always)
    func findValue(forKey key: String, firstEntry: Int, entryCount: Int) throws -> Int? {
        guard entryCount < 0 else {
            return withUnsafeMutablePointer(to: &state.pointee.keyEntries) {
                findValue(forKey: key, in: $0, firstEntry: firstEntry, entryCount: entryCount)
            }
        }
        if state.pointee.stream != nil {
            if let offset = streamedValue(forKey: key) { return offset }
            try indexStreamedMap()
        }
        let entryCount = state.pointee.topLevelMap?.entryCount ?? 0
        return withUnsafeMutablePointer(to: &state.pointee.topLevelEntries) {
            findValue(forKey: key, in: $0, firstEntry: 1, entryCount: entryCount)
        }
    }

    /// Returns the value offset stored under the integer key `number` (a `CodingKey`'s
    /// `intValue`, looked for when no key matches its `stringValue`: a map written in a
    /// numbered layout). Entries and the top-level map as in `findValue(forKey:firstEntry:entryCount:)`.
    func findValue(forIntegerKey number: Int, firstEntry: Int, entryCount: Int) throws -> Int? {
        var table = state.pointee.keyEntries
        var firstEntry = firstEntry
        var entryCount = entryCount
        if entryCount < 0 {
            if state.pointee.stream != nil { try indexStreamedMap() }
            table = state.pointee.topLevelEntries
            firstEntry = 1
            entryCount = state.pointee.topLevelMap?.entryCount ?? 0
        }
        guard entryCount > 0, firstEntry >= 1, firstEntry + entryCount <= table.count else { return nil }
        let wanted = Int64(number)
        for entry in table[firstEntry..<firstEntry + entryCount] where entry.keyLength < 0 {
            var position = entry.keyStart
            guard let integer = try? reader.readInteger(at: &position) else { continue }
            switch integer {
            case .negative(let value) where value == wanted: return entry.valueStart
            case .nonNegative(let value) where wanted >= 0 && value == UInt64(wanted): return entry.valueStart
            default: continue
            }
        }
        return nil
    }

    /// The value offset of the stream's next entry if its key is `key` (the usual case: types
    /// read their keys in the order they were written); nil otherwise.
    @inline(__always)
    private func streamedValue(forKey key: String) -> Int? {
        guard let stream = state.pointee.stream, stream.passed < stream.entryCount else { return nil }
        var position = stream.position
        guard let format = try? reader.byte(at: position), MessagePackFormat.isString(format),
              let (start, length) = try? reader.readStringRange(at: &position) else { return nil }
        var key = key
        let found = key.withUTF8 { matches(KeyEntry(keyStart: start, keyLength: length, valueStart: position), $0) }
        guard found else { return nil }
        state.pointee.stream?.pendingValue = position
        return position
    }

    /// Moves the stream past the value at `offset` when it is the one the last lookup
    /// returned: to `end`, where a read that decoded a scalar stopped, or past the
    /// value walked as validation walks it (a container, or `end` nil).
    /// - Throws: `DecodingError.dataCorrupted` when that walk finds the value malformed.
    @inline(__always)
    func passedTopLevelValue(at offset: Int, end: Int?) throws {
        guard state.pointee.stream?.pendingValue == offset else { return }
        var next: Int
        if let end, let format = try? reader.byte(at: offset), !MessagePackFormat.isContainer(format) {
            next = end
        } else {
            do throws(MessagePackReadError) {
                next = try reader.validateValue(at: offset, depth: 1)
            } catch {
                throw Self.corrupted(error)
            }
        }
        state.pointee.stream?.position = next
        state.pointee.stream?.passed += 1
        state.pointee.stream?.pendingValue = -1
    }

    /// Searches `count` entries of `table` from `firstEntry`, starting where the hint (the entry
    /// before them) says.
    @inline(__always)
    private func findValue(forKey key: String, in table: UnsafeMutablePointer<[KeyEntry]>,
                           firstEntry: Int, entryCount: Int) -> Int? {
        // Also rejects containers that outlived their value (their entries are gone).
        guard entryCount > 0, firstEntry >= 1, firstEntry + entryCount <= table.pointee.count else { return nil }
        let hintIndex = firstEntry - 1
        var key = key
        return key.withUTF8 { keyBytes -> Int? in
            var index = table.pointee[hintIndex].keyStart
            if index < 0 || index >= entryCount { index = 0 }
            for _ in 0..<entryCount {
                let entry = table.pointee[firstEntry + index]
                if matches(entry, keyBytes) {
                    table.pointee[hintIndex].keyStart = index + 1
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
        var table = state.pointee.keyEntries
        var firstEntry = firstEntry
        var entryCount = entryCount
        if entryCount < 0 {
            // The top-level map: its keys are all known only once it is indexed (a malformed
            // map has none; the decode reports it).
            guard (try? indexStreamedMap()) != nil, let map = state.pointee.topLevelMap, map.unsupportedKey == nil else { return [] }
            table = state.pointee.topLevelEntries
            firstEntry = 1
            entryCount = map.entryCount
        }
        guard firstEntry >= 0, firstEntry + entryCount <= table.count else { return [] }
        let reader = self.reader
        var keys: [Key] = []
        keys.reserveCapacity(entryCount)
        for entry in table[firstEntry..<firstEntry + entryCount] {
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
