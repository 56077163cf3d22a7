#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading a changeset back from the `log` database, where ``Changeset/logBytes(storedValues:)``
/// wrote it: a MessagePack map of
/// - `version`: ``Changeset/logEntryVersion`` (2), whose payloads are `bin`, or
///   ``Changeset/integerArrayLogEntryVersion`` (1, stores of format 1 and 2), whose payloads are
///   arrays of byte-sized integers;
/// - `first`, `last`: the commits covered;
/// - `everything`: whether everything was removed;
/// - `cleared`: the collections cleared;
/// - `changes`: collection → key → the object's change code + 16 × the metadata's (0 none,
///   1 inserted, 2 updated, 3 removed);
/// - `extensions`: extension name → payloads; `info`: payloads;
/// - `time` (absent in entries written before commits had times): a timestamp;
/// - `undo` (only on a commit that undid or redid, and absent in entries written before undo
///   actions were logged): an array of `[kind, step, name]`, kind `"undo"` or `"redo"`, step the
///   step's number, name its name (``UndoAction``);
/// - `values` (only with `keepsValueHistory`): read by the history alone
///   (`ChangeLog+History.swift`), skipped here.
///
/// The entry is walked with the MessagePack reader, not decoded through `Codable`: a Swift
/// dictionary keyed by `String` would keep one of two collections or keys whose names Swift's
/// `String ==` calls equal, and names are bytes.
extension Changeset {
    /// Reads a changeset from its `log` form (either entry version).
    /// - Throws: ``LarderError/Code/corruptValue`` when the bytes are not a log entry this Larder
    ///   reads: not MessagePack, a field missing or of the wrong type, an unknown version or
    ///   change code, or an invalid commit range.
    init(logBytes bytes: UnsafeRawBufferPointer) throws {
        let reader = MessagePackReader(bytes: bytes)
        do throws(any Error) {
            let fields = try Self.logFields(reader)
            guard let versionOffset = fields.version else { throw MessagePackReadError.invalidValue("no version", offset: 0) }
            var offset = versionOffset
            let version = try reader.readInteger(Int.self, at: &offset)
            guard version == Self.logEntryVersion || version == Self.integerArrayLogEntryVersion else {
                throw LarderError(.corruptValue, "a change log entry has version \(version), which this Larder does not know", operation: "readChangeLog")
            }
            func required(_ offset: Int?, _ name: String) throws(MessagePackReadError) -> Int {
                guard let offset else { throw .invalidValue("no \(name)", offset: 0) }
                return offset
            }
            offset = try required(fields.first, "first")
            let first = try reader.readInteger(UInt64.self, at: &offset)
            offset = try required(fields.last, "last")
            let last = try reader.readInteger(UInt64.self, at: &offset)
            guard first <= last else {
                throw LarderError(.corruptValue, "a change log entry has an invalid commit range", operation: "readChangeLog")
            }
            self.init(commit: last)
            commits = first...last
            offset = try required(fields.everything, "everything")
            removedEverything = try reader.readBool(at: &offset)
            offset = try required(fields.cleared, "cleared")
            for _ in 0..<(try reader.readArrayHeader(at: &offset)) {
                recordCleared(try reader.readString(at: &offset))
            }
            offset = try required(fields.changes, "changes")
            try readChanges(reader, at: &offset)
            let binaryPayloads = version == Self.logEntryVersion
            offset = try required(fields.extensions, "extensions")
            for _ in 0..<(try reader.readMapHeader(at: &offset)) {
                let name = try reader.readString(at: &offset)
                for payload in try Self.readPayloads(reader, binary: binaryPayloads, at: &offset) {
                    recordExtensionChanges(payload, named: name)
                }
            }
            offset = try required(fields.info, "info")
            for payload in try Self.readPayloads(reader, binary: binaryPayloads, at: &offset) { recordCommitInfo(payload) }
            if var timeOffset = fields.time {
                let (seconds, nanoseconds) = try reader.readTimestamp(at: &timeOffset)
                time = MessagePackTimestamp.date(seconds: seconds, nanoseconds: nanoseconds)
            }
            if var undoOffset = fields.undo { try readUndoActions(reader, at: &undoOffset) }
        } catch let error as MessagePackReadError {
            throw LarderError(.corruptValue, "a change log entry does not decode", operation: "readChangeLog", underlying: error.message)
        }
    }

