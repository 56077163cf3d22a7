/// The one error type Larder throws.
///
/// Every failure of the environment or of the data reaches you as a `LarderError`: a ``Code``
/// that names what went wrong, plus the context that was known when it happened (the operation,
/// the index, the path, LMDB's return code and message). New codes can appear in later versions
/// without breaking a `switch` over existing ones, because ``Code`` is a struct, not an enum.
///
/// ```swift
/// do {
///     try db.write { try $0.setObject(item, forKey: key, inCollection: "items") }
/// } catch let error as LarderError where error.code == .keyTooLong {
///     print("key too long: \(error)")
/// }
/// ```
///
/// An error about one stored value (it does not decode, is damaged, or cannot be brought to its
/// collection's current version) names the value's collection and key in ``index`` and in
/// ``description``, wherever it was read (a point read, an enumeration, an extension's rebuild,
/// a migration, the history), and says what to do in ``recoverySuggestion`` where there is a known
/// way out. Values never appear in an error; a key does, in ``index`` and in ``description`` (its
/// first 60 characters): a program whose keys are personal data logs ``code`` and ``message``,
/// which hold no key.
public struct LarderError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable identifier.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, the same as the static property's (`"keyTooLong"`).
        public let rawValue: String
        /// The code named `rawValue`; compare with the static codes below.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// `collection ‖ 0x00 ‖ key` is longer than LMDB's key limit (511 bytes with Debian's liblmdb).
        public static let keyTooLong = Code(rawValue: "keyTooLong")
        /// The key is the empty string.
        public static let emptyKey = Code(rawValue: "emptyKey")
        /// The collection name contains a NUL (0x00) character.
        public static let invalidCollection = Code(rawValue: "invalidCollection")
        /// A value could not be archived.
        public static let encodingFailed = Code(rawValue: "encodingFailed")
        /// Stored bytes do not decode as the requested type (wrong type or damaged bytes).
        public static let decodingFailed = Code(rawValue: "decodingFailed")
        /// A value nests deeper than the MessagePack coders go (512 containers,
        /// `MessagePackNestingLimit.maximumDepth`), or one level more would leave the thread too
        /// little stack (a 512 KiB secondary thread, say; the message says which). Writing such a
        /// value throws it and writes nothing, so that nothing is stored that cannot be read back;
        /// reading one (written by other software or an earlier Larder) throws it too. It is not
        /// "another type": an extension whose write needs such a value fails the write (nothing
        /// changes) rather than skip the value and leave its entries behind. On a small stack,
        /// run the work on a thread with a larger one (an asynchronous write runs on the writer
        /// thread, 8 MiB on Linux).
        public static let valueTooDeep = Code(rawValue: "valueTooDeep")
        /// A stored value has no valid framing (empty, or its format byte is unknown to the archiver).
        public static let corruptValue = Code(rawValue: "corruptValue")
        /// A stored value's format byte names a format the archiver in use does not read (for
        /// example a custom archiver's tag read back without that archiver).
        public static let unknownFormat = Code(rawValue: "unknownFormat")
        /// A ``PolymorphicArchiver`` met a type it does not register: a value of the base type
        /// whose concrete type is not registered (writing), or a stored type name that is not
        /// registered (reading). The message names the type or the name, and what is registered.
        public static let unregisteredType = Code(rawValue: "unregisteredType")
        /// No archiver of the requested type is registered for the collection, and the type has
        /// none of its own (a ``PolymorphicRef`` resolved in a collection without a
        /// ``PolymorphicArchiver`` of its base type).
        public static let archiverNotRegistered = Code(rawValue: "archiverNotRegistered")
        /// The path exists but is not a Larder store (another file, or another LMDB database).
        public static let notAStore = Code(rawValue: "notAStore")
        /// The store was written by a newer version of Larder whose format this version cannot read.
        public static let newerFormatVersion = Code(rawValue: "newerFormatVersion")
        /// The operating system refused access to the store's files (permissions, read-only file system).
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// The map could not grow: see the error's message (the disk, or a transaction held open
        /// on the writing thread).
        public static let mapFull = Code(rawValue: "mapFull")
        /// Another process grew the map while this thread held a transaction open on the old
        /// one, so a nested transaction cannot begin; end the outer transaction and retry.
        public static let mapResized = Code(rawValue: "mapResized")
        /// The disk is full.
        public static let diskFull = Code(rawValue: "diskFull")
        /// Every reader slot of the environment is in use, even after stale slots were cleared.
        public static let readersFull = Code(rawValue: "readersFull")
        /// The data file is damaged: LMDB reports it, a key or value LMDB returned runs past
        /// the end of the file, a key is out of place in its collection, or a meta page is
        /// damaged (the message names it and says whether the other one is intact).
        /// ``Database/checkStructure()`` and ``Database/verifyPages(path:)`` say what is damaged.
        public static let corrupted = Code(rawValue: "corrupted")
        /// An input-output error from the operating system.
        public static let io = Code(rawValue: "io")
        /// The configuration is not valid (see the message).
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// An extension name is empty, too long, or contains NUL.
        public static let invalidExtensionName = Code(rawValue: "invalidExtensionName")
        /// No extension of that name (and kind) is registered in this process: a handle used
        /// after ``Database/unregisterExtension(named:)``, or a dependency registered later.
        public static let extensionNotRegistered = Code(rawValue: "extensionNotRegistered")
        /// The registration conflicts with what is registered: the name is taken by another
        /// definition, or other extensions depend on the one being unregistered.
        public static let extensionConflict = Code(rawValue: "extensionConflict")
        /// An extension's stored entries are not where its definition puts them for values that
        /// did not change: its closures answered differently for the same value (they must be pure
        /// functions of their arguments), or its definition or the way its type decodes changed
        /// without a new `versionTag`. Register it with a new tag to rebuild it. Nothing was
        /// changed by the write that found it.
        public static let extensionInconsistent = Code(rawValue: "extensionInconsistent")
        /// A full-text query could not be read or does not fit the full-text search it is run
        /// against: unbalanced quotes or parentheses, an operator with nothing on one side, a
        /// query made only of exclusions, a column filter naming no column of the search (the
        /// message says which), or a query beyond its limits (nesting deeper than
        /// ``FullTextQuery/maximumDepth``, a phrase longer than
        /// ``FullTextQuery/maximumPhraseWords``, more terms than ``FullTextQuery/maximumTerms``).
        /// Nothing was read.
        public static let invalidQuery = Code(rawValue: "invalidQuery")
        /// An undo or redo was refused: a value the step covers changed since the step was
        /// recorded (a write that was not undoable, or another process), and applying the step
        /// would overwrite that newer data. Nothing was changed.
        public static let undoConflict = Code(rawValue: "undoConflict")
        /// There is no store at the path, and the open does not create one (a read-only open,
        /// ``Database/Configuration/readOnly``).
        public static let notFound = Code(rawValue: "notFound")
        /// A write was attempted on a database opened with ``Database/Configuration/readOnly``.
        public static let readOnly = Code(rawValue: "readOnly")
        /// Another process has the store open through another name for its data file (a hard
        /// link), which LMDB would give another lock file: writers through the two names would
        /// not exclude each other, so the open is refused. Open the store by one path everywhere.
        public static let lockConflict = Code(rawValue: "lockConflict")
        /// The ``Database`` was closed (``Database/close()-1m8tz``): it, and every ``Connection`` made
        /// from it, refuse every later call. Open a new `Database` on the path to go on.
        public static let databaseClosed = Code(rawValue: "databaseClosed")
        /// A replica's write conflicted with commits made on other replicas (it read what they
        /// wrote) on every one of its attempts (`LarderPostgres`). Nothing was written.
        public static let writeConflict = Code(rawValue: "writeConflict")
        /// A replica could not reach its PostgreSQL primary (down, restarting, refusing the
        /// connection or the credentials). Nothing was written; reads of the replica go on.
        public static let primaryUnavailable = Code(rawValue: "primaryUnavailable")
        /// The primary refused a statement of the replica (the message gives its SQLSTATE).
        public static let primaryRefused = Code(rawValue: "primaryRefused")
        /// The connection to the primary was lost after a commit was sent and before its outcome
        /// came back, and the replica could not find out whether it was made. If it was, the
        /// replica shows it once it reaches the primary again.
        public static let commitOutcomeUnknown = Code(rawValue: "commitOutcomeUnknown")
        /// The store cannot be this primary's replica: it holds data of its own, or it replicates
        /// another primary.
        public static let replicaMismatch = Code(rawValue: "replicaMismatch")
        /// A stored value was written at a version of its type newer than the one this program
        /// declares for its collection (see ``ValueMigrations``): reading it would drop what the
        /// newer version added. Nothing is read or written; upgrade the program.
        public static let newerValueVersion = Code(rawValue: "newerValueVersion")
        /// A stored value could not be brought to its collection's current version: no declared
        /// step starts at its version, or a step threw (its error is the underlying one).
        /// Nothing is written.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// Any other LMDB failure; ``LarderError/lmdbCode`` holds LMDB's return code.
        public static let lmdb = Code(rawValue: "lmdb")
    }

    /// What went wrong.
    public var code: Code
    /// A sentence a person can read, naming the problem and, where there is one, the way out.
    public var message: String
    /// The operation that failed, such as `"setObject"` or `"open"`.
    public var operation: String?
    /// The collection and key involved, if any.
    public var index: YapDB.Index?
    /// The file or directory involved, if any.
    public var path: String?
    /// The extension involved, if any.
    public var extensionName: String?
    /// LMDB's (or the operating system's `errno`) return code, if the failure came from there.
    public var lmdbCode: Int32?
    /// The error an archiver or the operating system threw, described, if any.
    public var underlying: String?
    /// What to do about it, where there is a known way out: for example "declare a MigrationStep
    /// from version 0, or write the value again at version 2 (`larder put --version 2`)".
    public var recoverySuggestion: String?

    /// Creates an error; Larder builds these, and your own archivers may too.
    public init(
        _ code: Code, _ message: String, operation: String? = nil, index: YapDB.Index? = nil,
        path: String? = nil, lmdbCode: Int32? = nil, underlying: String? = nil, extensionName: String? = nil,
        recoverySuggestion: String? = nil
    ) {
        self.extensionName = extensionName
        self.recoverySuggestion = recoverySuggestion
        self.code = code
        self.message = message
        self.operation = operation
        self.index = index
        self.path = path
        self.lmdbCode = lmdbCode
        self.underlying = underlying
    }

    /// One line: the code, the message, then each piece of context that is known, in brackets,
    /// the way out last.
    public var description: String {
        var text = "LarderError.\(code): \(message)"
        if let operation { text += " [operation: \(operation)]" }
        if let index { text += " [collection: \(Self.quoted(index.collection))] [key: \(Self.quoted(index.key))]" }
        if let extensionName { text += " [extension: \(extensionName)]" }
        if let path { text += " [path: \(path)]" }
        if let lmdbCode { text += " [code: \(lmdbCode)]" }
        if let underlying { text += " [cause: \(underlying)]" }
        if let recoverySuggestion { text += " [fix: \(recoverySuggestion)]" }
        return text
    }

    /// `name` in double quotes, cut to its first 60 characters so that a description stays one
    /// readable line.
    static func quoted(_ name: String) -> String {
        "\"" + (name.count > 60 ? name.prefix(60) + "…" : Substring(name)) + "\""
    }

    /// The same error with more context filled in where it was missing.
    func adding(operation: String? = nil, index: YapDB.Index? = nil, path: String? = nil, recoverySuggestion: String? = nil) -> LarderError {
        var copy = self
        if copy.recoverySuggestion == nil { copy.recoverySuggestion = recoverySuggestion }
        if copy.operation == nil { copy.operation = operation }
        if copy.index == nil { copy.index = index }
        if copy.path == nil { copy.path = path }
        return copy
    }
}

