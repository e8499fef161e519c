import Foundation
import PulseDetection

/// Writes a minute of simulated 100-Hz finger PPG at 70 bpm as `NAME.csv` (`time_s,ppg`) and its
/// "R-peaks" as `NAME_rpeaks.csv` (each pulse onset less 0.2 s, an arrival delay), the layout of
/// `vitals eval beats`; both clocks start `clockOffset` seconds in.
public func writeSimulatedPPGWithRPeaks(directory: String, name: String, clockOffset: Double = 0) throws {
    var s = SimulatedFinger.Settings()
    s.bpm = 70
    s.frameRate = 100
    s.output = .ppg
    var finger = SimulatedFinger(settings: s)
    var ppg = "time_s,ppg\n"
    for case .ppg(let t, let v) in finger.inputs(duration: 60) { ppg += "\(t + clockOffset),\(v)\n" }
    try ppg.write(toFile: directory + "/\(name).csv", atomically: true, encoding: .utf8)
    let rPeaks = SimulatedFinger.beats(settings: s, until: 60).map { "\($0.onset - 0.2 + clockOffset)" }
    try ("time_s\n" + rPeaks.joined(separator: "\n")).write(toFile: directory + "/\(name)_rpeaks.csv",
                                                           atomically: true, encoding: .utf8)
}
