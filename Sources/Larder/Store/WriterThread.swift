#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The one thread that runs a database's asynchronous writes, so that waiting for LMDB's write
/// lock never blocks a thread of Swift's cooperative pool. Requests run in the order they
/// arrive; those waiting when the thread is free are committed together (group commit).
final class WriterThread: Sendable {
    typealias Job = WriteRequest
    /// The most requests committed together.
    static let groupLimit = 64

    private struct Queue {
        var jobs: [Job] = []
        var started = false
        var stopping = false
    }

    /// A condition lock, as the thread waits for jobs (or for the stop) while the queue is empty.
    private let queue = ConditionLock(Queue())

    /// The thread, once started: ``Database/close()-1m8tz`` must not wait for the writes from a closure
    /// that runs on it.
    private let thread = Mutex<pthread_t?>(nil)

    /// Whether the caller runs on this writer thread.
    var isCurrentThread: Bool {
        thread.withLock { thread in thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Requests waiting for the thread (for tests).
    var waitingCount: Int { queue.withLock { $0.jobs.count } }

    /// Queues `job`, starting the thread on first use.
    func enqueue(_ job: Job) {
        queue.withLock { queue in
            queue.jobs.append(job)
            if !queue.started {
                queue.started = true
                start()
            }
        }
        queue.broadcast()
    }

    /// Lets the thread end once the queued jobs have run.
    func stop() {
        queue.withLock { $0.stopping = true }
        queue.broadcast()
    }

    private func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { context in
            #if canImport(Darwin)
            let writer = Unmanaged<WriterThread>.fromOpaque(context).takeRetainedValue()
            #else
            let writer = Unmanaged<WriterThread>.fromOpaque(context!).takeRetainedValue()
            #endif
            writer.run()
            return nil
        }, context)
        precondition(rc == 0, "Larder: could not start the writer thread (pthread_create: \(rc))")
        pthread_detach(thread)
    }

    private func run() {
        thread.withLock { $0 = pthread_self() }
        while true {
            let batch: [Job]? = queue.withLock(when: { !$0.jobs.isEmpty || $0.stopping }) { queue in
                if queue.jobs.isEmpty { return nil }  // stopping, and nothing left to run
                let batch = Array(queue.jobs.prefix(Self.groupLimit))
                queue.jobs.removeFirst(batch.count)
                return batch
            }
            guard let batch else { return }
            batch[0].database.performGroupWrite(batch)
        }
    }
}
