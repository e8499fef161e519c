import ArgumentParser

/// `vitals eval ...`: accuracy of each pipeline on a folder of recordings with ground truth.
struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score a pipeline against ground truth on a folder of recordings.",
        subcommands: [
            EvalFingertip.self,
            EvalSimulated.self,
            EvalBeats.self,
            EvalAttitude.self,
            EvalSwings.self,
            EvalReps.self,
            EvalSteps.self,
            EvalGait.self,
            EvalVideo.self,
            EvalWrist.self,
            EvalSkin.self,
        ]
    )
}
