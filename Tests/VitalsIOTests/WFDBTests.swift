import Foundation
import SignalProcessing
import Testing
@testable import VitalsIO

/// Records written by wfdb-python 4.3.1 (`wfdb.wrsamp`, an independent implementation), kept here as
/// header text and data bytes: two signals of seven samples, the formats' extremes and WFDB's "no
/// sample" value (the format's lowest) in each. The stored values below are what `wfdb.rdrecord(...,
/// physical=False)` reads back; physical = (stored − baseline) / gain, baselines 10 and −3, gains 200
/// and 50.5.
private let fixtures: [(format: Int, header: String, data: String, stored: [[Int]])] = [
    (16, "f16 2 125 7\nf16.dat 16 200.0(10)/mV 16 0 0 120 0 II\nf16.dat 16 50.5(-3)/NU 16 0 5 32671 0 PLETH\n",
     "000005000100f9ffff7f018000800300ffff00807b009b7ffeff0200",
     [[0, 1, 32767, -32768, -1, 123, -2], [5, -7, -32767, 3, -32768, 32667, 2]]),
    (80, "f80 2 125 7\nf80.dat 80 200.0(10)/mV 8 0 0 120 0 II\nf80.dat 80 50.5(-3)/NU 8 0 5 65311 0 PLETH\n",
     "80858179ff0100837f00fb9b7e82",
     [[0, 1, 127, -128, -1, 123, -2], [5, -7, -127, 3, -128, 27, 2]]),
    (212, "f212 2 125 7\nf212.dat 212 200.0(10)/mV 12 0 0 120 0 II\nf212.dat 212 50.5(-3)/NU 12 0 5 63391 0 PLETH\n",
     "00000501f0f9ff8701000803ff8f007b709bfe0f02",
     [[0, 1, 2047, -2048, -1, 123, -2], [5, -7, -2047, 3, -2048, 1947, 2]]),
    (24, "f24 2 125 7\nf24.dat 24 200.0(10)/mV 24 0 0 120 0 II\nf24.dat 24 50.5(-3)/NU 24 0 5 65439 0 PLETH\n",
     "000000050000010000f9ffffffff7f010080000080030000ffffff0000807b00009bff7ffeffff020000",
     [[0, 1, 8_388_607, -8_388_608, -1, 123, -2], [5, -7, -8_388_607, 3, -8_388_608, 8_388_507, 2]]),
    (32, "f32 2 125 7\nf32.dat 32 200.0(10)/mV 32 0 0 120 0 II\nf32.dat 32 50.5(-3)/NU 32 0 5 65439 0 PLETH\n",
     "000000000500000001000000f9ffffffffffff7f010000800000008003000000ffffffff000000807b0000009bffff7ffeffffff02000000",
     [[0, 1, 2_147_483_647, -2_147_483_648, -1, 123, -2], [5, -7, -2_147_483_647, 3, -2_147_483_648, 2_147_483_547, 2]]),
]

private func bytes(_ hex: String) -> Data {
    var out = Data()
    var i = hex.startIndex
    while i < hex.endIndex {
        let j = hex.index(i, offsetBy: 2)
        out.append(UInt8(hex[i..<j], radix: 16)!)
        i = j
    }
    return out
}

/// Writes `files` (name: contents) into a fresh folder and returns its path.
private func folder(_ files: [String: Data]) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-wfdb-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    for (name, data) in files { try data.write(to: URL(fileURLWithPath: dir + "/" + name)) }
    return dir
}

/// Physical values as WFDB defines them, not-a-number for the format's "no sample" value.
private func physical(_ stored: [Int], baseline: Int, gain: Double, invalid: Int) -> [Double] {
    stored.map { $0 == invalid ? .nan : Double($0 - baseline) / gain }
}

private func same(_ a: [Double], _ b: [Double]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) }
}

@Suite struct WFDBTests {
    @Test(arguments: fixtures.indices)
    func everyFormatReadsAsWfdbPythonWroteIt(_ k: Int) throws {
        let f = fixtures[k]
        let dir = try folder(["f\(f.format).hea": Data(f.header.utf8), "f\(f.format).dat": bytes(f.data)])
        let record = try WFDBRecord(headerPath: dir + "/f\(f.format).hea")
        #expect(record.sampleRate == 125 && record.sampleCount == 7 && record.signals.count == 2)
        #expect(record.signals.map(\.description) == ["II", "PLETH"] && record.signals.map(\.units) == ["mV", "NU"])
        let bits = [16: 16, 80: 8, 212: 12, 24: 24, 32: 32][f.format]!
        let invalid = -(1 << (bits - 1))
        #expect(same(try record.values(of: 0), physical(f.stored[0], baseline: 10, gain: 200, invalid: invalid)))
        #expect(same(try record.values(of: 1), physical(f.stored[1], baseline: -3, gain: 50.5, invalid: invalid)))
    }

