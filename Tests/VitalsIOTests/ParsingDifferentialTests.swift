import Foundation
import SignalProcessing
import Testing
@testable import VitalsIO

/// The CSV reader's fast paths against plain ones: its number parser against `strtod` on seeded
/// random fields, and a file read a block at a time against the same text in memory with the block
/// boundary at every offset of the lines around it.
@Suite struct ParsingDifferentialTests {
    /// What `strtod` makes of the whole of `text` (trimmed of the spaces and quotes the reader trims);
    /// nil when it does not read all of it. Empty is NaN, as the reader has it.
    private func reference(_ text: String) -> Double?? {
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " \""))
        if trimmed.isEmpty { return .some(.nan) }
        if trimmed.contains(where: { $0 == "x" || $0 == "X" }) { return .some(nil) }
        return trimmed.withCString { p in
            var end: UnsafeMutablePointer<CChar>?
            let v = strtod(p, &end)
            return end == UnsafeMutablePointer(mutating: p) + strlen(p) ? .some(v) : .some(nil)
        }
    }

    private func randomField(_ rng: inout SplitMix64) -> String {
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) }) }
        var s = ["", "", "-", "+"].randomElement(using: &rng)!
        // Leading zeros, then up to 20 integer digits: either side of the 15 digits the fast path keeps.
        if Int.random(in: 0..<4, using: &rng) == 0 { s += String(repeating: "0", count: Int.random(in: 1...20, using: &rng)) }
        s += digits(Int.random(in: 0...20, using: &rng))
        if Bool.random(using: &rng) {
            s += "."
            if Int.random(in: 0..<3, using: &rng) == 0 { s += String(repeating: "0", count: Int.random(in: 1...25, using: &rng)) }
            s += digits(Int.random(in: 0...20, using: &rng))
            if Int.random(in: 0..<3, using: &rng) == 0 { s += String(repeating: "0", count: Int.random(in: 1...25, using: &rng)) }
        }
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: s += "e\(Int.random(in: -320...320, using: &rng))"
        case 1: s += ["inf", "nan", "x", " 1", "-", ".", "e"].randomElement(using: &rng)!
        case 2: s = " " + s + "  "
        case 3: s = "\"" + s + "\""
        default: break
        }
        return s
    }

    @Test("the number parser gives strtod's double, bit for bit, or refuses what strtod refuses")
    func parseDoubleMatchesStrtod() {
        var rng = SplitMix64(seed: 3)
        var fields = ["0", "-0", "+0", ".", "-.", "+", "", " ", "1.", ".5", "-.5", "000", "0.000",
                      "123456789012345", "1234567890123456", "9007199254740993", "0.1234567890123456789",
                      "1000000000000.0333", "1e22", "1e23", "4.9e-324", "1.7976931348623157e308", "99999999999999999999",
                      "0.0000000000000000000001", "0.00000000000000000000001", "12345678901234.50000000000"]
        for _ in 0..<20_000 { fields.append(randomField(&rng)) }
        for field in fields {
            let bytes = Array(field.utf8)
            let got = bytes.withUnsafeBufferPointer { CSVFile.parseDouble($0, 0..<$0.count) }
            let want = reference(field)!
            switch (got, want) {
            case let (g?, w?):
                #expect(g.bitPattern == w.bitPattern || (g.isNaN && w.isNaN), "'\(field)': \(g) vs strtod \(w)")
            case (nil, nil):
                break
            default:
                Issue.record("'\(field)': \(String(describing: got)) vs strtod \(String(describing: want))")
            }
        }
    }

    /// The rows from file line `from` on as text, and how many came before.
    private func rows(_ csv: CSVFile, from: Int) throws -> (before: Int, rows: [String]) {
        var out: [String] = []
        var before = 0
        try csv.forEachRow { line, fields, buf in
            guard line >= from else { before += 1; return }
            out.append("\(line):" + fields.map { String(decoding: UnsafeBufferPointer(rebasing: buf[$0]), as: UTF8.self) }.joined(separator: "|"))
        }
        return (before, out)
    }

    @Test("a file read a block at a time gives the rows of the text in memory, the block boundary at every offset of the lines around it")
    func blockBoundaryAtEveryOffset() throws {
        let block = CSVFile.blockSize
        // Rows of a fixed shape, and near the boundary the line ends that straddle it: CRLF (whose
        // LF is the LF-only file's), CR CR LF, a blank line, a quoted field with a separator inside,
        // and a file of CR-only lines. (Each offset costs a pass over a block: the tail is short.)
        for lineEnd in ["\r\n", "\r"] {
            let header = "time_s,a,b" + lineEnd
            let row = "12.345,-0.5,\"1,5\"" + lineEnd  // 18-19 bytes
            let filler = (block - header.utf8.count) / row.utf8.count - 4
            let body = String(repeating: row, count: filler)
            let special = ["7,1,2" + lineEnd, lineEnd, "8,,3\r" + lineEnd, "9,\"x,y\",4"]
            let tail = special.joined()
            let path = NSTemporaryDirectory() + "vitals-blocks-\(UUID().uuidString).csv"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let head = Array(header.utf8), rest = Array((body + tail).utf8)
            let first = filler - 2  // rows compared from this file line: the last four body rows and the tail's
            let expected = try rows(try CSVFile(bytes: head + rest, source: path), from: first)
            #expect(expected.before == filler - 4 && expected.rows.count == 7)
            // Shift everything after the header by `pad` bytes (spaces before the first value, which
            // the reader trims and the rows compared do not hold), so that the first block ends at the
            // file's end, then at every byte before it back through the lines after the body.
            let exact = block - head.count - rest.count
            #expect(exact > 0)
            for pad in exact...(exact + tail.utf8.count + 1) {
                let bytes = head + [UInt8](repeating: 0x20, count: pad) + rest
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let disk = try CSVFile(path: path)
                #expect(disk.header == ["time_s", "a", "b"])
                let got = try rows(disk, from: first)
                #expect(got.before == expected.before && got.rows == expected.rows, "\(lineEnd.debugDescription), pad \(pad)")
                if got.before != expected.before || got.rows != expected.rows { return }
            }
        }
    }

    @Test("date-time text gives the seconds Foundation's Gregorian calendar gives, with fractions and offsets")
    func dateTextMatchesFoundation() {
        var rng = SplitMix64(seed: 5)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        for _ in 0..<3_000 {
            let (y, mo, d) = (Int.random(in: 1600...2400, using: &rng), Int.random(in: 1...12, using: &rng), Int.random(in: 1...28, using: &rng))
            let (h, mi, s) = (Int.random(in: 0...23, using: &rng), Int.random(in: 0...59, using: &rng), Int.random(in: 0...59, using: &rng))
            let ms = Int.random(in: 0...999, using: &rng)
            let offset = [0, 0, 3600, -5 * 3600 - 1800, 14 * 3600].randomElement(using: &rng)!
            var text = String(format: "%04d-%02d-%02d%@%02d:%02d:%02d", y, mo, d, Bool.random(using: &rng) ? "T" : " ", h, mi, s)
            text += [".", ":"].randomElement(using: &rng)! + String(format: "%03d", ms)
            if offset != 0 {
                text += String(format: "%@%02d:%02d", offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) % 3600 / 60)
            } else if Bool.random(using: &rng) {
                text += "Z"
            }
            let date = calendar.date(from: DateComponents(year: y, month: mo, day: d, hour: h, minute: mi, second: s))!
            let want = date.timeIntervalSince1970 - Double(offset) + Double(ms) / 1000
            guard let got = DateText.seconds(text) else {
                Issue.record("'\(text)' not read")
                continue
            }
            #expect(abs(got - want) < 1e-5, "'\(text)': \(got) vs \(want)")
        }
    }

    @Test("a motion log's time column takes the numbers a value column takes, and refuses the others (hexadecimal)")
    func motionLogTimesAreReadAsValuesAre() throws {
        // Row 100 of a 50-Hz log is at 2 s: the field says 2 in another notation each time.
        for field in ["2", "2.0", "+2", "2e0", "0.2e1", "2.000000000000000000", "\"2\"", " 2 ", "0x2p0", "0x1p1", "0X2P0", "0x2"] {
            var text = "time,acc_x,acc_y,acc_z\n"
            for i in 0..<200 { text += (i == 100 ? field : String(format: "%.2f", Double(i) / 50)) + ",0.1,0.2,-1\n" }
            let bytes = Array(field.utf8)
            let value = bytes.withUnsafeBufferPointer { CSVFile.parseDouble($0, 0..<$0.count) }
            do {
                let log = try MotionLog.parse(bytes: Array(text.utf8), source: "t.csv")
                #expect(value == 2 && log.time[100] == 2, "'\(field)' read as a time, \(String(describing: value)) as a value")
            } catch let error as InputError {
                #expect(value == nil && error.code == .notANumber, "'\(field)': \(error)")
            }
        }
    }
}
