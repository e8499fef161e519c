import ArgumentParser

/// `vitals`: every Vitals pipeline on recordings. Subcommands each live in their own file.
@main
struct VitalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitals",
        abstract: "Heart rate, HRV and fitness events from phone and watch sensor recordings.",
        subcommands: [
            HeartRate.self,
            Eval.self,
            Bench.self,
            Swings.self, Reps.self, Motion.self,
            Steps.self,
            Frames.self,
            Simulate.self,
        ]
    )
}