    /// Where the value of each field starts; the entry's map is walked (and checked to end
    /// where the bytes do) once.
    private struct LogFields {
        var version: Int?, first: Int?, last: Int?, everything: Int?, cleared: Int?, changes: Int?
        var extensions: Int?, info: Int?, time: Int?, undo: Int?
    }

    private static func logFields(_ reader: MessagePackReader) throws(MessagePackReadError) -> LogFields {
        var fields = LogFields()
        var offset = 0
        for _ in 0..<(try reader.readMapHeader(at: &offset)) {
            let name = try reader.readStringRange(at: &offset)
            let bytes = UnsafeRawBufferPointer(rebasing: reader.bytes[name.start..<name.start + name.length])
            func named(_ field: StaticString) -> Bool {
                bytes.count == field.utf8CodeUnitCount && bytes.elementsEqual(UnsafeRawBufferPointer(start: field.utf8Start, count: field.utf8CodeUnitCount))
            }
            if named("version") { fields.version = offset }
            else if named("first") { fields.first = offset }
            else if named("last") { fields.last = offset }
            else if named("everything") { fields.everything = offset }
            else if named("cleared") { fields.cleared = offset }
            else if named("changes") { fields.changes = offset }
            else if named("extensions") { fields.extensions = offset }
            else if named("info") { fields.info = offset }
            else if named("time") { fields.time = offset }
            else if named("undo") { fields.undo = offset }
            offset = try reader.skipValue(at: offset)
        }
        guard offset == reader.bytes.count else { throw .invalidValue("bytes after the entry", offset: offset) }
        return fields
    }

    /// Reads the `changes` map into this changeset, every collection and key as its bytes.
    private mutating func readChanges(_ reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) {
        for _ in 0..<(try reader.readMapHeader(at: &offset)) {
            let collection = try reader.readString(at: &offset)
            for _ in 0..<(try reader.readMapHeader(at: &offset)) {
                let key = try reader.readString(at: &offset)
                let codeOffset = offset
                let code = try reader.readInteger(UInt8.self, at: &offset)
                let change: IndexChange
                do {
                    change = IndexChange(object: try Self.change(code & 0x0f), metadata: try Self.change(code >> 4))
                } catch {
                    throw .invalidValue("unknown change code \(code)", offset: codeOffset)
                }
                let index = YapDB.Index(collection: collection, key: key)
                if let object = change.object { recordObject(index, object) }
                if let metadata = change.metadata { recordMetadata(index, metadata) }
            }
        }
    }

    /// Reads the `undo` array into ``undoActions``.
    private mutating func readUndoActions(_ reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) {
        for _ in 0..<(try reader.readArrayHeader(at: &offset)) {
            let start = offset
            guard try reader.readArrayHeader(at: &offset) == 3 else { throw .invalidValue("an undo action is not [kind, step, name]", offset: start) }
            let kindOffset = offset
            guard let kind = UndoAction.Kind(rawValue: try reader.readString(at: &offset)) else {
                throw .invalidValue("an undo action of an unknown kind", offset: kindOffset)
            }
            let step = try reader.readInteger(UInt64.self, at: &offset)
            recordUndoAction(UndoAction(kind: kind, stepID: step, stepName: try reader.readString(at: &offset)))
        }
    }

    /// An array of payloads: `bin`s, or (`binary` false) arrays of byte-sized integers.
    private static func readPayloads(_ reader: MessagePackReader, binary: Bool, at offset: inout Int) throws(MessagePackReadError) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        for _ in 0..<(try reader.readArrayHeader(at: &offset)) {
            if binary {
                let range = try reader.readBinaryRange(at: &offset)
                payloads.append([UInt8](UnsafeRawBufferPointer(rebasing: reader.bytes[range.start..<range.start + range.length])))
            } else {
                var payload: [UInt8] = []
                for _ in 0..<(try reader.readArrayHeader(at: &offset)) { payload.append(try reader.readInteger(UInt8.self, at: &offset)) }
                payloads.append(payload)
            }
        }
        return payloads
    }
}
