import Foundation

/// The entry point: runs `LarderBench` on a detached task and waits for it. An async `@main`
/// parks the main thread in `dispatchMain()`, which valgrind 3.19 does not survive, and
/// `Scripts/compare-bench --callgrind` runs larder-bench under valgrind.
@main
enum Main {
    static func main() {
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            await LarderBench.main()
            finished.signal()
        }
        finished.wait()
    }
}
