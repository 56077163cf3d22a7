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

    /// Reads the last commit from the change log in `txn`, the store's opening transaction.
    init(configuration: Database.Configuration, opening txn: LMDBTransaction) throws {
        self.configuration = configuration
        self.changeHub = ChangeHub(pollInterval: configuration.changePollInterval)
        changeHub.start(at: try ChangeLog.lastCommit(txn))
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
