import ArgumentParser

extension ParsableCommand {
    /// What `@main` does for an async command tree, callable from a `main.swift` that first picks the tree
    /// (navd started as navctl): parse, run the chosen command (awaiting async ones), exit with its status.
    /// Calling `main()` there would pick the synchronous overload, which refuses async commands.
    public static func runAsRoot() async -> Never {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            self.exit()
        } catch {
            self.exit(withError: error)
        }
    }
}
