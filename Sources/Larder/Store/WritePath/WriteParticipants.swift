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
    private let ranks: [ParticipantRank]
    /// Every participant, in rank order. A `let`: the walks before each change borrow it, where
    /// a `var` would be copied out (and each participant retained) on every walk.
    let all: [any WriteParticipant]
    /// The store's own participants, also in ``all``, held by type so that the question asked
    /// before every change (``wantChanges``) reaches them without a dynamic call.
    private let changeLog: ChangeLogWriter
    private let cache: CacheWriteThrough
    /// The participants the features added (``all`` without the store's own).
    private let added: [any WriteParticipant]

    private init(ranks: [ParticipantRank], all: [any WriteParticipant], changeLog: ChangeLogWriter, cache: CacheWriteThrough) {
        self.ranks = ranks
        self.all = all
        self.changeLog = changeLog
        self.cache = cache
        self.added = all.filter { $0 !== changeLog && $0 !== cache }
    }

    /// The participants of a write transaction on `database` begun by `core`.
    static func standard(for database: Database, core: ConnectionCore) -> WriteParticipants {
        let shared = database.shared
        let configuration = shared.configuration
        let added = shared.makeAddedParticipants()  // in rank order
        var ranks: [ParticipantRank] = []
        var all: [any WriteParticipant] = []
        ranks.reserveCapacity(added.count + 2)
        all.reserveCapacity(added.count + 2)
        // The store's own two come before anything added at their ranks or above.
        let split = added.firstIndex { $0.rank >= .changeLog } ?? added.endIndex
        for entry in added[..<split] { ranks.append(entry.rank); all.append(entry.participant) }
        let changeLog = ChangeLogWriter(hub: shared.changeHub, limit: configuration.changeLogLimit,
                                        byteLimit: configuration.changeLogByteLimit, keepsValueHistory: configuration.keepsValueHistory)
        let cache = CacheWriteThrough(limit: core.cache.objectLimit)
        ranks.append(contentsOf: [.changeLog, .cache])
        all.append(contentsOf: [changeLog, cache] as [any WriteParticipant])
        for entry in added[split...] { ranks.append(entry.rank); all.append(entry.participant) }
        return WriteParticipants(ranks: ranks, all: all, changeLog: changeLog, cache: cache)
    }

    /// These participants and `participant`, heard after every other of its rank or a lower one.
    func adding(_ participant: any WriteParticipant, rank: ParticipantRank) -> WriteParticipants {
        let position = ranks.firstIndex { $0 > rank } ?? ranks.endIndex
        var ranks = ranks, all = all
        ranks.insert(rank, at: position)
        all.insert(participant, at: position)
        return WriteParticipants(ranks: ranks, all: all, changeLog: changeLog, cache: cache)
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
        let changeLog = changeLog.fork(), cache = cache.fork()
        let all = all.map { participant -> any WriteParticipant in
            if participant === self.changeLog { return changeLog }
            if participant === self.cache { return cache }
            return participant.fork()
        }
        return WriteParticipants(ranks: ranks, all: all, changeLog: changeLog, cache: cache)
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