    /// Format 61 is format 16 with each sample's bytes swapped (wfdb-python does not write it).
    @Test func format61IsBigEndianSixteenBit() throws {
        let f = fixtures[0]
        var data = [UInt8](bytes(f.data))
        for i in stride(from: 0, to: data.count, by: 2) { data.swapAt(i, i + 1) }
        let header = f.header.replacingOccurrences(of: " 16 ", with: " 61 ")
        let dir = try folder(["f16.hea": Data(header.utf8), "f16.dat": Data(data)])
        let record = try WFDBRecord(headerPath: dir + "/f16.hea")
        #expect(same(try record.values(of: 1), physical(f.stored[1], baseline: -3, gain: 50.5, invalid: -32768)))
    }

    /// wfdb-python's format 212 with an odd number of samples: the last one in two bytes.
    @Test func anOddLastSampleOfFormat212IsRead() throws {
        let dir = try folder(["odd.hea": Data("odd 1 250 3\nodd.dat 212 100.0(0)/NU 12 0 100 1947 0 PLETH\n".utf8),
                              "odd.dat": bytes("64f038ff07")])
        #expect(try WFDBRecord(headerPath: dir + "/odd.hea").values(of: 0) == [1, -2, 20.47])
    }

    @Test func aByteOffsetDefaultGainAndTheZeroAsBaselineAreApplied() throws {
        // Four bytes of preamble; no gain (WFDB's default, 200); ADC zero 1000 and no baseline: the baseline is 1000.
        let dir = try folder(["r.hea": Data("r 1 100\nr.dat 16+4 0 12 1000 0 0 0 pulse\n".utf8),
                              "r.dat": bytes("deadbeef" + "e803" + "4006" + "9001")])
        let record = try WFDBRecord(headerPath: dir + "/r.hea")
        #expect(record.sampleCount == nil && record.signals[0].description == "pulse")
        #expect(try record.values(of: 0) == [0, 3, -3])
    }

    /// A header may give any integer as baseline or ADC zero: the values are computed, not trapped on.
    @Test func aBaselineAtTheEndsOfIntIsNoOverflow() throws {
        let lowest = Int.min, highest = Int.max
        let dir = try folder(["r.hea": Data("r 2 100 2\nr.dat 16 1(\(lowest)) 16 0 0 0 0 low\nr.dat 16 1 16 \(highest) 0 0 0 high\n".utf8),
                              "r.dat": bytes("0500" + "fbff" + "ffff" + "0100")])  // (5, -5), (-1, 1)
        let record = try WFDBRecord(headerPath: dir + "/r.hea")
        #expect(record.signals.map(\.baseline) == [lowest, highest])
        #expect(try record.values(of: 0) == [5 - Double(lowest), -1 - Double(lowest)])
        #expect(try record.values(of: 1) == [-5 - Double(highest), 1 - Double(highest)])
    }

    /// Tabs separate fields as spaces do (wfdb-python reads this header as the same record); the
    /// description keeps its inner spaces.
    @Test func tabsSeparateFields() throws {
        let f = fixtures[0]
        let header = "f16\t2 125\t7\nf16.dat\t16 200.0(10)/mV\t16 0 0 120 0 II\nf16.dat 16\t50.5(-3)/NU 16 0 5 32671\t0\tPLETH 2 wave\n"
        let dir = try folder(["f16.hea": Data(header.utf8), "f16.dat": bytes(f.data)])
        let record = try WFDBRecord(headerPath: dir + "/f16.hea")
        #expect(record.sampleRate == 125 && record.sampleCount == 7 && record.signals.map(\.description) == ["II", "PLETH 2 wave"])
        #expect(same(try record.values(of: 1), physical(f.stored[1], baseline: -3, gain: 50.5, invalid: -32768)))
    }

    @Test func aSignalIsChosenByDescriptionOrPlethByDefault() throws {
        let f = fixtures[0]
        let dir = try folder(["f16.hea": Data(f.header.utf8), "f16.dat": bytes(f.data)])
        let record = try WFDBRecord(headerPath: dir + "/f16.hea")
        #expect(try record.signalIndex(named: nil) == 1)
        #expect(try record.signalIndex(named: "ii") == 0)
        let error = #expect(throws: InputError.self) { try record.signalIndex(named: "ABP") }
        #expect(error?.code == .missingColumn && error?.message.contains("0: II, 1: PLETH") == true)
    }

