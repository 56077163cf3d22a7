#if Extras
import ArgumentParser
import Foundation
import Larder

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the library version and the store format version."
    )

    func run() {
        say("larder \(LarderVersion.string) (store format \(LarderVersion.storeFormat))")
    }
}
#endif
