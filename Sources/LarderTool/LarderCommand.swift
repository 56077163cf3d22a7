#if Extras
import ArgumentParser
import Foundation
import Larder

@main
struct LarderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "larder",
        abstract: "Inspect, change, export, import, back up and check Larder stores.",
        discussion: """
            Every subcommand but demo and version takes the store's path first. Exit statuses: \
            0 success, 1 usage error, 2 not found, 3 bad input, 4 check found problems, 5 other \
            store error. See Documentation/CommandLine.md.
            """,
        version: LarderVersion.string,
        subcommands: [
            InfoCommand.self, CollectionsCommand.self, KeysCommand.self, GetCommand.self, ScanCommand.self, PutCommand.self,
            DeleteCommand.self, ExportCommand.self, ImportCommand.self, BackupCommand.self, CheckCommand.self,
            ReadersCommand.self, LogCommand.self, HistoryCommand.self, StatCommand.self, CompactCommand.self, MigrateCommand.self, ShellCommand.self, DemoCommand.self, VersionCommand.self,
        ]
    )

    /// Parses and runs the subcommand, and turns every failure into one line on standard error
    /// and a status from ``ExitStatus`` (never a crash or a backtrace).
    static func main() {
        LMDBAssertion.exitStatus.store(ExitStatus.storeError.rawValue, ordering: .relaxed)  // a damaged page nothing caught: status 5, not SIGABRT
        do {
            try checkArgumentsAreUTF8()
            try checkSubcommandIsKnown()
            var command = try parseAsRoot()
            try command.run()
            try Output.standard.finish()
        } catch {
            finish(with: error)
        }
        Foundation.exit(ExitStatus.ok.rawValue)
    }

    /// Refuses an argument that is not UTF-8. `CommandLine.arguments` repairs such bytes into
    /// U+FFFD, so two distinct keys (or collections, paths, values) would silently become one:
    /// the raw `argv` bytes are checked before anything is parsed.
    private static func checkArgumentsAreUTF8() throws {
        let argv = CommandLine.unsafeArgv
        for position in 1..<Int(CommandLine.argc) {
            guard let pointer = argv[position] else { continue }
            if String(validatingCString: pointer) == nil {
                throw CommandFailure(.badInput, "argument \(position) (\(CommandFailure.quoted(String(cString: pointer)))) is not UTF-8; larder takes collections, keys, values and paths as UTF-8 text only (other bytes would be replaced and distinct names would collide)")
            }
        }
    }

    /// Refuses a first argument that is no subcommand with the closest one's name, where the
    /// parser would say only that the arguments were unexpected.
    private static func checkSubcommandIsKnown() throws {
        guard let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-") else { return }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !names.contains(first) else { return }
        throw CommandFailure(.usage, "unknown command \(CommandFailure.quoted(first))" + Suggestion.didYouMean(first, among: names) + " (larder --help lists the commands)")
    }

    private static func finish(with error: any Error) -> Never {
        try? Output.standard.finish()
        switch error {
        case let failure as CommandFailure:
            fail(failure)
        case let error as LarderError:
            fail(CommandFailure(error))
        default:
            let code = exitCode(for: error)
            if code == .validationFailure {
                printError(fullMessage(for: error))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            if code == .success { exit(withError: error) }  // --help, --version
            printError("larder: \(fullMessage(for: error))")
            Foundation.exit(code == .failure ? ExitStatus.usage.rawValue : code.rawValue)
        }
    }

    private static func fail(_ failure: CommandFailure) -> Never {
        printError("larder: " + failure.message.split(whereSeparator: \.isNewline).joined(separator: " "))
        Foundation.exit(failure.status.rawValue)
    }
}
#endif