extension LarderError {
    /// The ways out of the errors about one stored value (``recoverySuggestion``).
    enum Advice {
        /// For a value whose bytes are damaged (its framing or its checksum).
        static let damaged = "its bytes are damaged: write the value again or delete it (`larder delete`), or restore a backup; `larder check` lists every damaged value"
        /// For a damaged value that a write replaces or removes while extensions read its
        /// collection: they need the old value to find what they derived from it.
        static let damagedUnderExtensions = "its bytes are damaged, and the extensions that read its collection need the old value to update: unregister them (Database.unregisterExtension(named:)), write the value again or delete it, then register them again (they rebuild); or restore a backup"
        /// For a value that does not decode as the type asked for.
        static let decoding = "read it as the type it was written as (`larder get` shows the stored value); if that type's shape changed since, declare the change as a migration step (see ValueMigrations)"
        /// For a value written at `version`, newer than the program's.
        static func newer(_ version: UInt32) -> String {
            "run a build of the program that declares version \(version) or later for this collection"
        }
        /// For a value at `version` when no step starts there; `current` is the declared version.
        static func noStep(from version: Int, current: Int) -> String {
            "declare a MigrationStep from version \(version); or, if the value already has the current shape, write it again at version \(current) (`larder put --version \(current)`, `larder import --version \(current)`)"
        }
        /// For a step that threw.
        static let stepFailed = "the step's own error is in `underlying`: fix the step, or the value (`larder get` shows it)"
    }
}
