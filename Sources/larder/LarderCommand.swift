import ArgumentParser
import Larder

@main
struct LarderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "larder",
        abstract: "Inspect and try out Larder stores.",
        version: LarderVersion.string,
        subcommands: [DemoCommand.self, VersionCommand.self]
    )
}

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the library version and the store format version."
    )

    func run() {
        print("larder \(LarderVersion.string) (store format \(LarderVersion.storeFormat))")
    }
}
