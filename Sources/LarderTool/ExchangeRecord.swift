#if Extras
import Foundation
import Larder

/// One line of the JSON Lines that `export` writes and `import` reads:
///
/// ```json
/// {"collection":"products","key":"p1","format":"messagePack","object":{"id":"p1","price":24.0},"metadataFormat":"messagePack","metadata":{"$bytes":"gqVjb3VudAE="}}
/// ```
///
/// `version` and `metadataVersion` follow when a value records a version of its collection's
/// values (see `ValueMigrations`), so that an import stores it at the same version; in a
/// collection whose values (or metadata) carry versions, an unversioned one says `0` outright,
/// since import refuses a record that says nothing there (see `ImportCommand`).
///
/// A value is written as JSON when that JSON, read back, gives exactly the stored bytes: a
/// MessagePack value whose JSON form (timestamps as `{"$timestamp": …}`) converts back to the
/// same bytes, a JSON value whose text fits on one line. Every other value is written as `{"$bytes": "<base64 of the stored bytes
/// after the format byte>"}`, so that an import restores every stored byte.
struct ExchangeRecord {
    var collection: String
    var key: String
    var object: StoredValue
    var metadata: StoredValue?
    /// Whether the line gave the object's version (`version`), and the metadata's
    /// (`metadataVersion`); a record read from a line without them is at version 0.
    var objectVersionGiven = false
    var metadataVersionGiven = false

    /// A record to write; `objectVersionGiven` and `metadataVersionGiven` write a version 0 outright.
    init(collection: String, key: String, object: StoredValue, metadata: StoredValue?, objectVersionGiven: Bool = false, metadataVersionGiven: Bool = false) {
        self.collection = collection
        self.key = key
        self.object = object
        self.metadata = metadata
        self.objectVersionGiven = objectVersionGiven
        self.metadataVersionGiven = metadataVersionGiven
    }

    // MARK: Writing

