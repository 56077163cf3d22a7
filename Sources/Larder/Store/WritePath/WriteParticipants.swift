/// The participants of one write transaction, in rank order (``ParticipantRank``): the store's
/// own (the change log, the cache's write-through), the ones the features above the store add
/// to it (``StoreShared/addParticipant(rank:_:)``), and the ones a feature adds to one
/// transaction alone (``ReadWriteTransaction/participant(_:joiningAt:make:)``; undo capture joins
/// an undoable write this way).
///
/// The transaction only walks ``all``. A feature that reaches its own participant from the
/// transaction finds it by type (``first(_:)``). A class, so that reaching it does not copy (and
/// retain) the list.
final class WriteParticipants {
    /// Every participant, in rank order. A `let`: the walks before each change borrow it, where
    /// a `var` would be copied out (and each participant retained) on every walk.
    let all: [any WriteParticipant]
    /// The store's own participants, also in ``all``, held by type so that the question asked
    /// before every change (``wantChanges``) reaches them without a dynamic call.
    private let changeLog: ChangeLogWriter
    private let cache: CacheWriteThrough
    /// The participants the features added, in rank order (``all`` without the store's own), and
    /// their ranks.
    private let added: [any WriteParticipant]
    private let addedRanks: [ParticipantRank]

    private init(added: [any WriteParticipant], addedRanks: [ParticipantRank], changeLog: ChangeLogWriter, cache: CacheWriteThrough) {
        self.added = added
        self.addedRanks = addedRanks
        self.changeLog = changeLog
        self.cache = cache
        // The store's own two come before anything added at their ranks or above.
        let split = addedRanks.firstIndex { $0 >= .changeLog } ?? addedRanks.endIndex
        var all: [any WriteParticipant] = []
        all.reserveCapacity(added.count + 2)
        all.append(contentsOf: added[..<split])
        all.append(changeLog)
        all.append(cache)
        all.append(contentsOf: added[split...])
        self.all = all
    }

    /// The participants of a write transaction on `database` begun by `core`.
    static func standard(for database: Database, core: ConnectionCore) -> WriteParticipants {
        let shared = database.shared
        let configuration = shared.configuration
        let added = shared.makeAddedParticipants()
        return WriteParticipants(
            added: added.participants, addedRanks: added.ranks,
            changeLog: ChangeLogWriter(hub: shared.changeHub, limit: configuration.changeLogLimit,
                                       byteLimit: configuration.changeLogByteLimit, keepsValueHistory: configuration.keepsValueHistory),
            cache: CacheWriteThrough(limit: core.cache.objectLimit))
    }

    /// These participants and `participant`, heard after every other of its rank or a lower one.
    func adding(_ participant: any WriteParticipant, rank: ParticipantRank) -> WriteParticipants {
        let position = addedRanks.firstIndex { $0 > rank } ?? addedRanks.endIndex
        var added = added, addedRanks = addedRanks
        added.insert(participant, at: position)
        addedRanks.insert(rank, at: position)
        return WriteParticipants(added: added, addedRanks: addedRanks, changeLog: changeLog, cache: cache)
    }

    /// The participant of type `P`, if there is one.
    @inline(__always)
    func first<P: WriteParticipant>(_ type: P.Type) -> P? {
        let wanted = ObjectIdentifier(P.self)
        for participant in all where ObjectIdentifier(Swift.type(of: participant)) == wanted {
            return unsafeDowncast(participant, to: P.self)
        }
        return nil
    }

    /// Copies for a nested transaction (see ``WriteParticipant/fork()``).
    func forked() -> WriteParticipants {
        WriteParticipants(added: added.map { $0.fork() }, addedRanks: addedRanks, changeLog: changeLog.fork(), cache: cache.fork())
    }

    /// Whether any participant wants to hear of a change (``WriteParticipant/wantsChanges``).
    var wantChanges: Bool {
        if cache.wantsChanges || changeLog.wantsChanges { return true }
        for participant in added where participant.wantsChanges { return true }
        return false
    }

    /// Whether any participant wants to see the bytes of each object of a bulk removal.
    var wantBeforeImagesOfBulkRemovals: Bool {
        all.contains { $0.wantsBeforeImagesOfBulkRemovals }
    }
}
