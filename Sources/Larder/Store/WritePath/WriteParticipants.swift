/// The participants of one write transaction, in rank order (``ParticipantRank``): the store's
/// own (the change log, the cache's write-through), the ones the features above the store add
/// to it (``StoreShared/addParticipant(rank:_:)``), and the ones a feature adds to this
/// transaction alone (``install(_:rank:make:)``; undo capture joins an undoable write this way).
///
/// The transaction only walks ``all``. A feature that reaches its own participant from the
/// transaction finds it by type (``first(_:)``). A class, so that reaching it does not copy (and
/// retain) the list.
final class WriteParticipants {
    private var ranks: [ParticipantRank]
    /// Every participant, in rank order.
    private(set) var all: [any WriteParticipant]

    private init(ranks: [ParticipantRank], all: [any WriteParticipant]) {
        self.ranks = ranks
        self.all = all
    }

    /// The participants of a write transaction on `database` begun by `core`.
    static func standard(for database: Database, core: ConnectionCore) -> WriteParticipants {
        let shared = database.shared
        let configuration = shared.configuration
        let participants = WriteParticipants(ranks: [], all: [])
        for added in shared.makeAddedParticipants() {
            participants.insert(added.participant, rank: added.rank)
        }
        participants.insert(
            ChangeLogWriter(hub: shared.changeHub, limit: configuration.changeLogLimit,
                            byteLimit: configuration.changeLogByteLimit, keepsValueHistory: configuration.keepsValueHistory),
            rank: .changeLog)
        participants.insert(CacheWriteThrough(limit: core.cache.objectLimit), rank: .cache)
        return participants
    }

    /// Adds `participant` after every other of its rank or a lower one.
    private func insert(_ participant: any WriteParticipant, rank: ParticipantRank) {
        let position = ranks.firstIndex { $0 > rank } ?? ranks.endIndex
        ranks.insert(rank, at: position)
        all.insert(participant, at: position)
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

    /// The participant of type `P`, added to this transaction at `rank` by `make` if it has none
    /// (a participant that joins one transaction, as undo capture joins an undoable write). It
    /// hears only what happens after it joins.
    func install<P: WriteParticipant>(_ type: P.Type, rank: ParticipantRank, make: () -> P) -> P {
        if let existing = first(P.self) { return existing }
        let made = make()
        insert(made, rank: rank)
        return made
    }

    /// Copies for a nested transaction (see ``WriteParticipant/fork()``).
    func forked() -> WriteParticipants {
        WriteParticipants(ranks: ranks, all: all.map { $0.fork() })
    }

    /// Whether any participant wants to hear of a change (``WriteParticipant/wantsChanges``).
    var wantChanges: Bool {
        for participant in all where participant.wantsChanges { return true }
        return false
    }

    /// Whether any participant wants to see the bytes of each object of a bulk removal.
    var wantBeforeImagesOfBulkRemovals: Bool {
        all.contains { $0.wantsBeforeImagesOfBulkRemovals }
    }
}