    /// The record as one line of JSON, without the newline.
    func line() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.append(contentsOf: #"{"collection":"#.utf8)
        JSONWriter.writeString(collection, into: &bytes)
        bytes.append(contentsOf: #","key":"#.utf8)
        JSONWriter.writeString(key, into: &bytes)
        bytes.append(contentsOf: #","format":"#.utf8)
        JSONWriter().write(ValueDisplay.formatJSON(object.format), into: &bytes)
        bytes.append(contentsOf: #","object":"#.utf8)
        bytes.append(contentsOf: Self.text(of: object))
        if object.version != 0 || objectVersionGiven { bytes.append(contentsOf: #","version":\#(object.version)"#.utf8) }
        if let metadata {
            bytes.append(contentsOf: #","metadataFormat":"#.utf8)
            JSONWriter().write(ValueDisplay.formatJSON(metadata.format), into: &bytes)
            bytes.append(contentsOf: #","metadata":"#.utf8)
            bytes.append(contentsOf: Self.text(of: metadata))
            if metadata.version != 0 || metadataVersionGiven { bytes.append(contentsOf: #","metadataVersion":\#(metadata.version)"#.utf8) }
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// The JSON text of a stored value in a record: plain JSON when it reads back to the same
    /// bytes, the `$bytes` form otherwise.
    static func text(of value: StoredValue) -> [UInt8] {
        switch value.format {
        case .messagePack:
            if let parsed = try? MessagePackValue(reading: value.payload) {
                let shown = ValueDisplay.json(parsed, exchange: true)
                let text = Array(JSONWriter().text(shown).utf8)
                if !isWrapper(shown), let reread = try? JSONParser.parse(text), reread.messagePackBytes == value.payload {
                    return text
                }
            }
        case .json:
            let payload = value.payload
            let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
            if let first = payload.first, let last = payload.last, !whitespace.contains(first), !whitespace.contains(last),
               !payload.contains(0x0A), !payload.contains(0x0D), let parsed = try? JSONParser.parse(payload), !isWrapper(parsed) {
                return payload
            }
        default:
            break
        }
        return Array(JSONWriter().text(.object([JSONMember("$bytes", .string(Data(value.payload).base64EncodedString()))])).utf8)
    }

    /// Whether `value` has the form of a `$bytes` wrapper (a stored value of that very form is
    /// itself wrapped, so that import cannot mistake it).
    static func isWrapper(_ value: JSONValue) -> Bool {
        guard case .object(let members) = value, members.count == 1 else { return false }
        return members[0].key == "$bytes"
    }

    // MARK: Reading

    private static let members: Set<String> = ["collection", "key", "format", "object", "version", "metadataFormat", "metadata", "metadataVersion"]

    /// The record on `line`.
    /// - Throws: a message saying what is wrong with the line.
    init(line: [UInt8]) throws(RecordError) {
        // The record is one level around its values, which may nest as deep as a value put alone.
        var parser = JSONParser(line, wrappingLevels: 1)
        let record: JSONValue
        do {
            record = try parser.parseDocument()
        } catch {
            throw RecordError("the line is not JSON: \(error)")
        }
        guard case .object(let members) = record else { throw RecordError("the line is not a JSON object") }
        for member in members where !Self.members.contains(member.key) {
            throw RecordError("unknown member \(CommandFailure.quoted(member.key)) (a record has collection, key, format, object, version, metadataFormat, metadata and metadataVersion)")
        }
        guard case .string(let collection) = record["collection"] else { throw RecordError("the record has no \"collection\" string") }
        guard case .string(let key) = record["key"] else { throw RecordError("the record has no \"key\" string") }
        guard let object = record["object"] else { throw RecordError("the record has no \"object\"") }
        self.collection = collection
        self.key = key
        self.object = try Self.value(object, format: record["format"], text: parser.memberSpans[ExactString("object")].map { Array(line[$0]) }, name: "object")
        self.object.version = try Self.version(record["version"], name: "version")
        self.objectVersionGiven = record["version"] != nil
        self.metadataVersionGiven = record["metadataVersion"] != nil
        self.metadata = try record["metadata"].map { metadata throws(RecordError) in
            var value = try Self.value(metadata, format: record["metadataFormat"], text: parser.memberSpans[ExactString("metadata")].map { Array(line[$0]) }, name: "metadata")
            value.version = try Self.version(record["metadataVersion"], name: "metadataVersion")
            return value
        }
        if record["metadata"] == nil, record["metadataVersion"] != nil { throw RecordError("the record has a \"metadataVersion\" but no \"metadata\"") }
    }

    /// The version a record's `version` or `metadataVersion` member gives: 0 when absent.
    private static func version(_ member: JSONValue?, name: String) throws(RecordError) -> Int {
        guard let member else { return 0 }
        switch member {
        case .integer(let number) where number >= 0 && number <= Int64(UInt32.max): return Int(number)
        case .unsigned(let number) where number <= UInt64(UInt32.max): return Int(number)
        default: throw RecordError("\"\(name)\" is not a whole number from 0 to \(UInt32.max)")
        }
    }

    /// The stored value a record member describes, refused when `check` would report it (an
    /// undefined reserved format byte, MessagePack that is not one well-formed value, JSON that
    /// is not UTF-8), so that an import never stores what its own check rejects.
    private static func value(_ member: JSONValue, format name: JSONValue?, text: [UInt8]?, name what: String) throws(RecordError) -> StoredValue {
        let value = try unchecked(member, format: name, text: text, name: what)
        let problem = value.payload.withUnsafeBytes { StoredValueCheck.problem(tag: value.format.rawValue, payload: $0, what: what) }
        if let problem { throw RecordError("\(problem.detail) (check would report \(problem.kind))") }
        return value
    }

    /// The stored value a record member describes: `$bytes` decoded, MessagePack converted from
    /// the JSON, JSON stored as the member's own text.
    private static func unchecked(_ member: JSONValue, format name: JSONValue?, text: [UInt8]?, name what: String) throws(RecordError) -> StoredValue {
        let format: ArchiveFormat
        if let name {
            guard let named = ValueDisplay.format(named: name) else {
                throw RecordError("the \(what)'s format is not \"messagePack\", \"json\", \"raw\" or a number from 0 to 255")
            }
            format = named
        } else {
            format = .messagePack
        }
        if isWrapper(member) {
            guard case .string(let base64) = member["$bytes"], let bytes = Data(base64Encoded: base64) else {
                throw RecordError("the \(what)'s \"$bytes\" is not a base64 string")
            }
            return StoredValue(format: format, payload: [UInt8](bytes))
        }
        switch format {
        case .messagePack:
            return StoredValue(format: format, payload: member.messagePackBytes)
        case .json:
            return StoredValue(format: format, payload: text ?? Array(JSONWriter().text(member).utf8))
        default:
            throw RecordError("the \(what) has format \(format) and must be written as {\"$bytes\": \"<base64>\"}")
        }
    }
}
#endif
