/// The named databases of one extension, and byte-level access to them in a transaction.
struct ExtensionParts: Sendable {
    let names: [String]
    let handles: [String: DatabaseHandle]

    /// The database of the first part: it tells this extension's databases apart from any
    /// other's (another extension's, or this one's rebuilt elsewhere for a verification).
    var identity: DatabaseHandle { self[names[0]] }

    subscript(part: String) -> DatabaseHandle {
        guard let handle = handles[part] else { preconditionFailure("Larder: extension part \(part) was not opened") }
        return handle
    }

    /// The LMDB name of `part` of extension `name`.
    static func databaseName(extension name: String, part: String, scratch: Bool = false) -> String {
        "x.\(name).\(part)" + (scratch ? "~verify" : "")
    }

    /// Opens (creating) the parts of extension `name` in `lmdb`, a write transaction.
    static func open(extension name: String, parts: [String], in lmdb: LMDBTransaction, scratch: Bool = false) throws -> ExtensionParts {
        var handles: [String: DatabaseHandle] = [:]
        for part in parts {
            handles[part] = try lmdb.openDatabase(databaseName(extension: name, part: part, scratch: scratch), create: true)
        }
        return ExtensionParts(names: parts, handles: handles)
    }

    /// Every entry of `part`, in key order, as `key ‖ value` pairs joined for comparison.
    func entries(of part: String, in lmdb: LMDBTransaction) throws -> [[UInt8]] {
        var all: [[UInt8]] = []
        try lmdb.forEachEntry(in: self[part]) { key, value in
            var joined = [UInt8](key)
            joined.append(contentsOf: [0xFF, 0x00, 0xFF])  // a visible seam for difference reports
            joined.append(contentsOf: value)
            all.append(joined)
            return true
        }
        return all
    }

    /// Empties every part.
    func empty(in lmdb: LMDBTransaction) throws {
        for part in names { try lmdb.empty(self[part]) }
    }
}
