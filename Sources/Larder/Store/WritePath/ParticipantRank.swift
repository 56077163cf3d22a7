/// Where a participant is heard among the others of a write transaction. Each change reaches
/// the participants in rank order, and so does each step of the commit: what derives entries
/// from a change (the extensions) comes first, so that what it writes is captured by undo,
/// logged, and shipped with the rest.
enum ParticipantRank: Int, Comparable, Sendable {
    /// State derived from the objects (the extensions), dependencies first.
    case derivedState
    /// Undo capture.
    case undo
    /// The change log (the store's own; a feature's participant comes after it at this rank).
    case changeLog
    /// The cache's write-through (the store's own, as ``changeLog``).
    case cache
    /// What follows the finished write: a replica's guard and shipping, a test's recorder.
    case shipping

    static func < (a: ParticipantRank, b: ParticipantRank) -> Bool { a.rawValue < b.rawValue }
}
