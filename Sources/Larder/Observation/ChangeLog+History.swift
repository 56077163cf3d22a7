#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading the log for the history of one index (``ReadTransaction/history(ofObjectAt:)``).
///
/// Each entry is walked with the MessagePack reader instead of decoded whole: only the parts that
/// concern the index are looked at, and only its value is copied, so a history costs one pass
/// over the log's bytes and allocates little beyond what it returns.
extension ChangeLog {
    /// What one log entry says about one index.
    struct IndexRecord {
        /// The commit (the entry's key in the log).
        var commit: UInt64
        var time: Date?
        /// Whether the commit removed everything (before the changes it lists).
        var removedEverything = false
        /// Whether the commit cleared the index's collection (before the changes it lists).
        var clearedCollection = false
        /// How the commit changed the index, after any clear; `nil` when it is not listed.
        var change: Changeset.IndexChange?
        /// Whether the entry records values (written with `keepsValueHistory`).
        var recordsValues = false
        /// The stored bytes (format byte and payload) of the requested half after the commit,
        /// when recorded.
        var value: [UInt8]?
    }

    /// What each entry the log holds says about the object (or, with `metadata`, the metadata)
    /// at `index`, oldest first; entries that do not concern it are left out.
    /// - Complexity: O(bytes in the log).
    static func records(of index: YapDB.Index, metadata: Bool, in lmdb: LMDBTransaction) throws -> [IndexRecord] {
        let target = IndexTarget(index)
        var records: [IndexRecord] = []
        try lmdb.forEachEntry(in: lmdb.databases.log) { key, value in
            guard key.count == 8 else {
                throw LarderError(.corruptValue, "a change log key is \(key.count) bytes long, not 8", operation: "history", index: index, path: lmdb.environment.path)
            }
            let commit = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
            do throws(HistoryReadError) {
                if let record = try record(of: target, metadata: metadata, commit: commit, in: value) { records.append(record) }
            } catch {
                throw error.larderError(commit: commit, index: index).adding(path: lmdb.environment.path)
            }
            return true
        }
        return records
    }

    /// What the log entry `bytes` of commit `commit` says about `index`: the reading of one entry
    /// that ``records(of:metadata:in:)`` does for each (tests and fuzzing call it directly).
    /// - Throws: ``LarderError/Code/corruptValue`` when the entry does not decode.
    static func record(of index: YapDB.Index, metadata: Bool, commit: UInt64, in bytes: UnsafeRawBufferPointer) throws(LarderError) -> IndexRecord? {
        do throws(HistoryReadError) {
            return try record(of: IndexTarget(index), metadata: metadata, commit: commit, in: bytes)
        } catch {
            throw error.larderError(commit: commit, index: index)
        }
    }

    /// The collection and key looked for, as the UTF-8 bytes the log stores.
    private struct IndexTarget {
        let collection: [UInt8]
        let key: [UInt8]

        init(_ index: YapDB.Index) {
            collection = Array(index.collection.utf8)
            key = Array(index.key.utf8)
        }
    }

    /// What the entry in `bytes` says about `target`; `nil` when nothing.
    private static func record(
        of target: IndexTarget, metadata: Bool, commit: UInt64, in bytes: UnsafeRawBufferPointer
    ) throws(HistoryReadError) -> IndexRecord? {
        let reader = MessagePackReader(bytes: bytes)
        var record = IndexRecord(commit: commit)
        var offset = 0
        var version: UInt64?
        var first: UInt64?
        var last: UInt64?
        do throws(MessagePackReadError) {
            let fields = try reader.readMapHeader(at: &offset)
            for _ in 0..<fields {
                let name = try reader.readStringRange(at: &offset)
                switch Field(reader, name) {
                case .version: version = try reader.readInteger(UInt64.self, at: &offset)
                case .first: first = try reader.readInteger(UInt64.self, at: &offset)
                case .last: last = try reader.readInteger(UInt64.self, at: &offset)
                case .everything: record.removedEverything = try reader.readBool(at: &offset)
                case .time:
                    let (seconds, nanoseconds) = try reader.readTimestamp(at: &offset)
                    record.time = MessagePackTimestamp.date(seconds: seconds, nanoseconds: nanoseconds)
                case .cleared:
                    let count = try reader.readArrayHeader(at: &offset)
                    for _ in 0..<count {
                        let collection = try reader.readStringRange(at: &offset)
                        if matches(collection, target.collection, in: reader) { record.clearedCollection = true }
                    }
                case .changes:
                    if let valueOffset = try find(target, in: reader, at: &offset) {
                        var position = valueOffset
                        let code = try reader.readInteger(UInt8.self, at: &position)
                        do {
                            record.change = Changeset.IndexChange(object: try Changeset.change(code & 0x0f), metadata: try Changeset.change(code >> 4))
                        } catch {
                            throw MessagePackReadError.invalidValue("unknown change code \(code)", offset: valueOffset)
                        }
                    }
                case .values:
                    record.recordsValues = true
                    if let valueOffset = try find(target, in: reader, at: &offset) {
                        var position = valueOffset
                        let count = try reader.readArrayHeader(at: &position)
                        guard count == 2 else { throw .invalidValue("a recorded value is \(count) elements, not 2", offset: valueOffset) }
                        if metadata { position = try reader.skipValue(at: position) }
                        record.value = try readBinaryOrNil(reader, at: position)
                    }
                case .other:
                    offset = try reader.skipValue(at: offset)
                }
            }
            guard offset == bytes.count else { throw .invalidValue("bytes after the entry", offset: offset) }
        } catch {
            throw HistoryReadError(message: error.message)
        }
        // The two entry versions differ only in how `info` and `extensions` payloads are stored, which this skips.
        guard let version, version == UInt64(Changeset.logEntryVersion) || version == UInt64(Changeset.integerArrayLogEntryVersion) else {
            throw HistoryReadError(message: "version \(version.map(String.init) ?? "missing"), not 1 or 2")
        }
        guard let first, let last, first <= last else { throw HistoryReadError(message: "no valid commit range") }
        if let value = record.value, value.isEmpty {
            throw HistoryReadError(message: "a recorded value is empty (it has no format byte)")
        }
        let concerned = record.change != nil || record.clearedCollection || record.removedEverything
        return concerned ? record : nil
    }

