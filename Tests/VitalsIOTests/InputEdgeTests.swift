import Foundation
import Testing
@testable import VitalsIO

/// Inputs a review found read wrongly or named the wrong problem.
@Suite struct InputEdgeTests {
    /// A CRLF file converted again ends its lines CR CR LF: the names and the last field are
    /// read without the carriage returns.
    @Test func carriageReturnsBeforeALineFeedAreLineEnd() throws {
        let f = try CSVFile(bytes: Array("time_s,ppg\r\r\n0,1.5\r\r\n0.5,2\r\r\n".utf8), source: "t.csv")
        #expect(f.header == ["time_s", "ppg"])
        #expect(try f.numericColumns([0, 1]) == [[0, 0.5], [1.5, 2]])
    }

    /// An endless device is refused at its first block, not read until memory runs out.
    @Test func anEndlessBinaryDeviceIsRefusedAtOnce() throws {
        #expect { try readInputFile("/dev/zero", text: true) } throws: { error in
            (error as? InputError)?.code == .notText
        }
        #expect { try CSVFile(path: "/dev/zero") } throws: { error in (error as? InputError)?.code == .notText }
    }

    /// A file read whole reads as it is, past one block and to the byte.
    @Test func aFileIsReadWholeToTheByte() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("whole-\(UUID().uuidString).bin").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try readInputFile(path) == bytes)
    }

    /// One column cannot stand for two roles, nor one role be given twice.
    @Test func aColumnMappingNamesEachColumnAndRoleOnce() throws {
        #expect { try MotionLogOptions.parseColumns("accel.x=a,accel.y=A,accel.z=c") } throws: { error in
            "\(error)".contains("column 'A' is given for two roles")
        }
        #expect { try MotionLogOptions.parseColumns("accel.x=a,accel.x=b") } throws: { error in
            "\(error)".contains("role 'accel.x' is given twice")
        }
        #expect(try MotionLogOptions.parseColumns("accel.x=a,accel.y=b,accel.z=c").count == 3)
    }

    /// A truncated Oxford log's cut row is a missing value, not a second sensor type.
    @Test func aCutOxfordRowIsAMissingValue() throws {
        let text = "100,3,0,0,9.8\n200,3,0,0,9.8\n300,3,0,0,9.8\n400"
        #expect { try StepLogs.readOxford(bytes: Array(text.utf8), source: "o.csv") } throws: { error in
            "\(error)".contains("line 4 has an empty or non-finite value")
        }
    }

    /// Seconds in a `time_ms` column are said to be seconds, as milliseconds in `time_s` are.
    @Test func secondsInATimeMillisecondsColumnAreNamed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ms-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rows = (0..<600).map { "\(Double($0) / 30),\(sin(Double($0) / 3))" }
        try (["time_ms,ppg"] + rows).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect { try PulseRecording.load(path: path, column: "ppg") } throws: { error in
            "\(error)".contains("are the times in seconds? time_ms must be milliseconds")
        }
    }
}
