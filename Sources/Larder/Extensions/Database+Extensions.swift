/// Registering, unregistering and checking extensions.
///
/// An extension (any ``ExtensionDefinition``: an ``AutoView``, ``FilteredView``,
/// ``SecondaryIndex``, ``SpatialIndex``, ``Relationships`` or ``FullTextSearch``) is registered
/// under a name with a version tag. Its state lives in the
/// store, in named databases of its own, and every write transaction keeps it up to date, in the
/// same transaction as the objects it derives from.
///
/// - Registering with the tag the store already has for that name does no work at all: no scan,
///   whatever the size of the store. Register every extension at each launch, before writing.
/// - A new name, or a changed tag, (re)builds the extension over the collections it reads (or the
///   view it filters), in one write transaction, reporting progress.
/// - Register an extension in **every process** that writes the store. A process that writes the
///   extension's collections without it marks it stale in the store, and the next registration
///   anywhere rebuilds it, whatever the tag.
extension Database {
    /// The names of the extensions registered in this process, in registration order.
    public var registeredExtensions: [String] {
        shared.extensions.all.map(\.name)
    }

    /// Registers `definition` under `name` and returns the handle to read it with.
    ///
    /// Registering again with the same definition (kind and tag) returns the same handle at no
    /// cost; a new name or tag (re)builds the extension, reporting `progress`. See ``Database``
    /// ("Registering, unregistering and checking extensions").
    ///
    /// ```swift
    /// let byCategory = try db.register(AutoView<Product, NoMetadata>(collections: ["products"], versionTag: "1",
    ///     grouping: { _, product in product.category },
    ///     sorting: { _, product in TupleKey(product.price, product.id) }), named: "byCategory")
    /// ```
    /// - Throws: ``LarderError/Code/extensionConflict`` when `name` is registered with another
    ///   definition; ``LarderError/Code/extensionNotRegistered`` when a dependency (a filtered
    ///   view's parent) is not; ``LarderError/Code/invalidExtensionName``; what the definition's
    ///   ``ExtensionDefinition/registration(named:in:)`` throws; errors from building the
    ///   extension (the store is then unchanged).
    @discardableResult
    public func register<Definition: ExtensionDefinition>(
        _ definition: Definition, named name: String, progress: ((RegistrationProgress) -> Void)? = nil
    ) throws -> Definition.Handle {
        try Self.validate(extensionName: name)
        let registration = try definition.registration(named: name, in: self)
        try registerExtension(named: name, versionTag: definition.versionTag, registration, progress: progress)
        return registration.handle
    }

    /// Registers `definition` under `name` as ``register(_:named:progress:)`` does, on a thread
    /// of its own at `priority` instead of the awaiting task's: a registration that builds an
    /// extension over many objects holds no thread of Swift's cooperative pool while it runs.
    ///
    /// ```swift
    /// let byTag = try await db.register(notesByTag, named: "byTag", priority: .utility) { print("\($0.processed) of \($0.total)") }
    /// ```
    ///
    /// The registration is not cancelled with the task: it commits, or fails, as a whole.
    /// - Throws: as ``register(_:named:progress:)``.
    @discardableResult
    public func register<Definition: ExtensionDefinition>(
        _ definition: Definition, named name: String, priority: TaskPriority, progress: (@Sendable (RegistrationProgress) -> Void)? = nil
    ) async throws -> Definition.Handle {
        try await runOffThePool(priority: priority) { try self.register(definition, named: name, progress: progress) }
    }

