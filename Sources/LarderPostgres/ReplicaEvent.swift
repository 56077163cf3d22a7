#if Extras
import Larder

/// Something that happened to a replica that no caller of its methods sees, told to
/// ``Replica/Configuration/onEvent`` as it happens.
///
/// New cases may be added in later versions: give a `switch` over them a `default`.
public enum ReplicaEvent: Sendable {
    /// Following the primary failed (a catch-up the replica made by itself, listening for its
    /// notifications, sending the commits made offline); the replica tries again at the next
    /// notification or poll. Also in ``Replica/lastFollowError`` and
    /// ``Replica/Statistics/lastFailure``.
    case followFailed(LarderError)
    /// Trimming the primary's log (``Replica/Configuration/retainedCommits``) failed after a
    /// write; the write was made, and the next trim tries again. Also in
    /// ``Replica/lastFollowError`` and ``Replica/Statistics/lastFailure``.
    case trimFailed(LarderError)
    /// The primary's history is not the replica's (`LarderError/Code/replicaMismatch`): the
    /// replica stopped following and refuses writes until ``Replica/rebootstrap()``. Told once
    /// per divergence.
    case diverged(LarderError)
    /// The replica's contents were replaced by a snapshot of the primary's tables, as of this
    /// commit of the primary (it was empty, behind what the log holds, or rebootstrapped).
    case bootstrapped(position: UInt64)
    /// A write made offline (``Replica/Configuration/writesOffline``) was not made by the primary:
    /// it was taken off the replica, and is kept in ``Replica/rejectedCommits()``.
    case commitRejected(RejectedCommit)
}
#endif
