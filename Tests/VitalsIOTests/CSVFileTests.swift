import Foundation
import Testing
@testable import VitalsIO

@Suite struct CSVFileTests {
    private func csv(_ text: String) throws -> CSVFile { try CSVFile(bytes: Array(text.utf8), source: "t.csv") }

    /// A first line with more than ``CSVFile/maximumColumns`` fields is not a header: a 50-MB line of
    /// numbers took 20 s and 0.9 GB to split into column names before the command said there was no
    /// time column.
    @Test func aFirstLineWithTooManyFieldsForAHeaderIsRefusedAtOnce() throws {
        let line = String(repeating: "0.123456,", count: CSVFile.maximumColumns + 10)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-long-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try (line + "\n1,2\n").write(toFile: path, atomically: true, encoding: .utf8)
        for read in [{ try CSVFile(path: path) }, { try CSVFile(bytes: Array(line.utf8), source: path) }] {
            let error = #expect(throws: InputError.self) { _ = try read() }
            #expect(error?.code == .unsupportedFormat && error?.message.contains("line 1 has 65547 fields") == true, "\(String(describing: error))")
        }
        let widest = String(repeating: "c,", count: CSVFile.maximumColumns - 1) + "d\n"
        #expect(try CSVFile(bytes: Array(widest.utf8)).header.count == CSVFile.maximumColumns)
    }

    @Test func readsNumericColumnsWithEmptyFieldsAsNaN() throws {
        let f = try csv("time_s,r,g\n0,1.5,2\n0.5,,-3e2\r\n1.25, 7 ,4\n")
        #expect(f.header == ["time_s", "r", "g"])
        let cols = try f.numericColumns([0, 1, 2])
        #expect(cols[0] == [0, 0.5, 1.25])
        #expect(cols[1][0] == 1.5 && cols[1][1].isNaN && cols[1][2] == 7)
        #expect(cols[2] == [2, -300, 4])
    }

    @Test func fastPathMatchesStrtodForDecimals() throws {
        let values = ["0.1", "-123.456789", "0.000123", "98765.4321", "1", "42.0000000001"]
        let f = try csv("v\n" + values.joined(separator: "\n"))
        let parsed = try f.numericColumns([0])[0]
        #expect(parsed == values.map { Double($0)! })
    }