    /// Registers the extension `registration` describes, under `name` with `versionTag`.
    private func registerExtension<Handle>(
        named name: String, versionTag: String, _ registration: ExtensionRegistration<Handle>, progress: ((RegistrationProgress) -> Void)?
    ) throws {
        let (kind, collections, dependencies, parts, make) = (registration.kind, registration.collections, registration.dependencies, registration.parts, registration.make)
        let registry = shared.extensions
        if let existing = registry.runtime(named: name) {
            // Tags compare their bytes, as the record stores them.
            guard existing.kind == kind, ExactString.bytesEqual(existing.versionTag, versionTag) else {
                throw LarderError(
                    .extensionConflict,
                    "an extension named \(name) is registered already with another definition (\(existing.kind), tag \(existing.versionTag)); unregister it first",
                    operation: "register", extensionName: name)
            }
            return
        }
        for dependency in dependencies where registry.runtime(named: dependency) == nil {
            throw LarderError(.extensionNotRegistered, "extension \(name) depends on \(dependency), which is not registered: register \(dependency) first", operation: "register", extensionName: name)
        }
        var added = false
        do {
            try write { txn in
                let parts = try ExtensionParts.open(extension: name, parts: parts, in: txn.lmdb)
                let runtime = try make(parts)
                if runtime.derivesFromPreviousValues { try Self.retireMap(ofExtension: name, in: txn.lmdb) }
                let record = try ExtensionRecord.read(name, in: txn.lmdb)
                let current = record.map { $0.kind == kind && ExactString.bytesEqual($0.versionTag, versionTag) && !$0.stale } ?? false
                if !current {
                    try parts.empty(in: txn.lmdb)
                    try runtime.rebuild(in: txn) { done, total in
                        progress?(RegistrationProgress(extensionName: name, processed: done, total: total))
                    }
                    let stored = ExtensionRecord(kind: kind, versionTag: versionTag, collections: collections.map { $0.sorted().map(\.string) }, stale: false, dependencies: dependencies)
                    try stored.write(name, in: txn.lmdb)
                    try ExtensionRecord.markDependentsStale(of: name, in: txn.lmdb)
                    txn.recordExtensionChanges(ExtensionPayload.rebuilt, named: name)
                }
                // Added inside the transaction, while it holds the writer lock: every write that
                // starts after this commit keeps the extension up to date.
                registry.add(runtime)
                added = true
            }
        } catch {
            if added { registry.remove(named: name) }
            throw error
        }
    }

    /// Unregisters the extension `name` and empties its state in the store, so that registering it
    /// again rebuilds it. Works for an extension recorded in the store but not registered in this
    /// process too.
    /// - Throws: ``LarderError/Code/extensionConflict`` when registered extensions depend on it
    ///   (unregister those first); ``LarderError/Code/invalidExtensionName``.
    public func unregisterExtension(named name: String) throws {
        try Self.validate(extensionName: name)
        let registry = shared.extensions
        let dependents = registry.all.filter { $0.dependencies.contains { ExactString.bytesEqual($0, name) } }.map(\.name)
        guard dependents.isEmpty else {
            throw LarderError(.extensionConflict, "extensions \(dependents.joined(separator: ", ")) depend on \(name): unregister them first", operation: "unregisterExtension", extensionName: name)
        }
        try write { txn in
            let registered = registry.runtime(named: name)
            if let registered {
                try registered.parts.empty(in: txn.lmdb)
            } else if try ExtensionRecord.read(name, in: txn.lmdb) != nil {
                // Of any kind, even one this Larder does not know: its databases are found by
                // their names.
                for databaseName in try Self.databaseNames(ofExtension: name, in: txn.lmdb) {
                    // Keep the (now empty) database: its handle may be open in this process.
                    if let database = try? txn.lmdb.openDatabase(databaseName, create: false) {
                        try txn.lmdb.empty(database)
                    }
                }
            }
            try ExtensionRecord.remove(name, in: txn.lmdb)
            try ExtensionRecord.markDependentsStale(of: name, in: txn.lmdb)
            registry.remove(named: name)
            txn.recordExtensionChanges(ExtensionPayload.removed, named: name)
        }
    }

    /// Recomputes every registered extension from the objects and compares the result with its
    /// stored state. An empty result means every extension is consistent.
    ///
    /// Runs in a write transaction that is rolled back: the recomputed state is built in scratch
    /// databases that never reach the disk. It reads every object the extensions read.
    /// - Throws: ``LarderError`` when the write transaction cannot begin, or when recomputing an
    ///   extension fails (a damaged stored value or extension state; an item over the key limit).
    public func verifyExtensions() throws -> [ExtensionDifference] {
        try write { txn in
            defer { txn.rollback() }
            var differences: [ExtensionDifference] = []
            for runtime in shared.extensions.all {
                let scratchParts = try ExtensionParts.open(extension: runtime.name, parts: runtime.parts.names, in: txn.lmdb, scratch: true)
                try scratchParts.empty(in: txn.lmdb)
                let scratch = runtime.rebound(to: scratchParts)
                try scratch.rebuild(in: txn) { _, _ in }
                let stored = try runtime.logicalContents(in: txn)
                let expected = try scratch.logicalContents(in: txn)
                for part in runtime.parts.names {
                    differences += Self.compare(stored[part] ?? [], expected[part] ?? [], extension: runtime.name, part: part)
                }
            }
            return differences
        }
    }

