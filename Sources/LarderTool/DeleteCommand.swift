#if Extras
import ArgumentParser
import Larder

/// `larder delete`: remove objects (with their metadata), or a whole collection.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Remove objects and their metadata, or every key of a collection.",
        discussion: "All keys are removed in one transaction. If one of them has no object, nothing is removed and the status is 2, unless --ignore-missing.")

    @OptionGroup var store: StoreArgument
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The keys to remove.") var keys: [String] = []
    @Flag(help: "Remove every key of the collection.") var all = false
    @Flag(help: "Remove the keys that are there and ignore the others.") var ignoreMissing = false

    func validate() throws {
        if all && !keys.isEmpty { throw ValidationError("give keys or --all, not both") }
        if !all && keys.isEmpty { throw ValidationError("give the keys to remove, or --all") }
    }

    func run() throws {
        let db = try store.open(readOnly: false)
        let missing = try withStoreErrors {
            try db.write { txn -> [String] in
                if all {
                    guard try txn.numberOfKeys(inCollection: collection) > 0 else { return [collection] }
                    try txn.removeAllObjects(inCollection: collection)
                    return []
                }
                var missing: [String] = []
                for key in keys where try !txn.removeObject(forKey: key, inCollection: collection) { missing.append(key) }
                if !missing.isEmpty && !ignoreMissing { txn.rollback() }
                return missing
            }
        }
        if all, !missing.isEmpty { throw CommandFailure(.notFound, "no collection \(CommandFailure.quoted(collection)) (it has no keys)" + Suggestion.collection(collection, in: db)) }
        if !missing.isEmpty && !ignoreMissing {
            let names = missing.map(CommandFailure.quoted).joined(separator: ", ")
            throw CommandFailure(.notFound, "no object at collection \(CommandFailure.quoted(collection)), key\(missing.count == 1 ? "" : "s") \(names); nothing was removed")
        }
    }
}
#endif