    /// The keys of a log entry the history reads.
    private enum Field {
        case version, first, last, everything, time, cleared, changes, values, other

        init(_ reader: MessagePackReader, _ name: (start: Int, length: Int)) {
            let bytes = UnsafeRawBufferPointer(rebasing: reader.bytes[name.start..<name.start + name.length])
            switch name.length {
            case 4 where bytes.elementsEqual("last".utf8): self = .last
            case 4 where bytes.elementsEqual("time".utf8): self = .time
            case 5 where bytes.elementsEqual("first".utf8): self = .first
            case 6 where bytes.elementsEqual("values".utf8): self = .values
            case 7 where bytes.elementsEqual("version".utf8): self = .version
            case 7 where bytes.elementsEqual("cleared".utf8): self = .cleared
            case 7 where bytes.elementsEqual("changes".utf8): self = .changes
            case 10 where bytes.elementsEqual("everything".utf8): self = .everything
            default: self = .other
            }
        }
    }

    /// Walks the map `collection -> key -> value` at `offset` (moving past it) and returns where
    /// the value for `target` starts, `nil` when it is not there.
    private static func find(_ target: IndexTarget, in reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) -> Int? {
        var found: Int?
        let collections = try reader.readMapHeader(at: &offset)
        for _ in 0..<collections {
            let collection = try reader.readStringRange(at: &offset)
            guard matches(collection, target.collection, in: reader) else {
                offset = try reader.skipValue(at: offset)
                continue
            }
            let keys = try reader.readMapHeader(at: &offset)
            for _ in 0..<keys {
                let key = try reader.readStringRange(at: &offset)
                if matches(key, target.key, in: reader) { found = offset }
                offset = try reader.skipValue(at: offset)
            }
        }
        return found
    }

    private static func matches(_ range: (start: Int, length: Int), _ expected: [UInt8], in reader: MessagePackReader) -> Bool {
        range.length == expected.count
            && UnsafeRawBufferPointer(rebasing: reader.bytes[range.start..<range.start + range.length]).elementsEqual(expected)
    }

    /// The payload of the `bin` at `offset` copied out, or `nil` for a MessagePack nil.
    private static func readBinaryOrNil(_ reader: MessagePackReader, at offset: Int) throws(MessagePackReadError) -> [UInt8]? {
        let format = try reader.byte(at: offset)
        let start: Int
        let length: Int
        switch format {
        case MessagePackFormat.nil: return nil
        case MessagePackFormat.bin8: start = offset + 2; length = Int(try reader.load(UInt8.self, at: offset + 1))
        case MessagePackFormat.bin16: start = offset + 3; length = Int(try reader.load(UInt16.self, at: offset + 1))
        case MessagePackFormat.bin32: start = offset + 5; length = Int(try reader.load(UInt32.self, at: offset + 1))
        default: throw .typeMismatch(found: format, offset: offset)
        }
        let end = try reader.end(ofPayloadAt: start, length: length)
        return [UInt8](UnsafeRawBufferPointer(rebasing: reader.bytes[start..<end]))
    }

    /// Why a log entry could not be read for the history; becomes a ``LarderError``.
    private struct HistoryReadError: Error {
        let message: String

        func larderError(commit: UInt64, index: YapDB.Index) -> LarderError {
            LarderError(.corruptValue, "the change log entry of commit \(commit) does not decode", operation: "history", index: index, underlying: message)
        }
    }
}
