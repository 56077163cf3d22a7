import Synchronization

/// What every `Database` of one store in this process shares above the LMDB layer: the change
/// hub, the settings of the `Database` that opened the store, and what the features above the
/// store keep per store (the registered extensions among them).
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
    /// The state the features above the store keep per store in this process (the extension
    /// registry, the replica's guard), one per type (see ``feature(_:orMake:)``).
    private let features = Mutex<[(type: ObjectIdentifier, feature: AnyObject)]>([])
    /// Makers of the write-path participants added to the store in this process, beyond the
    /// store's own (see ``addParticipant(rank:_:)``), in rank order.
    private let participantMakers = Mutex<ParticipantMakers>(ParticipantMakers())

    /// The makers of the added participants and their ranks, side by side in rank order (the
    /// ranks are handed to each transaction as they are, sharing one buffer).
    private struct ParticipantMakers {
        var ranks: [ParticipantRank] = []
        var makers: [@Sendable () -> any WriteParticipant] = []
    }

    /// Reads the last commit from the change log in `txn`, the store's opening transaction.
    init(configuration: Database.Configuration, opening txn: LMDBTransaction) throws {
        self.configuration = configuration
        self.changeHub = ChangeHub(pollInterval: configuration.changePollInterval)
        changeHub.start(at: try ChangeLog.lastCommit(txn))
    }

    /// The feature state of type `F` kept for this store, made by `make` the first time it is
    /// asked for (under a lock: `make` runs once per store and process, and may add
    /// participants). This is the seam through which a layer above the store keeps per-store
    /// state without the store naming it.
    @discardableResult
    func feature<F: AnyObject>(_ type: F.Type = F.self, orMake make: () -> F) -> F {
        let id = ObjectIdentifier(F.self)
        return features.withLock { features in
            // A handful of entries: a scan costs less than hashing.
            for entry in features where entry.type == id { return unsafeDowncast(entry.feature, to: F.self) }
            let made = make()
            features.append((id, made))
            return made
        }
    }

    /// The feature state of type `F`, if it has been made.
    func existingFeature<F: AnyObject>(_ type: F.Type) -> F? {
        let id = ObjectIdentifier(F.self)
        return features.withLock { features in
            features.first { $0.type == id }.map { unsafeDowncast($0.feature, to: F.self) }
        }
    }

    /// Adds a participant to every write transaction on this store that begins from now on in
    /// this process: `make` builds one for each transaction, heard at `rank` among the others.
    /// This is the seam for what follows every write without being part of the store itself
    /// (the extensions, a replica's shipping, a test's recorder).
    func addParticipant(rank: ParticipantRank = .shipping, _ make: @escaping @Sendable () -> any WriteParticipant) {
        participantMakers.withLock { added in
            let position = added.ranks.firstIndex { $0 > rank } ?? added.ranks.endIndex
            added.ranks.insert(rank, at: position)
            added.makers.insert(make, at: position)
        }
    }

    /// One of each added participant, for a new write transaction, in rank order, and their ranks.
    func makeAddedParticipants() -> (participants: [any WriteParticipant], ranks: [ParticipantRank]) {
        let added = participantMakers.withLock { $0 }
        return (added.makers.map { $0() }, added.ranks)
    }

    func environmentWillClose() {
        changeHub.stopPolling()
        let closing = features.withLock { features in features.compactMap { $0.feature as? any StoreClosingFeature } }
        for feature in closing { feature.storeWillClose() }
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
            singleFile: singleFile, readOnly: readOnly, syncMode: syncMode,
            format: EnvironmentOptions.Format(key: StoreFormat.versionKey, current: StoreFormat.current))
    }
}