    /// The first few differences between stored and expected entries of one part.
    private static func compare(_ stored: [[UInt8]], _ expected: [[UInt8]], extension name: String, part: String) -> [ExtensionDifference] {
        guard stored != expected else { return [] }
        let storedSet = Set(stored)
        let expectedSet = Set(expected)
        var found: [ExtensionDifference] = []
        for entry in expected where !storedSet.contains(entry) {
            found.append(ExtensionDifference(extensionName: name, part: part, detail: "missing entry \(describe(entry))"))
            if found.count >= 10 { return found }
        }
        for entry in stored where !expectedSet.contains(entry) {
            found.append(ExtensionDifference(extensionName: name, part: part, detail: "unexpected entry \(describe(entry))"))
            if found.count >= 10 { return found }
        }
        if found.isEmpty {
            found.append(ExtensionDifference(extensionName: name, part: part, detail: "the same entries in another order or multiplicity (\(stored.count) stored, \(expected.count) expected)"))
        }
        return found
    }

    private static func describe(_ bytes: [UInt8]) -> String {
        let shown = bytes.prefix(48).map { byte in (0x20..<0x7f).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16) }
        return "\"" + shown.joined() + (bytes.count > 48 ? "…" : "") + "\""
    }

    static func validate(extensionName name: String) throws(LarderError) {
        let length = name.utf8.count
        guard length > 0, length <= 200, !name.utf8.contains(0) else {
            throw LarderError(.invalidExtensionName, "extension names are 1 to 200 UTF-8 bytes without NUL", operation: "register", extensionName: name)
        }
    }

    /// The names of the databases extension `name` keeps in the store, whatever its kind
    /// (the `map` that views, filtered views and indexes kept up to store format 3 among them):
    /// `x.<name>.<part>`, where no part name holds a dot (so `x.a.b.tree`, a part of extension
    /// `a.b`, is not one of extension `a`'s). Read from the main database's keys.
    static func databaseNames(ofExtension name: String, in lmdb: LMDBTransaction) throws -> [String] {
        let prefix = Array(ExtensionParts.databaseName(extension: name, part: "").utf8)
        var names: [String] = []
        try lmdb.forEachEntry(in: .main) { key, _ in
            guard key.count > prefix.count, key.starts(with: prefix) else { return true }
            let part = key[(key.startIndex + prefix.count)...]
            if !part.contains(UInt8(ascii: ".")) { names.append(String(decoding: key, as: UTF8.self)) }
            return true
        }
        return names
    }

    /// The part in which views, filtered views and indexes kept, up to store format 3, each
    /// object's entry.
    static let retiredMapPart = "map"

    /// Empties the map extension `name` kept under store format 3, if the store has one, and
    /// records store format 4 (``Environment/derivedExtensionsFormatVersion``): from this
    /// registration on, the extension's writes no longer keep the map, so a Larder that would
    /// read it must refuse the store. The extension's other state is the same in both formats
    /// and is kept. The emptied database stays (its handle may be open in this process).
    private static func retireMap(ofExtension name: String, in lmdb: LMDBTransaction) throws {
        try Environment.raiseFormatVersion(to: StoreFormat.derivedExtensions, in: lmdb)
        let mapName = ExtensionParts.databaseName(extension: name, part: retiredMapPart)
        if let map = try lmdb.openExistingDatabase(mapName) { try lmdb.empty(map) }
    }
}

extension ReadTransaction {
    /// The registered runtime of extension `name`, of type `R`.
    func extensionRuntime<R: ExtensionRuntime>(named name: String, as type: R.Type) throws -> R {
        checkActive()
        guard let runtime = database.shared.extensions.runtime(named: name) as? R else {
            readRecorder?.extensionRead(name, collections: [])  // its registration changes the answer
            throw LarderError(.extensionNotRegistered, "no extension named \(name) of this kind is registered in this process", operation: "extension", extensionName: name)
        }
        readRecorder?.extensionRead(name, collections: runtime.collections)
        return runtime
    }
}
