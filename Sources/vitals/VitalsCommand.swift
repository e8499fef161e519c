import ArgumentParser

/// `vitals`: every Vitals pipeline on recordings. Subcommands each live in their own file.
@main
struct VitalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitals",
        abstract: "Heart rate, HRV and fitness events from phone and watch sensor recordings.",
        subcommands: [
            Bench.self,
            Frames.self,
            Simulate.self,
        ]
    )
}
