import Foundation
import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `migrate-slowly <path> <chunk size>`: migrates collection `notes` (version 0, `{"text": …}`)
/// to version 1 (`text` renamed `body`, as `MigrationTests` declares it) in chunks, printing
/// `chunk <values scanned>` after each and pausing, so that a test can kill it midway.
func migrateSlowly(path: String, chunkSize: Int) {
    do {
        let db = try Database(path: path)
        db.register(ValueMigrations(collection: "notes", currentVersion: 1, steps: [MigrationStep(from: 0, changes: [.rename("text", to: "body")])]))
        try db.migrate(collection: "notes", chunkSize: chunkSize) { progress in
            var line = "chunk \(progress.scanned)\n"
            line.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
            usleep(20_000)
        }
        print("done")
        exit(0)
    } catch {
        fail("migrate-slowly failed: \(error)")
    }
}
