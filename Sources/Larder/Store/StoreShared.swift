import Synchronization

/// What every `Database` of one store in this process shares above the LMDB layer: the change
/// hub, the registered extensions, and the settings of the `Database` that opened the store.
///
/// ``EnvironmentRegistry`` keeps one per open environment (as its ``EnvironmentCompanion``),
/// made in the transaction that opens the store, so the hub starts at the store's last commit.
final class StoreShared: EnvironmentCompanion {
    /// The configuration of the `Database` that opened the environment. Settings of the store
    /// as a whole (value history, checksums, change-log and undo limits, polling) come from it;
    /// a later `Database` on the same store shares them.
    let configuration: Database.Configuration
    /// Publishes this process's commits, and those it learns of from other processes.
    let changeHub: ChangeHub
    /// The extensions registered on this store in this process.
    let extensions = ExtensionRegistry()
    /// Makers of the write-path participants added to the store in this process, beyond the
    /// standard ones (see ``addParticipant(_:)``).
    private let participantMakers = Mutex<[@Sendable () -> any WriteParticipant]>([])

    /// Reads the last commit from the change log in `txn`, the store's opening transaction.
    init(configuration: Database.Configuration, opening txn: LMDBTransaction) throws {
        self.configuration = configuration
        self.changeHub = ChangeHub(pollInterval: configuration.changePollInterval)
        changeHub.start(at: try ChangeLog.lastCommit(txn))
    }

    /// Adds a participant to every write transaction on this store that begins from now on in
    /// this process: `make` builds one for each transaction. This is the seam for what follows
    /// every write without being one of the store's own features (a replica's shipping, a
    /// test's recorder).
    func addParticipant(_ make: @escaping @Sendable () -> any WriteParticipant) {
        participantMakers.withLock { $0.append(make) }
    }

    /// One of each added participant, for a new write transaction.
    func makeAddedParticipants() -> [any WriteParticipant] {
        participantMakers.withLock { $0 }.map { $0() }
    }

    /// Whether ``guardAsReplica()`` has added the replica's guard.
    private let isGuardedAsReplica = Mutex(false)

    /// Adds a ``ReplicaGuard`` to every later write transaction, once.
    func guardAsReplica() {
        let first = isGuardedAsReplica.withLock { guarded in
            defer { guarded = true }
            return !guarded
        }
        if first { addParticipant { ReplicaGuard() } }
    }

    func environmentWillClose() {
        changeHub.stopPolling()
    }
}

extension Database.Configuration {
    /// What the LMDB layer needs of this configuration to open the store's environment.
    var environmentOptions: EnvironmentOptions {
        let syncMode: EnvironmentOptions.SyncMode
        switch durability {
        case .full: syncMode = .full
        case .noMetaSync: syncMode = .noMetaSync
        case .deferred(let interval): syncMode = .deferred(interval: interval)
        }
        return EnvironmentOptions(
            mapSize: initialMapSize, maxReaders: maxReaders, fileMode: fileMode,
            singleFile: singleFile, readOnly: readOnly, syncMode: syncMode)
    }
}