    /// BIDMC's descriptions end with a comma ("PLETH,"); "16x1" is one sample per frame.
    @Test func aTrailingCommaAndOneSamplePerFrameAreRead() throws {
        let f = fixtures[0]
        let header = f.header.replacingOccurrences(of: " II", with: " II,").replacingOccurrences(of: " PLETH", with: " PLETH,")
            .replacingOccurrences(of: " 16 ", with: " 16x1 ")
        let dir = try folder(["f16.hea": Data(header.utf8), "f16.dat": bytes(f.data)])
        let record = try WFDBRecord(headerPath: dir + "/f16.hea")
        #expect(try record.signalIndex(named: nil) == 1 && record.signalIndex(named: "ii") == 0)
        #expect(same(try record.values(of: 1), physical(f.stored[1], baseline: -3, gain: 50.5, invalid: -32768)))
    }

    @Test func whatIsNotReadIsSaidPlainly() throws {
        let cases: [(header: String, code: InputError.Code, says: String)] = [
            ("m/2 1 250\n", .unsupportedFormat, "multi-segment"),
            ("r 1 250 10\nr.dat 310 200 12 0 0 0 0 x\n", .unsupportedFormat, "formats read: 16, 61, 80, 212, 24, 32"),
            ("r 1 250 10\nr.dat 16x2 200 12 0 0 0 0 x\n", .unsupportedFormat, "several samples per frame"),
            ("r 2 250 10\nr.dat 16 200 12 0 0 0 0 x\n", .corrupt, "says 2 signals"),
            ("r two 250\n", .corrupt, "not a number of signals"),
            ("r 1 fast\nr.dat 16\n", .corrupt, "not a sampling frequency"),
            ("r 1 250 10\nr.dat 16 lots 12 0 0 0 0 x\n", .corrupt, "not a gain"),
            ("r 1 250 10\n../elsewhere.dat 16 200 12 0 0 0 0 x\n", .unsupportedFormat, "keep the data file beside the header"),
            ("", .empty, "no record line"),
            ("r 2 250 10\na.dat 16 200 12 0 0 0 0 x\na.dat 212 200 12 0 0 0 0 y\n", .unsupportedFormat, "mix formats"),
            // Interleaved by line order: a file's signals apart would be read from the wrong places.
            ("r 3 250 10\na.dat 16 200 12 0 0 0 0 x\nb.dat 16 200 12 0 0 0 0 y\na.dat 16 200 12 0 0 0 0 z\n", .corrupt,
             "a.dat holds the header's signals 1, 3, not listed together"),
        ]
        for c in cases {
            let dir = try folder(["r.hea": Data(c.header.utf8)])
            do {
                _ = try WFDBRecord(headerPath: dir + "/r.hea")
                Issue.record("read '\(c.header)'")
            } catch let error as InputError {
                #expect(error.code == c.code && error.message.contains(c.says), "\(c.header): \(error.message)")
            }
        }
    }

    @Test func aDataFileShorterThanTheHeaderSaysIsAnError() throws {
        let f = fixtures[0]
        let dir = try folder(["f16.hea": Data(f.header.utf8), "f16.dat": bytes(String(f.data.dropLast(8)))])
        let record = try WFDBRecord(headerPath: dir + "/f16.hea")
        #expect(throws: InputError.self) { try record.values(of: 0) }
        let missing = try folder(["f16.hea": Data(f.header.utf8)])
        let error = #expect(throws: InputError.self) { try WFDBRecord(headerPath: missing + "/f16.hea").values(of: 0) }
        #expect(error?.code == .fileNotFound)
    }

    /// A value the analysis cannot take (a header's gain of 1e-320 makes them infinite, 1e-300 past
    /// ±1e100) is an error naming the sample, as in a CSV, not a run that reports nothing.
    @Test func valuesTheAnalysisCannotTakeAreRefused() throws {
        for (bad, says) in [(Double.infinity, "sample 3 of PLETH has an infinite value"), (-2e300, "sample 3 of PLETH has the value -2e+300, beyond ±1e+100")] {
            var values = (0..<1000).map { sin(2 * Double.pi * 1.2 * Double($0) / 100) }
            values[2] = bad
            do {
                _ = try PulseRecording.signal(values, rate: 100, source: "r.hea", column: "PLETH")
                Issue.record("took \(bad)")
            } catch let error as InputError {
                #expect(error.code == .nonFinite && error.message.contains(says), "\(error.message)")
            }
        }
    }

