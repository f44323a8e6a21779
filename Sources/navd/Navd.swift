import ArgumentParser
import FoundationEssentials
import Glibc
import NavigationDaemon
import SystemSupport

struct Navd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navd",
        abstract: "Turn-by-turn navigation daemon: GNSS in, trip state and instructions out over a Unix socket.",
        discussion: "Configuration: docs/configuration.md. Socket protocol: docs/protocol.md.",
        version: NavigationService.navdVersion,
        subcommands: [Run.self, CheckConfig.self],
        defaultSubcommand: Run.self)
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the daemon (the default).")

    @Option(help: "Configuration file (TOML).")
    var config: String = "/etc/navd/navd.toml"

    func run() async throws {
        do {
            try await NavdDaemon.run(configPath: config)
        } catch {
            StandardStream.error.write("navd: \(error)\n")
            throw ExitCode(1)
        }
    }
}

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Validate a configuration file and explain every error (file, key, what is wrong).")

    @Argument(help: "Configuration file (TOML).")
    var file: String

    func run() throws {
        do {
            let config = try ConfigLoader.load(path: file)
            print("\(file): OK")
            print(ConfigSummary.describe(config))
            if let warning = ConfigFileSafety.warning(path: file) { StandardStream.error.write("warning: \(warning)\n") }
        } catch {
            StandardStream.error.write("\(error)\n")
            throw ExitCode(1)
        }
    }
}
