import Foundation
import Synchronization
import Testing
@testable import Larder

/// The locks that threads wait on: the transaction gate and the condition lock under it.
@Suite("Concurrency: locks")
struct ConcurrencyLockTests {
    /// A resize (`exclusively`) never runs while a transaction is inside the gate, and runs once
    /// the last one leaves; transactions that arrive meanwhile wait for it to end.
    @Test func theGateRunsAResizeOnlyWithNoTransactionInside() {
        let gate = TransactionGate()
        let events = Mutex<[String]>([])
        gate.enter(reentrant: false)
        let resized = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let ran = gate.exclusively { events.withLock { $0.append("resize") } }
            events.withLock { $0.append(ran ? "resize returned" : "resize skipped") }
            resized.signal()
        }
        // Whether or not the resize has closed the gate yet, its body cannot have run.
        for _ in 0..<100 { sched_yield() }
        events.withLock { $0.append("transaction leaves") }
        gate.leave()
        resized.wait()
        gate.enter(reentrant: false)
        events.withLock { $0.append("next transaction") }
        gate.leave()
        #expect(events.withLock { $0 } == ["transaction leaves", "resize", "resize returned", "next transaction"])
    }

    /// A thread waiting in `withLock(when:)` runs its body once another thread's change makes
    /// the condition hold, and sees that change.
    @Test func aWaiterSeesTheChangeItWaitedFor() {
        let lock = ConditionLock(0)
        let seen = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        for wanted in [3, 1, 2] {
            Thread.detachNewThread {
                let value = lock.withLock(when: { $0 >= wanted }) { $0 }
                seen.withLock { $0.append(value >= wanted ? wanted : -wanted) }
                done.signal()
            }
        }
        for _ in 0..<3 {
            lock.withLock { $0 += 1 }
            lock.broadcast()
        }
        for _ in 0..<3 { done.wait() }
        #expect(seen.withLock { $0.sorted() } == [1, 2, 3])
    }
}
