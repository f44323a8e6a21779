import ArgumentParser

/// navctl's commands. The `navctl` executable runs them, and so does `navd` when it is started as `navctl`
/// (the Debian package installs navctl as a link to navd).
public struct NavCtl: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "navctl",
        abstract: "Command-line client and field-testing tools for navd.",
        subcommands: [StatusSubcommand.self, NavigateSubcommand.self, AddStopSubcommand.self, RemoveStopSubcommand.self, SkipWaypointSubcommand.self, ChooseSubcommand.self, CancelSubcommand.self, WatchCommand.self, RouteCommand.self, SimulateCommand.self, ReplayCommand.self, RecordSubcommand.self, ReportCommand.self, GNSSCommand.self, SpeakCommand.self, VoiceSubcommand.self, RepeatSubcommand.self])
}
