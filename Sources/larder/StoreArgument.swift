import ArgumentParser
import Foundation
import Larder

/// The store a subcommand works on: the first argument of every subcommand but `demo` and
/// `version`.
struct StoreArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The store: a directory holding data.mdb, or a single data file.", valueName: "store"))
    var path: String

    /// Opens the existing store at ``path``. Nothing is created: an empty path or a directory
    /// without `data.mdb` is reported as not found, a file that is not a store as bad input.
    func open() throws -> Database {
        try Self.open(path)
    }

    static func open(_ path: String, create: Bool = false, verifying: Bool = true) throws -> Database {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if !create {
            guard exists else {
                throw CommandFailure(.notFound, "no store at \(path): nothing is there (larder opens existing stores; it creates none)")
            }
            if isDirectory.boolValue && !FileManager.default.fileExists(atPath: path + "/data.mdb") {
                throw CommandFailure(.notFound, "no store at \(path): the directory holds no data.mdb")
            }
        }
        if exists && verifying { try DamagedStore.refuse(path) }
        do {
            return try Database(path: path)
        } catch let error as LarderError {
            throw CommandFailure(error)
        }
    }
}

/// Runs `body`, turning the Larder errors it throws into ``CommandFailure``s.
func withStoreErrors<R>(context: String? = nil, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as LarderError {
        throw CommandFailure(error, context: context)
    }
}
