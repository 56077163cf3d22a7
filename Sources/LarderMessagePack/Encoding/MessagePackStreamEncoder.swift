#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Thrown inside the streaming encoder when the caller used containers in an
/// order the single-pass design cannot follow; the top-level call catches it and
/// re-encodes with `MessagePackTreeEncoder`.
struct MessagePackStreamFallback: Error {}

/// The fast `Encoder`: writes every value straight into one byte array.
///
/// Open containers live on a stack of frames. A map or array gets a 1-byte
/// fix-header placeholder that is patched (and widened if more than 15 elements
/// arrived) when the frame closes. A frame closes when the `encode(to:)` call
/// that owns it returns, or, for nested containers and super encoders whose
/// lifetime no call bounds, as soon as a container below it is written again.
///
/// Writing to a container that has already been closed, or to one below the
/// value currently being encoded, cannot be expressed in a single pass; that sets
/// `needsFallback` and the public entry point re-encodes the value with the tree
/// encoder, so the result is always correct, only slower for such unusual code
/// (whose `encode(to:)` then runs twice).
final class MessagePackStreamEncoder: Encoder {
    enum FrameKind: UInt8 {
        /// A value slot nothing has been written to yet (becomes an empty map if it stays so).
        case pending
        case map
        case array
        /// A slot that received one scalar through a single value container.
        case scalar
    }

    struct Frame {
        var id: Int
        var kind: FrameKind
        /// Where the fix-header placeholder of a map or array sits.
        var headerOffset: Int
        /// Elements (arrays) or entries (maps) written so far.
        var count: Int
        /// `path.count` before this frame pushed its key; restored when it closes.
        var pathCountOnOpen: Int
        /// `path.count` while this frame is the innermost one.
        var pathCount: Int
    }

    /// Everything the encoder mutates. It lives behind a pointer because Swift
    /// checks every access to a class's stored `var` at run time (exclusivity
    /// enforcement), which cost about a third of the encoding time; accesses
    /// through a pointer are not checked. The pointer is owned by this object.
    private struct State {
        var writer: MessagePackWriter
        var frames: [Frame] = []
        var path: [any CodingKey] = []
        /// Index in `frames` of the slot of the innermost `encode(to:)` still running.
        /// Frames above it belong to that value and may be closed implicitly; frames
        /// below it belong to callers that are suspended and must not be touched.
        var activeSlotIndex = -1
        var nextFrameID = 1
        /// Set once the stream can no longer be trusted (misuse, or an error that
        /// someone might have caught and ignored); the output is then discarded.
        var needsFallback = false
        /// Set when nested containers (which cannot throw when they open) went past
        /// `MessagePackReader.maximumDepth`; the top-level call throws.
        var tooDeep = false
        /// How deep the value sits in bytes written around it (a property of a generated
        /// archiver's value): counted with the frames against the limit.
        var baseDepth = 0
        /// The calling thread's stack, looked up once the nesting is deep enough to check it.
        var stackBounds: MessagePackStackCheck.Bounds?
        var stackBoundsLookedUp = false
    }

    private let state: UnsafeMutablePointer<State>
    /// The byte writer inside `state`, for the containers.
    let writer: UnsafeMutablePointer<MessagePackWriter>

    private let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    lazy var userInfo: [CodingUserInfoKey: Any] = sendableUserInfo.mapValues { $0 }

    var codingPath: [any CodingKey] { state.pointee.path }
    var needsFallback: Bool { state.pointee.needsFallback }