    @Test func aSignOrAPointWithoutDigitsOrHexadecimalIsNotANumber() throws {
        for field in [".", "-.", "+", "+.", "-", "0x10", "0X1F", "-0x1p3"] {
            let f = try csv("a\n1\n\(field)\n")
            #expect(throws: InputError(.notANumber, "t.csv: line 3, column 'a': '\(field)' is not a number")) {
                try f.numericColumns([0])
            }
        }
        #expect(try csv("a\n0.\n.5\n-0\n").numericColumns([0])[0] == [0, 0.5, 0])
    }

    @Test func namesTheBadFieldAndItsLine() throws {
        let f = try csv("a,b\n1,2\n3,x7\n")
        #expect(throws: InputError(.notANumber, "t.csv: line 3, column 'b': 'x7' is not a number")) {
            try f.numericColumns([0, 1])
        }
    }

    /// A separator inside quotes does not split: `"100,4974"` was read as 100 with 4974 an extra,
    /// ignored field (a rate came out of the integer parts alone).
    @Test func aCommaInsideQuotesStaysInItsField() throws {
        let f = try csv("time_s,ppg,note\n0,1.5,\"x, y\"\n0.5,2.5,\"z\"\n")
        #expect(try f.numericColumns([0, 1]) == [[0, 0.5], [1.5, 2.5]])
        let decimalComma = try csv("time_s,ppg\n0,\"100,4974\"\n")
        #expect(throws: InputError(.notANumber,
                                   "t.csv: line 2, column 'ppg': '\"100,4974\"' is not a number (a decimal comma? numbers need a decimal point)")) {
            try decimalComma.numericColumns([0, 1])
        }
    }

    /// A quote inside an unquoted field is an ordinary character: `5" screen` had opened a quoted
    /// field that never closed, so the rest of the row became one field (half a motion log dropped as
    /// "empty or non-finite"). Quoted header names keep their commas; `""` inside quotes is a quote.
    @Test func aQuoteOnlyOpensAFieldAtItsStart() throws {
        let f = try csv("time_s,note,ppg\n0,5\" screen,1.5\n0.5,\"say \"\"hi\"\", ok\",2.5\n")
        #expect(try f.numericColumns([0, 2]) == [[0, 0.5], [1.5, 2.5]])
        #expect(try f.stringColumn(1).first == "5\" screen")
        let quotedHeader = try csv("\"time, s\",ppg\n0,1\n")
        #expect(quotedHeader.header == ["time, s", "ppg"])
        // A header line wrapped whole in quotes is its names.
        #expect(try csv("\"time_s,r,g,b\"\n0,200,40,20\n").header == ["time_s", "r", "g", "b"])
    }

    /// A row with more values than the header has columns does not line up with them.
    @Test func aRowWithMoreValuesThanColumnsIsAnError() throws {
        let f = try csv("time_s,ppg\n0,1.5\n0.5,100,4974\n")
        #expect(throws: InputError.self) { try f.numericColumns([0, 1]) }
        // A trailing separator (an empty last field) is harmless.
        #expect(try csv("time_s,ppg\n0,1.5,\n0.5,2.5, \n").numericColumns([0, 1]) == [[0, 0.5], [1.5, 2.5]])
    }

    /// A directory given as the input file is named as such (it was "cannot be read"), by every
    /// reader of files (CSV, motion logs, step logs).
    @Test func aDirectoryIsNotAFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-dir-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let expected = InputError(.unreadable, "\(dir): is a directory, not a file")
        #expect(throws: expected) { try CSVFile(path: dir) }
        #expect(throws: expected) { try MotionLog.read(path: dir) }
        #expect(throws: expected) { try StepLogs.read(path: dir) }
        #expect(throws: InputError(.fileNotFound, "\(dir)/none.csv: no such file")) { try CSVFile(path: dir + "/none.csv") }
    }

    @Test func missingColumnListsTheHeader() throws {
        let f = try csv("time,red,green\n1,2,3\n")
        #expect(throws: InputError(.missingColumn, "t.csv: column 'ppg' not found in header: time,red,green")) {
            try f.requireColumn("ppg")
        }
    }

    @Test func aFileSeparatedBySemicolonsIsNamedAsSuch() throws {
        let semi = try csv("time;ppg\n1;2\n")
        #expect(throws: InputError(.missingColumn, "t.csv: column 'ppg' not found in header: time;ppg (the file looks separated by ';': Vitals reads values separated by commas or tabs)")) {
            try semi.requireColumn("ppg")
        }
        #expect(try csv("time\tppg\n1\t2\n").header == ["time", "ppg"])
        #expect(try csv("ppg\n1\n").headerDescription == "ppg")
    }

    @Test func rejectsEmptyAndBinaryInput() {
        #expect(throws: InputError.self) { try CSVFile(bytes: [], source: "e") }
        #expect(throws: InputError.self) { try CSVFile(bytes: [0x89, 0x50, 0x4E, 0x47, 0, 0, 1], source: "b") }
    }

    @Test func digitsBeyondTheFifteenthStillRoundToTheNearestDouble() throws {
        // Epoch-like seconds with sub-millisecond digits: dropping the 16th digit moved these by
        // 3 ms, which read a 30 Hz clock as 33 Hz.
        let values = ["1000000000000.033333", "1000000000000.066667", "0.03333333333333333", "1.2345678901234567",
                      "12345678901234567890", "2.50000000000000000000"]
        let f = try csv("v\n" + values.joined(separator: "\n"))
        #expect(try f.numericColumns([0])[0] == values.map { Double($0)! })
    }

    @Test func aNumberWrittenOutInFullIsANumber() throws {
        // 1e308 printed in fixed notation has 309 digits; it must reach the caller's range checks
        // as 1e308 rather than be called "not a number".
        let long = String(format: "%.0f", 1e308)
        #expect(long.count > 300)
        let f = try csv("v\n\(long)\n-\(long).5\n")
        #expect(try f.numericColumns([0])[0] == [1e308, -1e308])
    }

    @Test func linesEndedByCarriageReturnsAloneAreLines() throws {
        let f = try csv("time_s,r\r0,1\r0.5,2\r")
        #expect(f.header == ["time_s", "r"])
        #expect(try f.numericColumns([0, 1]) == [[0, 0.5], [1, 2]])
    }

    @Test func aVeryLongHeaderIsShortenedInMessages() throws {
        let names = (0..<500).map { "c\($0)" }
        let f = try csv(names.joined(separator: ",") + "\n" + names.map { _ in "1" }.joined(separator: ",") + "\n")
        let message = f.headerDescription
        #expect(message.hasPrefix("c0,c1,c2,"))
        #expect(message.hasSuffix(",... (500 columns)"))
        #expect(message.count < 400)
    }

    @Test func utf16TextAndABlankFirstLineAreNamedAsSuch() throws {
        // Before: "not a text CSV file (binary data)" and "no r,g,b colour columns (columns: )".
        let text = "time_s,r\n0,1\n0.5,2\n"
        let units: [UInt16] = Array(text.utf16)
        let littleEndian: [UInt8] = [0xFF, 0xFE] + units.flatMap { (u: UInt16) -> [UInt8] in [UInt8(u & 0xFF), UInt8(u >> 8)] }
        let bigEndianWithoutMark: [UInt8] = units.flatMap { (u: UInt16) -> [UInt8] in [UInt8(u >> 8), UInt8(u & 0xFF)] }
        for bytes in [littleEndian, bigEndianWithoutMark] {
            #expect(throws: InputError(.notText, "t.csv: the file is UTF-16 text; save it as UTF-8 (\"CSV UTF-8\")")) {
                try CSVFile(bytes: bytes, source: "t.csv")
            }
        }
        #expect(throws: InputError(.missingColumn, "t.csv: line 1 is empty; the header (the column names) must be the first line")) {
            try self.csv("\n" + text)
        }
        #expect(throws: InputError(.notText, "b: not a text CSV file (binary data)")) {
            try CSVFile(bytes: [0x89, 0x50, 0x4E, 0x47, 0, 0, 1, 7, 9, 200, 0, 13, 0, 0, 255, 3], source: "b")
        }
        // Without a header, leading blank lines are skipped as before.
        #expect(try CSVFile(bytes: Array("\n1,2\n".utf8), source: "t", hasHeader: false).numericColumns([0]) == [[1]])
    }
}