    /// A run of "no sample" values longer than a second is a gap; the samples either side are kept.
    @Test func missingSamplesBecomeAGapInTheRecording() throws {
        var values = (0..<1000).map { sin(2 * Double.pi * 1.2 * Double($0) / 100) }
        for i in 400..<600 { values[i] = .nan }
        let recording = try PulseRecording.signal(values, rate: 100, source: "r.hea", column: "PLETH")
        #expect(recording.inputs.count == 800 && recording.gaps.count == 1)
        #expect(abs(recording.gaps[0].from - 3.99) < 1e-9 && abs(recording.gaps[0].to - 6) < 1e-9)
    }
}

/// Annotation files written by wfdb-python 4.3.1 (`wfdb.wrann`), with what `wfdb.rdann` reads back.
@Suite struct WFDBAnnotationTests {
    /// Six annotations with a SKIP over 1023 samples (1500, then 67 900), a rhythm change with its
    /// text, a number, subtype and channel that change and change back, and wfdb-python's time
    /// resolution note (250 Hz), which is not an annotation.
    static let full = "005817fc23232074696d65207265736f6c7574696f6e3a203235300000ecffffffff01000a04ea1500ec0000dc05007005fc284146494200640403f002f401f800ec01003c09000400f000f801380000"
    /// Three beats, no frequency written.
    static let beats = "640400ec0000b004002001140000"

    private static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { k in
            let i = hex.index(hex.startIndex, offsetBy: k)
            return UInt8(hex[i..<hex.index(i, offsetBy: 2)], radix: 16)!
        }
    }

    @Test func readsWhatWfdbPythonReads() throws {
        let file = try WFDBAnnotations(bytes: Self.bytes(Self.full), source: "t.atr")
        #expect(file.frequency == 250)
        let a = file.annotations
        #expect(a.map(\.sample) == [10, 500, 2000, 2100, 70000, 70001])
        #expect(a.map(\.symbol) == ["N", "V", "+", "N", "N", "~"])
        #expect(a.map(\.subtype) == [0, 0, 0, 2, 0, 0])
        #expect(a.map(\.channel) == [0, 0, 0, 1, 0, 0])
        #expect(a.map(\.number) == [0, 0, 0, 3, 0, 0])
        #expect(a.map(\.aux) == [nil, nil, "(AFIB", nil, nil, nil])
        #expect(a.map(\.isBeat) == [true, true, false, true, true, false])

        let plain = try WFDBAnnotations(bytes: Self.bytes(Self.beats), source: "u.qrs")
        #expect(plain.frequency == nil)
        #expect(plain.annotations.map(\.sample) == [100, 1300, 1301] && plain.annotations.map(\.symbol) == ["N", "A", "V"])
    }

    @Test func aTruncatedOrEmptyFileIsNamed() throws {
        let whole = Self.bytes(Self.full)
        for (cut, code) in [(Array(whole.prefix(31)), InputError.Code.corrupt),   // inside a SKIP's interval
                            (Array(whole.prefix(10)), .corrupt),                  // inside the note's text
                            ([], .empty)] {
            let error = #expect(throws: InputError.self) { try WFDBAnnotations(bytes: cut, source: "t.atr") }
            #expect(error?.code == code && error?.message.hasPrefix("t.atr: ") == true, "\(String(describing: error))")
        }
        // Without the closing 0 word the annotations read so far stand (the last word is whole).
        #expect(try WFDBAnnotations(bytes: Array(whole.dropLast(2)), source: "t.atr").annotations.count == 6)
    }

    /// Any bytes are read or refused with an InputError: never a trap (a skip's 32-bit interval, an
    /// aux length past the end, codes past the mnemonic table).
    @Test func arbitraryBytesAreReadOrRefusedNeverATrap() {
        var rng = SplitMix64(seed: 11)
        var read = 0, refused = 0
        for _ in 0..<2000 {
            let count = Int.random(in: 1...64, using: &rng)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            do {
                let file = try WFDBAnnotations(bytes: bytes, source: "x.atr")
                _ = file.annotations.map { ($0.symbol, $0.isBeat) }
                read += 1
            } catch is InputError {
                refused += 1
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(read > 0 && refused > 0 && read + refused == 2000)
    }
}