    init(buffer: [UInt8], userInfo: [CodingUserInfoKey: any Sendable]) {
        state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State(writer: MessagePackWriter(bytes: buffer)))
        state.pointee.frames.reserveCapacity(8)
        // `pointer(to:)` is nil only for computed properties; `writer` is stored.
        writer = state.pointer(to: \.writer)!
        sendableUserInfo = userInfo
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Hands the written bytes back; the encoder must not be used afterwards,
    /// except through `reuse(buffer:)`.
    func takeBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        swap(&bytes, &writer.pointee.bytes)
        return bytes
    }

    /// Encoders with empty `userInfo`, kept between top-level encodes.
    static let pool = MessagePackObjectPool<MessagePackStreamEncoder>(capacity: 16)

    /// Readies an encoder whose bytes were taken (one from `pool`, with empty
    /// `userInfo`) for a new top-level encode appending to `buffer`, which it
    /// leaves empty. Frame ids
    /// keep counting, so no container of an earlier encode matches a new frame.
    /// The buffer is swapped in, not copied, so that it stays uniquely
    /// referenced and the first append does not copy it.
    func reuse(buffer: inout [UInt8]) {
        swap(&writer.pointee.bytes, &buffer)
        state.pointee.frames.removeAll(keepingCapacity: true)
        state.pointee.path.removeAll(keepingCapacity: true)
        state.pointee.activeSlotIndex = -1
        state.pointee.needsFallback = false
        state.pointee.tooDeep = false
        state.pointee.stackBoundsLookedUp = false
        state.pointee.baseDepth = 0
    }

    /// Counts `depth` containers around the value about to be encoded (see `State.baseDepth`).
    func setBaseDepth(_ depth: Int) {
        state.pointee.baseDepth = depth
    }

    func codingPath(prefix count: Int) -> [any CodingKey] {
        let path = state.pointee.path
        return count <= path.count ? Array(path[..<count]) : path
    }

    // MARK: Values

    func encodeTopLevel<T: Encodable>(_ value: T) throws {
        if try MessagePackScalarEncoding.write(value, into: &writer.pointee, codingPath: { [] }) { return }
        try encodeNested(value, key: nil)
        if state.pointee.tooDeep {
            throw Self.nestingError(value, codingPath: [], MessagePackNestingLimit(.depth,
                "The value opens containers nested more than \(MessagePackReader.maximumDepth) deep, which MessagePackDecoder would refuse to read."))
        }
    }

    /// The error of a value of type `T` refused for its nesting. It carries the type's name, not
    /// the value: describing a value nested thousands deep (as anything that prints the error
    /// does) would recurse as deep and could exhaust the stack.
    static func nestingError<T>(_ value: T, codingPath: [any CodingKey], _ limit: MessagePackNestingLimit) -> EncodingError {
        EncodingError.invalidValue(String(describing: T.self), EncodingError.Context(codingPath: codingPath, debugDescription: limit.description, underlyingError: limit))
    }

    /// Throws when encoding `value` one level deeper than the values open would nest past
    /// `MessagePackReader.maximumDepth` (what the decoder reads), or leave the thread less
    /// than `MessagePackStackCheck.reserve` of stack.
    private func checkNesting<T>(_ value: T, key: (any CodingKey)?) throws {
        let level = state.pointee.frames.count + state.pointee.baseDepth
        if level >= MessagePackReader.maximumDepth {
            throw Self.nestingError(value, codingPath: codingPath + (key.map { [$0] } ?? []), MessagePackNestingLimit(.depth,
                "Encoding \(T.self) would nest more than \(MessagePackReader.maximumDepth) levels deep, which MessagePackDecoder would refuse to read."))
        }
        guard level >= MessagePackStackCheck.checkedDepth else { return }
        if !state.pointee.stackBoundsLookedUp {
            state.pointee.stackBounds = MessagePackStackCheck.currentBounds()
            state.pointee.stackBoundsLookedUp = true
        }
        guard let bounds = state.pointee.stackBounds, let left = MessagePackStackCheck.left(in: bounds),
              left < MessagePackStackCheck.reserve else { return }
        throw Self.nestingError(value, codingPath: codingPath + (key.map { [$0] } ?? []), MessagePackNestingLimit(.stack,
            "Encoding \(T.self) \(level + 1) levels deep would leave less than \(MessagePackStackCheck.reserve / 1024) KiB of the \((bounds.highest - bounds.lowest) / 1024) KiB stack of this thread; encode it on a thread with a larger stack."))
    }

    /// Encodes a value that is not a scalar into a fresh slot and closes
    /// everything it opened once its `encode(to:)` returns.
    func encodeNested<T: Encodable>(_ value: T, key: (any CodingKey)?) throws {
        if state.pointee.frames.count + state.pointee.baseDepth >= MessagePackStackCheck.checkedDepth { try checkNesting(value, key: key) }
        let slotIndex = state.pointee.frames.count
        let slotID = pushFrame(kind: .pending, key: key)
        let outerActiveSlot = state.pointee.activeSlotIndex
        state.pointee.activeSlotIndex = slotIndex
        do {
            try value.encode(to: self)
        } catch {
            // The value keeps what it wrote before failing (as with the tree
            // encoder and JSONEncoder), so a caller that catches the error and
            // carries on still produces well-formed output.
            if !state.pointee.needsFallback && slotIndex < state.pointee.frames.count
                && state.pointee.frames[slotIndex].id == slotID {
                do {
                    try closeFrames(downTo: slotIndex)
                } catch {
                    state.pointee.needsFallback = true
                }
                state.pointee.activeSlotIndex = outerActiveSlot
            } else {
                state.pointee.needsFallback = true
            }
            throw error
        }
        guard !state.pointee.needsFallback, slotIndex < state.pointee.frames.count, state.pointee.frames[slotIndex].id == slotID else {
            state.pointee.needsFallback = true
            throw MessagePackStreamFallback()
        }
        try closeFrames(downTo: slotIndex)
        state.pointee.activeSlotIndex = outerActiveSlot
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let (id, pathCount) = openContainer(inSlot: activeSlotID, kind: .map)
        return KeyedEncodingContainer(MessagePackStreamKeyedContainer<Key>(encoder: self, frameID: id, pathCount: pathCount))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let (id, pathCount) = openContainer(inSlot: activeSlotID, kind: .array)
        return MessagePackStreamUnkeyedContainer(encoder: self, frameID: id, pathCount: pathCount)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        MessagePackStreamSingleValueContainer(encoder: self, slotID: activeSlotID, superEncoder: nil)
    }

    private var activeSlotID: Int {
        let index = state.pointee.activeSlotIndex
        return index >= 0 && index < state.pointee.frames.count ? state.pointee.frames[index].id : 0
    }

    // MARK: Frames

    private func pushFrame(kind: FrameKind, key: (any CodingKey)?) -> Int {
        let pathCountOnOpen = state.pointee.path.count
        if let key { state.pointee.path.append(key) }
        let id = state.pointee.nextFrameID
        state.pointee.nextFrameID += 1
        state.pointee.frames.append(Frame(id: id, kind: kind, headerOffset: writer.pointee.count, count: 0,
                            pathCountOnOpen: pathCountOnOpen, pathCount: state.pointee.path.count))
        return id
    }

    /// Pushes a nested map or array frame and its placeholder header.
    func pushContainer(kind: FrameKind, key: any CodingKey) -> (id: Int, pathCount: Int) {
        let id = pushFrame(kind: kind, key: key)
        if state.pointee.frames.count + state.pointee.baseDepth > MessagePackReader.maximumDepth { state.pointee.tooDeep = true }
        writer.pointee.bytes.append(kind == .map ? MessagePackFormat.fixmapMask : MessagePackFormat.fixarrayMask)
        return (id, state.pointee.path.count)
    }

    /// Pushes an empty slot for a super encoder.
    func pushSuperSlot(key: any CodingKey) -> Int {
        pushFrame(kind: .pending, key: key)
    }

    /// Closes (and patches) every frame at index `index` and above, innermost first.
    private func closeFrames(downTo index: Int) throws {
        while state.pointee.frames.count > index {
            let frame = state.pointee.frames.removeLast()
            switch frame.kind {
            case .pending:
                // Nothing was encoded into the slot; JSONEncoder writes {} here too.
                writer.pointee.bytes.append(MessagePackFormat.fixmapMask)
            case .map, .array:
                guard writer.pointee.patchContainerHeader(at: frame.headerOffset, count: frame.count, isMap: frame.kind == .map) else {
                    throw EncodingError.invalidValue(frame.count, EncodingError.Context(
                        codingPath: codingPath(prefix: frame.pathCount),
                        debugDescription: "A container with \(frame.count) elements exceeds the MessagePack limit of 4294967295."))
                }
            case .scalar:
                break
            }
            if state.pointee.path.count > frame.pathCountOnOpen {
                state.pointee.path.removeLast(state.pointee.path.count - frame.pathCountOnOpen)
            }
        }
    }

    /// Makes the frame `id` the innermost one and returns its index, closing
    /// abandoned nested frames above it; falls back if that is impossible.
    @inline(__always)
    private func writableIndex(of id: Int) throws -> Int {
        let last = state.pointee.frames.count - 1
        if last >= 0 && state.pointee.frames[last].id == id { return last }
        return try reopenFrame(id)
    }

    private func reopenFrame(_ id: Int) throws -> Int {
        guard !state.pointee.needsFallback, let index = indexOfFrame(id) else {
            state.pointee.needsFallback = true
            throw MessagePackStreamFallback()
        }
        try closeFrames(downTo: index + 1)
        return index
    }

    /// Searches only the frames of the value being encoded; anything below the
    /// active slot belongs to a suspended caller.
    private func indexOfFrame(_ id: Int) -> Int? {
        var index = state.pointee.frames.count - 1
        let lowest = max(state.pointee.activeSlotIndex, 0)
        while index >= lowest {
            if state.pointee.frames[index].id == id { return index }
            index -= 1
        }
        return nil
    }

    /// Turns the empty slot `slotID` into a map or array, or returns the existing
    /// container of that kind (class hierarchies ask the same encoder twice).
    /// Returns frame id 0, which never matches, after marking a fallback.
    func openContainer(inSlot slotID: Int, kind: FrameKind) -> (id: Int, pathCount: Int) {
        guard !state.pointee.needsFallback, let index = indexOfFrame(slotID) else {
            state.pointee.needsFallback = true
            return (0, state.pointee.path.count)
        }
        let frame = state.pointee.frames[index]
        if frame.kind == .pending && index == state.pointee.frames.count - 1 {
            state.pointee.frames[index].kind = kind
            state.pointee.frames[index].headerOffset = writer.pointee.count
            writer.pointee.bytes.append(kind == .map ? MessagePackFormat.fixmapMask : MessagePackFormat.fixarrayMask)
            return (frame.id, frame.pathCount)
        }
        if frame.kind == kind {
            return (frame.id, frame.pathCount)
        }
        state.pointee.needsFallback = true
        return (0, state.pointee.path.count)
    }

    /// Prepares container `frameID` for one more map entry and writes its key.
    @inline(__always)
    func beginEntry<Key: CodingKey>(in frameID: Int, key: Key) throws {
        let index = try writableIndex(of: frameID)
        state.pointee.frames[index].count += 1
        try MessagePackScalarEncoding.writeString(key.stringValue, into: &writer.pointee, codingPath: { self.codingPath + [key] })
    }

    /// Prepares container `frameID` for one more array element and returns its index.
    @inline(__always)
    func beginElement(in frameID: Int) throws -> Int {
        let index = try writableIndex(of: frameID)
        let position = state.pointee.frames[index].count
        state.pointee.frames[index].count = position + 1
        return position
    }

    /// Number of elements written so far to container `frameID` (0 once it is gone).
    func elementCount(of frameID: Int) -> Int {
        guard let index = indexOfFrame(frameID) else { return 0 }
        return state.pointee.frames[index].count
    }

    /// Claims the empty slot `slotID` for one scalar.
    func beginSingleValue(in slotID: Int) throws {
        let last = state.pointee.frames.count - 1
        guard !state.pointee.needsFallback, last >= 0, last >= state.pointee.activeSlotIndex,
              state.pointee.frames[last].id == slotID, state.pointee.frames[last].kind == .pending else {
            state.pointee.needsFallback = true
            throw MessagePackStreamFallback()
        }
        state.pointee.frames[last].kind = .scalar
    }

    /// Undoes `beginSingleValue` when the value turned out not to be a scalar.
    func endSingleValueWithoutScalar(in slotID: Int) {
        let last = state.pointee.frames.count - 1
        if last >= 0 && state.pointee.frames[last].id == slotID && state.pointee.frames[last].kind == .scalar {
            state.pointee.frames[last].kind = .pending
        } else {
            state.pointee.needsFallback = true
        }
    }

    /// Whether the main encoder's current slot is `slotID`, so delegating a value to it lands in that slot.
    func isActiveSlot(_ slotID: Int) -> Bool {
        slotID != 0 && activeSlotID == slotID
    }

    func markFallback() {
        state.pointee.needsFallback = true
    }
}
