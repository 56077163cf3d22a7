#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A reader slot of the store: a read transaction of some process, live or kept for reuse.
public struct ReaderSlot: Sendable, Hashable {
    /// The process that holds the slot.
    public let processID: Int32
    /// The thread that began its transaction (an opaque number).
    public let thread: UInt64
    /// The commit the reader's snapshot sees, as LMDB's transaction id; `nil` while the slot is
    /// idle (a transaction kept for reuse, which pins nothing).
    public let snapshotTransactionID: Int?
    /// How many LMDB transactions have committed since the reader's snapshot: pages freed since
    /// then cannot be reused while it lasts, so the file grows. `nil` while idle.
    public let transactionsBehind: Int?
    /// Whether the process that holds the slot is still running (a dead one's slot is stale until
    /// ``Database/clearStaleReaders()`` or the next open reclaims it).
    public let isProcessAlive: Bool
}

extension Database {
    /// The reader slots in use by every process that has the store open, for diagnostics: a long
    /// `transactionsBehind` is a reader that pins old pages (a pinned snapshot left behind, a
    /// stuck thread) and makes the file grow. Empty after ``close()-1m8tz``.
    public func readerSlots() -> [ReaderSlot] {
        guard (try? beginUse("readerSlots")) != nil else { return [] }
        defer { endUse() }
        let last = environment.lastTransactionID()
        return environment.readerEntries().map { entry in
            ReaderSlot(
                processID: entry.processID, thread: entry.thread, snapshotTransactionID: entry.transactionID,
                transactionsBehind: entry.transactionID.map { max(0, last - $0) },
                isProcessAlive: kill(entry.processID, 0) == 0 || errno == EPERM)
        }
    }

    /// Reclaims the reader slots of processes that died inside a read transaction (LMDB's
    /// stale-reader check); returns how many. Opening a store and running out of slots do this
    /// by themselves. Returns 0 after ``close()-1m8tz``.
    @discardableResult
    public func clearStaleReaders() -> Int {
        guard (try? beginUse("clearStaleReaders")) != nil else { return 0 }
        defer { endUse() }
        return environment.clearStaleReaders()
    }
}
