#if Extras
import Foundation
import Larder

/// A failure of work a replica does by itself, which no caller of its methods sees: what it was
/// doing, the error and when. The last one is ``Replica/Statistics/lastFailure``.
///
/// ```swift
/// if let failure = replica.statistics.lastFailure, failure.date > replica.statistics.lastPrimaryContact ?? .distantPast {
///     print("the replica is not keeping up: \(failure)")
/// }
/// ```
public struct ReplicaFailure: Sendable, Equatable, CustomStringConvertible {
    /// What a replica was doing when it failed.
    public enum Work: String, Sendable, Equatable {
        /// Following the primary: a catch-up it made by itself (at a notification or a poll), or
        /// the fetch of the commits before one of its own writes.
        case following
        /// Listening for the primary's notifications of commits; meanwhile the replica polls
        /// (``Replica/Configuration/pollInterval``). Noted once until it listens again.
        case listening
        /// Trimming the primary's log to ``Replica/Configuration/retainedCommits``.
        case trimmingLog
        /// Sending the commits made offline (``Replica/Configuration/writesOffline``) to the
        /// primary, or reading or settling them.
        case sendingPendingCommits
    }

    /// What the replica was doing.
    public var work: Work
    /// What went wrong.
    public var error: LarderError
    /// When it went wrong.
    public var date: Date

    /// A failure of `work` with `error` at `date`.
    public init(work: Work, error: LarderError, date: Date) {
        self.work = work
        self.error = error
        self.date = date
    }

    /// The work, the time and the error, as a log line wants them.
    public var description: String {
        "\(work.rawValue) failed at \(date): \(error)"
    }

    /// The same work at the same time, with an error of the same code and description.
    public static func == (lhs: ReplicaFailure, rhs: ReplicaFailure) -> Bool {
        lhs.work == rhs.work && lhs.date == rhs.date && lhs.error.code == rhs.error.code
            && lhs.error.description == rhs.error.description
    }
}
#endif
