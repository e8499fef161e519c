import Foundation
import PulseDetection

/// Writes a minute of simulated 100-Hz finger PPG at 70 bpm as `NAME.csv` (`time_s,ppg`) and its
/// "R-peaks" as `NAME_rpeaks.csv` (each pulse onset less 0.2 s, an arrival delay), the layout of
/// `vitals eval beats`; both clocks start `clockOffset` seconds in.
public func writeSimulatedPPGWithRPeaks(directory: String, name: String, clockOffset: Double = 0) throws {
    let s = simulatedPPGSettings
    var finger = SimulatedFinger(settings: s)
    var ppg = "time_s,ppg\n"
    for case .ppg(let t, let v) in finger.inputs(duration: 60) { ppg += "\(t + clockOffset),\(v)\n" }
    try ppg.write(toFile: directory + "/\(name).csv", atomically: true, encoding: .utf8)
    let rPeaks = SimulatedFinger.beats(settings: s, until: 60).map { "\($0.onset - 0.2 + clockOffset)" }
    try ("time_s\n" + rPeaks.joined(separator: "\n")).write(toFile: directory + "/\(name)_rpeaks.csv",
                                                           atomically: true, encoding: .utf8)
}

/// The finger of ``writeSimulatedPPGWithRPeaks(directory:name:clockOffset:)``: 70 bpm, PPG at 100 Hz.
private var simulatedPPGSettings: SimulatedFinger.Settings {
    var s = SimulatedFinger.Settings()
    s.bpm = 70
    s.frameRate = 100
    s.output = .ppg
    return s
}

/// The same finger as a PhysioNet record, sampled evenly as a record is (no timestamp jitter, no
/// dropped samples): `NAME.hea` and `NAME.dat` (one PLETH signal, format 16, gain 10000, 100 Hz),
/// and `NAME.atr`, a normal-beat annotation at each "R-peak" (onset less 0.2 s, to the nearest
/// sample) in WFDB's MIT format.
public func writeSimulatedPPGAsWFDB(directory: String, name: String) throws {
    var s = simulatedPPGSettings
    s.timestampJitter = 0
    s.dropRate = 0
    var finger = SimulatedFinger(settings: s)
    var values: [Double] = []
    for case .ppg(_, let v) in finger.inputs(duration: 60) { values.append(v) }
    var data = Data()
    for v in values {
        let stored = Int16(clamping: Int((v * 10_000).rounded()))
        withUnsafeBytes(of: stored.littleEndian) { data.append(contentsOf: $0) }
    }
    try data.write(to: URL(fileURLWithPath: directory + "/\(name).dat"))
    try "\(name) 1 100 \(values.count)\n\(name).dat 16 10000/NU 16 0 0 0 0 PLETH\n"
        .write(toFile: directory + "/\(name).hea", atomically: true, encoding: .utf8)
    // Each annotation a word: code 1 (normal beat) in the top 6 bits, the samples since the last in
    // the low 10 (a minute at 70 bpm keeps every interval under 1024); a 0 word ends the file.
    var annotations = Data(), last = 0
    for beat in SimulatedFinger.beats(settings: s, until: 60) where beat.onset >= 0.2 {
        let sample = Int(((beat.onset - 0.2) * 100).rounded())
        let word = UInt16(1 << 10 | (sample - last))
        withUnsafeBytes(of: word.littleEndian) { annotations.append(contentsOf: $0) }
        last = sample
    }
    annotations.append(contentsOf: [0, 0])
    try annotations.write(to: URL(fileURLWithPath: directory + "/\(name).atr"))
}
