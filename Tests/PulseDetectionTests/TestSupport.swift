import Testing
@testable import PulseDetection

/// Event lists compared exactly, value by value, through their descriptions (every Double printed in
/// its shortest round-trip form), which also names the first difference when they are not equal.
func expectSameEvents(_ a: [PulseEvent], _ b: [PulseEvent], _ context: String = "",
                      sourceLocation: SourceLocation = #_sourceLocation) {
    let sa = a.map { "\($0)" }, sb = b.map { "\($0)" }
    if sa == sb { return }
    let i = (0..<min(sa.count, sb.count)).first { sa[$0] != sb[$0] } ?? min(sa.count, sb.count)
    let left = i < sa.count ? sa[i] : "end", right = i < sb.count ? sb[i] : "end"
    Issue.record("\(context) events differ: \(sa.count) vs \(sb.count) events; first difference at \(i): \(left) vs \(right)",
                 sourceLocation: sourceLocation)
}

/// `seconds` of a simulated finger beating at `bpm` (the simulator's other settings at their defaults).
func simulatedFingerInputs(bpm: Double, seed: UInt64 = SimulatedFinger.Settings().seed, seconds: Double) -> [PulseInput] {
    var s = SimulatedFinger.Settings()
    s.bpm = bpm
    s.seed = seed
    var finger = SimulatedFinger(settings: s)
    return finger.inputs(duration: seconds)
}
