/// The one protocol of the extension machinery: something kept up to date inside write
/// transactions from the changes of the collections it reads, keeping its state in named LMDB
/// databases of its own (`x.<name>.<part>`).
///
/// The store knows extensions only through this protocol. It is internal on purpose: a kind's
/// public definition (an ``ExtensionDefinition``) makes its runtime through its
/// ``ExtensionRegistration``, and ``Database/register(_:named:progress:)`` registers it.
protocol ExtensionRuntime: AnyObject, Sendable {
    /// The name it was registered under.
    var name: String { get }
    /// Its kind's name in the store's records (``ExtensionRegistration``).
    var kind: String { get }
    /// Changes when the definition changes; a new tag rebuilds the extension.
    var versionTag: String { get }
    /// The collections whose changes it receives, told apart by their bytes; `nil` for all.
    var collections: Set<ExactString>? { get }
    /// Extensions that must be registered first (and are updated first in each write).
    var dependencies: [String] { get }
    /// Whether a change of metadata alone concerns it.
    var readsMetadata: Bool { get }
    /// Whether it finds what it derived from an object by deriving it again from the object's
    /// previous bytes (``ExtensionMaintenance/previousImage(of:in:)``), which the write path then
    /// keeps for it. Views, filtered views and indexes do: they store no map from an object to
    /// its entries.
    var derivesFromPreviousValues: Bool { get }
    /// Its databases, by part name.
    var parts: ExtensionParts { get }

    /// Brings its state up to date with one change. Called for changes in its collections only.
    func apply(_ change: WriteChange, in txn: ReadWriteTransaction) throws
    /// Recomputes its state from scratch (its parts are empty when this is called). Reports
    /// progress as (done, total).
    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws
    /// Called once before the commit, before any extension's ``finish(in:)`` and before the
    /// collection counts are written: the last moment an extension may still change objects.
    func willFinish(in txn: ReadWriteTransaction) throws
    /// Called once before the commit: returns what it wants in the commit's changeset.
    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]?
    /// Its state in a form that does not depend on the order in which it was built, by part, for
    /// ``Database/verifyExtensions()``.
    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]]
    /// The same extension over other databases (scratch ones, for verification).
    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime
}

extension ExtensionRuntime {
    func willFinish(in txn: ReadWriteTransaction) throws {}
    var derivesFromPreviousValues: Bool { false }

    /// Whether `change` concerns this extension.
    func receives(_ index: YapDB.Index) -> Bool {
        collections?.contains(ExactString(index.collection)) ?? true
    }
}
