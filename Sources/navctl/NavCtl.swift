import ArgumentParser

@main
struct NavCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navctl",
        abstract: "Command-line client and field-testing tools for navd.",
        subcommands: [WatchCommand.self, RouteCommand.self, SimulateCommand.self, ReplayCommand.self, GNSSCommand.self])
}
