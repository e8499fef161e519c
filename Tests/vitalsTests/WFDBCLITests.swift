import Foundation
import Testing

@Suite(.enabled(if: vitalsBinary != nil))
struct WFDBCLITests {
    /// A PhysioNet-style record (format 16, an ECG-like and a 75-bpm PPG-like signal at 125 Hz):
    /// `heart-rate NAME.hea` reads PLETH by default and finds its rate; --column picks another
    /// signal; --rate is refused, as the header gives it.
    @Test func heartRateReadsAWfdbRecord() throws {
        let dir = try scratchFolder("wfdb")
        let rate = 125.0, n = 125 * 40
        var data = Data()
        for i in 0..<n {
            let t = Double(i) / rate
            let phase = (t * 1.25).truncatingRemainder(dividingBy: 1)
            let ecg = Int16(phase < 0.04 ? 800 : 0)
            let ppg = Int16(1000 * sin(2 * Double.pi * 1.25 * t) + 200 * sin(4 * Double.pi * 1.25 * t))
            for v in [ecg, ppg] { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        }
        try data.write(to: URL(fileURLWithPath: dir + "/rec.dat"))
        try "rec 2 125 \(n)\nrec.dat 16 1000/mV 16 0 0 0 0 II\nrec.dat 16 100/NU 16 0 0 0 0 PLETH\n"
            .write(toFile: dir + "/rec.hea", atomically: true, encoding: .utf8)

        let run = try vitals(["heart-rate", "rec.hea", "--json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let bpm = try #require((doc["heart_rate"] as? [String: Any])?["bpm"] as? Double)
        #expect(abs(bpm - 75) < 1)
        #expect(doc["sample_rate_hz"] as? Double == 125)

        let missing = try vitals(["heart-rate", "rec.hea", "--column", "ABP"], in: dir)
        #expect(missing.status != 0 && missing.errorLines.count == 1 && missing.stderr.contains("0: II, 1: PLETH"), "\(missing.stderr)")
        let withRate = try vitals(["heart-rate", "rec.hea", "--rate", "125"], in: dir)
        #expect(withRate.status != 0 && withRate.stderr.contains("a WFDB header gives the rate"), "\(withRate.stderr)")
    }
}
