import Foundation
import PulseDetection
import SignalProcessing
import Testing
@testable import VitalsIO

/// A CSV named by path is read from disk a block at a time (``CSVFile/blockSize``) and a pulse
/// recording's samples are read again when asked for (unless few enough to keep from the check): the
/// rows, samples, analyses and errors must be those of the same text held in memory.
@Suite struct StreamedRecordingTests {
    private func temporaryFile(_ bytes: [UInt8], _ name: String = "stream") throws -> String {
        let path = NSTemporaryDirectory() + "vitals-\(name)-\(UUID().uuidString).csv"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A pulse at 72 bpm sampled at `rate` for `seconds`, with blank lines here and there; long
    /// enough that rows straddle block boundaries.
    private func ppgText(seconds: Double, rate: Double, lineEnd: String = "\n") -> String {
        var text = "time_s,ppg" + lineEnd
        for i in 0..<Int(seconds * rate) {
            let t = Double(i) / rate
            text += String(format: "%.3f,%.6f", t, sin(2 * .pi * 1.2 * t) + 0.1 * sin(2 * .pi * 0.25 * t)) + lineEnd
            if i % 9_973 == 0 { text += lineEnd }
        }
        return text
    }

    private func rows(_ csv: CSVFile) throws -> [String] {
        var out: [String] = []
        try csv.forEachRow { line, fields, buf in
            out.append("\(line):" + fields.map { String(decoding: UnsafeBufferPointer(rebasing: buf[$0]), as: UTF8.self) }.joined(separator: "|"))
        }
        return out
    }

    /// LF, CRLF and CR-only line ends, a byte-order mark, and no line end after the last row: the same
    /// rows with the same line numbers from disk (over several blocks) as from memory.
    @Test func rowsFromDiskAreTheRowsFromMemory() throws {
        for (lineEnd, prefix, trailing) in [("\n", "", true), ("\r\n", "", true), ("\r", "", false), ("\n", "\u{FEFF}", false)] {
            var text = prefix + ppgText(seconds: 2600, rate: 50, lineEnd: lineEnd)
            if !trailing { text.removeLast(lineEnd.count) }
            let bytes = Array(text.utf8)
            #expect(bytes.count > 2 * CSVFile.blockSize)
            let path = try temporaryFile(bytes)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let disk = try CSVFile(path: path), memory = try CSVFile(bytes: bytes, source: path)
            #expect(disk.header == ["time_s", "ppg"])
            let fromDisk = try rows(disk)
            #expect(fromDisk.count == 130_000)
            #expect(fromDisk == (try rows(memory)))
            #expect(disk.lineNumber(ofRow: 129_999) == memory.lineNumber(ofRow: 129_999))
        }
    }

    /// A line longer than the reading buffer (two blocks) grows it: a header and a row of 3 MiB read
    /// as from memory.
    @Test func linesLongerThanTheBufferAreRead() throws {
        let wide = String(repeating: " ", count: 3 << 20)
        let text = "time_s,\(wide)ppg\n0,1\n0.5,\(wide)2\n1,3\n"
        let bytes = Array(text.utf8)
        let path = try temporaryFile(bytes, "wide")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let disk = try CSVFile(path: path), memory = try CSVFile(bytes: bytes, source: path)
        #expect(disk.header == ["time_s", "ppg"])
        #expect(try disk.numericColumns([0, 1]) == [[0, 0.5, 1], [1, 2, 3]])
        #expect(try rows(disk) == rows(memory))
    }

    /// A day-long recording is not held: its samples come from the file run by run, and the analysis
    /// is the one of the same samples in memory.
    @Test func aRecordingReadFromItsFileAnalysesAsInMemory() throws {
        let bytes = Array(ppgText(seconds: 900, rate: 100).utf8)
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Read again from the file (no values kept from the check), and kept from the check.
        let streamed = try PulseRecording.load(try CSVFile(path: path), column: "ppg", rate: nil, maximumGap: 1,
                                               polarity: .asRecorded, keptValues: 0)
        let kept = try PulseRecording.load(path: path, column: "ppg")
        let held = try PulseRecording.load(try CSVFile(bytes: bytes, source: path), column: "ppg")
        #expect(try kept.inputs.array() == held.inputs.array())
        #expect(streamed.inputs.count == 90_000)
        var chunks = 0
        try streamed.inputs.forEachChunk { chunk in
            chunks += 1
            #expect(chunk.count <= PulseRecording.Inputs.chunkLength)
        }
        #expect(chunks == (90_000 + PulseRecording.Inputs.chunkLength - 1) / PulseRecording.Inputs.chunkLength)
        let inputs = try streamed.inputs.array()
        #expect(inputs == (try held.inputs.array()))
        let a = try streamed.analyse(), b = PulseAnalysis.run(inputs, sampleRate: held.sampleRate)
        #expect(a.beats.count > 1000)
        #expect(a.beats == b.beats)
        #expect(a.rates == b.rates)
        #expect(a.hrv?.intervals == b.hrv?.intervals && a.hrv?.measures.rmssd == b.hrv?.measures.rmssd)
    }

    /// A file that changes between its check and its analysis is an error, not a shorter analysis.
    @Test func aFileChangedAfterItsCheckIsAnError() throws {
        let text = ppgText(seconds: 60, rate: 50)
        let path = try temporaryFile(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = try PulseRecording.load(try CSVFile(path: path), column: "ppg", rate: nil, maximumGap: 1,
                                                polarity: .asRecorded, keptValues: 0)
        try Data(text.utf8.prefix(text.utf8.count / 2)).write(to: URL(fileURLWithPath: path))
        #expect { try recording.analyse() } throws: { error in
            (error as? InputError)?.code == .unreadable && "\(error)".contains("the file changed while it was being read")
        }
        try Data((text + "60.000,0.5\n").utf8).write(to: URL(fileURLWithPath: path))
        #expect { try recording.inputs.array() } throws: { error in "\(error)".contains("the file changed") }
        // The same length, another value: told by the file's modification time.
        try Data(text.replacingOccurrences(of: "0.000,", with: "0.001,").utf8).write(to: URL(fileURLWithPath: path))
        #expect { try recording.analyse() } throws: { error in "\(error)".contains("the file changed") }
        // A link to a file is read from disk as the file is, not held.
        let link = path + ".link.csv"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        defer { try? FileManager.default.removeItem(atPath: link) }
        #expect(isRegularFile(link))
    }

    /// The median of the sampling intervals, from their distinct values, is the one a selection over
    /// all of them gives; past the limit (jitter) it is within a bin's width of it, in bounded memory.
    @Test func theIntervalMedianIsExactThenBounded() {
        var generator = SystemRandomNumberGenerator()
        for (count, distinct) in [(1, 1), (2, 2), (1_001, 3), (1_000, 3), (60_000, 60_000), (200_000, 150_000),
                                  (200_001, 0), (200_000, 0), (1_000_000, 0)] {
            var median = IntervalMedian()
            var all: [Double] = []
            for _ in 0..<count {
                let x = distinct == 0 ? Double.random(in: 0.01...0.02, using: &generator)
                    : 0.01 + Double(Int.random(in: 0..<distinct, using: &generator)) * 1e-9
                median.add(x)
                all.append(x)
            }
            let expected = all.withUnsafeMutableBufferPointer { Statistics.selectMedian($0) }
            if Set(all).count <= IntervalMedian.distinctLimit {
                #expect(median.median() == expected, "\(count) values, \(distinct) distinct")
            } else {
                // Two binades (0.0078-0.0156, 0.0156-0.031): bins of a relative 2^-15 at the widest.
                #expect(abs(median.median() - expected) <= expected * 0x1p-15, "\(count) values, \(distinct) distinct")
                #expect(median.storedBins <= IntervalMedian.distinctLimit)
            }
        }
        #expect(IntervalMedian().median().isNaN)
    }

    /// A pipe cannot be read twice: its text is read into memory, and reads as a file does.
    @Test func aPipeIsReadWhole() throws {
        let text = ppgText(seconds: 30, rate: 50)
        let pipe = Pipe()
        let writer = Thread {
            pipe.fileHandleForWriting.write(Data(text.utf8))
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let path = "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)"
        guard FileManager.default.fileExists(atPath: path) else { return }  // no /dev/fd here
        let fromPipe = try PulseRecording.load(path: path, column: "ppg")
        let held = try PulseRecording.load(try CSVFile(bytes: Array(text.utf8), source: path), column: "ppg")
        #expect(try fromPipe.inputs.array() == held.inputs.array())
    }
}

/// A wrist recording's PPG columns and accelerometer come from one pass over the file; each PPG
/// column is what the recording checks read from it alone, and each column's faults are named.
@Suite struct WristRecordingLoadTests {
    private func csv(_ rows: Int, ppg2: (Int) -> String = { String(sin(Double($0) / 7)) },
                     ax: (Int) -> String = { String(cos(Double($0) / 9)) }) throws -> CSVFile {
        var text = "time_ms,ppg1,ppg2,ax,ay,az\n"
        for i in 0..<rows { text += "\(1000 + 8 * i),\(sin(Double(i) / 5)),\(ppg2(i)),\(ax(i)),0.1,1\n" }
        return try CSVFile(bytes: Array(text.utf8), source: "w.csv")
    }

    @Test func columnsReadTogetherAreTheColumnsReadAlone() throws {
        let file = try csv(2_000)
        let wrist = try WristRecording.load(file, ppgColumns: ["ppg1", "ppg2"], motionColumns: ["ax", "ay", "az"], rate: nil)
        for (k, name) in ["ppg1", "ppg2"].enumerated() {
            let alone = try PulseRecording.load(file, column: name)
            let inputs = try alone.inputs.array()
            #expect(wrist.times == inputs.map(\.time))
            #expect(wrist.ppg[k] == inputs.map { if case .ppg(_, let v) = $0 { v } else { .nan } })
            #expect(wrist.sampleRate == alone.sampleRate && wrist.startTime == alone.startTime && wrist.notes == alone.notes)
        }
        #expect(wrist.startTime == 1)
        #expect(wrist.acceleration[9] == SIMD3(cos(1), 0.1, 1))
    }

    @Test func eachColumnsFaultIsNamed() throws {
        let load = { (file: CSVFile) in
            try WristRecording.load(file, ppgColumns: ["ppg1", "ppg2"], motionColumns: ["ax", "ay", "az"], rate: nil)
        }
        #expect { try load(try csv(2_000, ppg2: { _ in "3" })) } throws: { "\($0)".contains("the signal (ppg2) is flat") }
        #expect { try load(try csv(2_000, ppg2: { $0 == 40 ? "" : "1" })) } throws: { "\($0)".contains("line 42, column 'ppg2'") }
        #expect { try load(try csv(2_000, ax: { $0 == 7 ? "nan" : "1" })) } throws: { "\($0)".contains("line 9, column 'ax'") }
        #expect { try WristRecording.load(try csv(100), ppgColumns: ["ppg1"], motionColumns: ["ax", "ay", "bz"], rate: nil) }
            throws: { "\($0)".contains("column 'bz' not found") }
    }
}

/// A motion log named by path is parsed from its file a block at a time, its time column without a
/// string per row: the same log, notes and errors as the same text in memory.
@Suite struct MotionLogFromFileTests {
    private func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "vitals-motion-\(UUID().uuidString).csv"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func log(rows: Int, time: (Int) -> String) -> String {
        "timeStampSaved,acc_x,acc_y,acc_z\n" + (0..<rows).map { i in
            "\(time(i)),\(0.1 * sin(Double(i) / 7)),\(0.2 * cos(Double(i) / 5)),\(-1 + 0.3 * sin(Double(i) / 3))\n"
        }.joined()
    }

    @Test func aLogFromItsFileIsTheLogFromMemory() throws {
        for text in [log(rows: 3_000) { String(format: "%.2f", Double($0) / 50) },
                     log(rows: 3_000) { String(format: "2017-05-03 13:%02d:%02d:%03d", 45 + $0 / 3000, ($0 / 50) % 60, ($0 % 50) * 20) }] {
            let path = try write(text)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let fromFile = try MotionLog.read(path: path), fromMemory = try MotionLog.parse(bytes: Array(text.utf8), source: path)
            #expect(fromFile.time == fromMemory.time)
            #expect(fromFile.acceleration == fromMemory.acceleration)
            #expect(fromFile.notes == fromMemory.notes)
            #expect(fromFile.time.count == 3_000)
        }
    }

    @Test func aTimeThatGoesBackIsNamedWithBothTexts() throws {
        let path = try write(log(rows: 500) { $0 == 300 ? "\" 1.50 \"" : String(format: "%.2f", Double($0) / 50) })
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect { try MotionLog.read(path: path) } throws: {
            "\($0)".contains("time does not increase at line 302 (1.50 after 5.98)")
        }
    }
}

/// A lazy JSON array writes as the array of its elements, and `writeLine` writes in pieces what
/// `serialized()` gives whole.
@Suite struct LazyJSONTests {
    @Test func aLazyArrayWritesAsItsElements() {
        let made = JSON.object([("beats", .lazyArray(count: 100_000) { .object([("i", .num(Double($0))), ("s", .string("\"\($0)\""))]) })])
        let held = JSON.object([("beats", .array((0..<100_000).map { .object([("i", .num(Double($0))), ("s", .string("\"\($0)\""))]) }))])
        #expect(made.serialized() == held.serialized())
        #expect(made == held)
        var pieces: [String] = []
        made.writeLine { pieces.append($0) }
        #expect(pieces.count > 1 && pieces.joined() == held.serialized() + "\n")
        let lazy = JSON.lazyArray(count: 3) { .num(Double($0)) }
        #expect(made.elements == nil && lazy.elements == [.num(0), .num(1), .num(2)])
        #expect(JSON.lazyArray(count: 0) { _ in .null }.serialized() == "[]")
    }
}
