import Foundation
import PulseDetection

/// Shows a recording the way the live component would: a scrolling waveform in the terminal, one
/// line a second, with the beats and the current rate as the pipeline reports them.
final class LiveDisplay {
    private var buffer: [Double] = []
    private var beats = 0
    private var rate: RateEstimate?
    private var secondStart: Double?
    private let columns = 50
    private let glyphs = Array(" ▁▂▃▄▅▆▇█")

    func observe(_ event: PulseEvent) {
        switch event {
        case .waveform(let w):
            if secondStart == nil { secondStart = w.time }
            buffer.append(w.value)
            if w.time - secondStart! >= 1 {
                flush(at: w.time)
                secondStart = w.time
            }
        case .beat: beats += 1
        case .confirmedBeat: break
        case .rate(let r): rate = r
        case .contactFound(let t): print(String(format: "%6.1f s  finger on the lens", t))
        case .contactLost(let t): print(String(format: "%6.1f s  finger lifted", t))
        case .gap(let a, let b): print(String(format: "%6.1f s  no signal until %.1f s", a, b))
        case .quality: break
        }
    }

    private func flush(at time: Double) {
        guard !buffer.isEmpty else { return }
        // Auto-scale: map the second's own range onto the glyphs, as the seed's wave view does.
        let lo = buffer.min()!, hi = buffer.max()!
        let step = max(1, buffer.count / columns)
        var line = ""
        var i = 0
        while i < buffer.count {
            let v = buffer[i..<min(buffer.count, i + step)].max()!
            let level = hi > lo ? Int(((v - lo) / (hi - lo) * Double(glyphs.count - 1)).rounded()) : 0
            line.append(glyphs[level])
            i += step
        }
        let hearts = String(repeating: "♥", count: beats)
        let bpm = rate.map { String(format: "%5.1f bpm", $0.bpm) } ?? "   -- bpm"
        print(String(format: "%6.1f s  ", time) + line + "  " + bpm + "  " + hearts)
        buffer.removeAll(keepingCapacity: true)
        beats = 0
    }

    func finish(_ analysis: PulseAnalysis) {
        print("")
    }
}
