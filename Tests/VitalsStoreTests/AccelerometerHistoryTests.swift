import Foundation
import MotionAnalysis
import Testing
@testable import VitalsStore

/// A fresh folder under the temporary directory, removed after `body`.
private func withFolder(_ body: (String) throws -> Void) throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitals-history-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try body(path)
}

/// `count` samples at `rate` Hz from `start`, each axis a different function of the index so that
/// a sample read back in the wrong place shows.
private func samples(from start: Double, count: Int, rate: Double = 50, offset: Int = 0) -> [AccelerometerSample] {
    (0..<count).map { i in
        let k = Double(i + offset)
        return AccelerometerSample(time: start + Double(i) / rate, acceleration: Vector3(x: k, y: -k / 3, z: 1 + k / 7))
    }
}

private func segmentFiles(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".vah") }.sorted()
}

@Suite struct AccelerometerHistoryTests {
    @Test func samplesComeBackExactlyAfterReopening() throws {
        try withFolder { folder in
            let written = samples(from: 1_700_000_000, count: 1000)
            do {
                let history = try AccelerometerHistory(folder: folder)
                try history.append(written.prefix(400))
                try history.append(written.dropFirst(400))
                try history.synchronize()
            }
            let history = try AccelerometerHistory(folder: folder)
            #expect(history.lastTime == written.last!.time)
            #expect(try history.samples(from: -.infinity, through: .infinity) == written)
            let summary = try history.summary()
            #expect(summary.samples == 1000 && summary.segments == 1)
            #expect(summary.firstTime == written[0].time && summary.bytes == 32 + 1000 * 32)
        }
    }

    @Test func aRangeIncludesBothEndsAcrossSegments() throws {
        try withFolder { folder in
            // 10-s segments: 30 s at 50 Hz spans three files.
            let history = try AccelerometerHistory(folder: folder, settings: .init(retention: 3600, segmentDuration: 10))
            let written = samples(from: 100, count: 1500)
            try history.append(written)
            #expect(try segmentFiles(folder).count == 3)
            #expect(try history.samples(from: 105, through: 125) == written.filter { $0.time >= 105 && $0.time <= 125 })
            #expect(try history.samples(from: 109.99, through: 110.01) == [written[500]])
            #expect(try history.samples(from: 200, through: 300).isEmpty)
            #expect(try history.samples(from: 0, through: 99).isEmpty)
            #expect(try history.samples(from: 120, through: 110).isEmpty)
        }
    }

    @Test func readingInBatchesGivesTheSameSamplesInBoundedPieces() throws {
        try withFolder { folder in
            let history = try AccelerometerHistory(folder: folder, settings: .init(retention: 3600, segmentDuration: 7))
            let written = samples(from: 0, count: 2000)
            try history.append(written)
            var pieces: [[AccelerometerSample]] = []
            try history.read(from: 3, through: 33, batchSize: 64) { pieces.append($0) }
            #expect(pieces.allSatisfy { $0.count <= 64 })
            #expect(pieces.flatMap { $0 } == written.filter { $0.time >= 3 && $0.time <= 33 })
        }
    }

    @Test func aTornLastSampleIsCutAndRecordingGoesOn() throws {
        try withFolder { folder in
            let written = samples(from: 50, count: 100)
            do {
                let history = try AccelerometerHistory(folder: folder)
                try history.append(written)
            }
            // A crash in the middle of writing the 101st sample: 13 of its 32 bytes reached the file.
            let file = URL(fileURLWithPath: folder).appendingPathComponent(try segmentFiles(folder)[0])
            let handle = try FileHandle(forWritingTo: file)
            try handle.seekToEnd()
            try handle.write(contentsOf: [UInt8](repeating: 0x7f, count: 13))
            try handle.close()

            let history = try AccelerometerHistory(folder: folder)
            #expect(history.recoveredBytes == 13)
            #expect(history.lastTime == written.last!.time)
            let more = samples(from: 52, count: 10, offset: 100)
            try history.append(more)
            #expect(try history.samples(from: 0, through: 100) == written + more)
        }
    }

    @Test func aSegmentCutOffWhileItsHeaderWasWrittenIsRemovedBeforeTheNextAppend() throws {
        try withFolder { folder in
            do {
                let history = try AccelerometerHistory(folder: folder, settings: .init(retention: 3600, segmentDuration: 10))
                try history.append(samples(from: 0, count: 100))
            }
            let torn = URL(fileURLWithPath: folder).appendingPathComponent("accelerometer-20000.vah")
            _ = FileManager.default.createFile(atPath: torn.path, contents: Data(AccelerometerHistory.header().prefix(11)))
            let reopened = try AccelerometerHistory(folder: folder, settings: .init(retention: 3600, segmentDuration: 10))
            #expect(reopened.recoveredBytes == 11)
            #expect(try reopened.summary().samples == 100 && reopened.summary().segments == 1)
            // The next segment takes the torn one's name.
            let more = samples(from: 20, count: 10, offset: 100)
            try reopened.append(more)
            #expect(try segmentFiles(folder) == ["accelerometer-0.vah", "accelerometer-20000.vah"])
            #expect(try AccelerometerHistory(folder: folder).samples(from: 0, through: 100) == samples(from: 0, count: 100) + more)
        }
    }

    /// Opening a history to read it changes no file: another program may be appending, and what looks
    /// torn (a segment file just made, its samples not yet written) is its work in progress. Cutting
    /// it there lost a whole segment that `history add` had reported as added.
    @Test func openingToReadChangesNoFile() throws {
        try withFolder { folder in
            let writer = try AccelerometerHistory(folder: folder, settings: .init(retention: 3600, segmentDuration: 10))
            try writer.append(samples(from: 0, count: 100))
            let url = URL(fileURLWithPath: folder)
            let first = url.appendingPathComponent("accelerometer-0.vah")
            let handle = try FileHandle(forWritingTo: first)
            try handle.seekToEnd()
            try handle.write(contentsOf: [UInt8](repeating: 0x7f, count: 13))
            try handle.close()
            _ = FileManager.default.createFile(atPath: url.appendingPathComponent("accelerometer-20000.vah").path,
                                               contents: Data(AccelerometerHistory.header()))
            func contents() throws -> [String: Data] {
                Dictionary(uniqueKeysWithValues: try segmentFiles(folder).map { ($0, try Data(contentsOf: url.appendingPathComponent($0))) })
            }
            let before = try contents()
            let reader = try AccelerometerHistory(folder: folder)
            #expect(reader.recoveredBytes == 13 + 32)
            #expect(try reader.samples(from: 0, through: 100) == samples(from: 0, count: 100))
            #expect(try reader.summary().samples == 100)
            #expect(try contents() == before)
        }
    }

    @Test func aBatchWithABadSampleIsRefusedWhole() throws {
        try withFolder { folder in
            let history = try AccelerometerHistory(folder: folder)
            try history.append(samples(from: 10, count: 5))
            var late = samples(from: 11, count: 5)
            late[3].time = 10.05  // before the last one recorded (10.08)
            let lateError = #expect(throws: HistoryError.self) { try history.append(late) }
            #expect(lateError?.code == .timeNotIncreasing)
            var repeated = samples(from: 11, count: 5)
            repeated[2].time = repeated[1].time
            let repeatedError = #expect(throws: HistoryError.self) { try history.append(repeated) }
            #expect(repeatedError?.code == .timeNotIncreasing)
            var notANumber = samples(from: 11, count: 5)
            notANumber[4].acceleration.y = .nan
            let notANumberError = #expect(throws: HistoryError.self) { try history.append(notANumber) }
            #expect(notANumberError?.code == .invalidSample)
            for time in [Double.infinity, 1e300] {
                let far = [AccelerometerSample(time: time, acceleration: Vector3(x: 0, y: 0, z: 1))]
                let farError = #expect(throws: HistoryError.self) { try history.append(far) }
                #expect(farError?.code == .invalidSample)
            }
            #expect(try history.summary().samples == 5)
            #expect(history.lastTime == 10.08)
        }
    }

    @Test func aSecondWriterIsRefusedWhileTheFirstAppends() throws {
        try withFolder { folder in
            let first = try AccelerometerHistory(folder: folder)
            let second = try AccelerometerHistory(folder: folder)
            try first.append(samples(from: 100, count: 50))
            let error = #expect(throws: HistoryError.self) { try second.append(samples(from: 200, count: 10)) }
            #expect(error?.code == .inUse)
            let newer = #expect(throws: HistoryError.self) { try second.appendNewer(samples(from: 300, count: 10)) }
            #expect(newer?.code == .inUse)
            try first.append(samples(from: 101, count: 10))
            #expect(try AccelerometerHistory(folder: folder).summary().samples == 60)
        }
    }

    @Test func aWriterCountsWhatAnotherAppendedAfterItOpened() throws {
        try withFolder { folder in
            let late = try AccelerometerHistory(folder: folder)  // opened while the folder is empty
            do {
                let early = try AccelerometerHistory(folder: folder)
                try early.append(samples(from: 100, count: 50))
            }  // released, and its lock with it
            let error = #expect(throws: HistoryError.self) { try late.append(samples(from: 100.5, count: 10)) }
            #expect(error?.code == .timeNotIncreasing)
            #expect(late.lastTime == 100.98)
            try late.append(samples(from: 200, count: 10))
            let all = try AccelerometerHistory(folder: folder).samples(from: 0, through: 1000)
            #expect(all.count == 60)
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.time < $1.time })
        }
    }

    @Test func readingAnOverlappingWindowAgainAddsOnlyWhatIsNew() throws {
        try withFolder { folder in
            let history = try AccelerometerHistory(folder: folder)
            let all = samples(from: 0, count: 300)
            #expect(try history.appendNewer(all.prefix(200)) == 200)
            #expect(try history.appendNewer(all[100..<300]) == 100)
            #expect(try history.appendNewer(all[150..<300]) == 0)
            #expect(try history.samples(from: 0, through: 10) == all)
        }
    }

    @Test func oldSegmentsAreDroppedOnceTheWholeSegmentIsOutsideTheRetention() throws {
        try withFolder { folder in
            let history = try AccelerometerHistory(folder: folder, settings: .init(retention: 25, segmentDuration: 10))
            try history.append(samples(from: 0, count: 50 * 36))  // 0 ... 35.98 s: segments at 0, 10, 20, 30
            // The cutoff is 10.98 s: the segment at 0 ends at 10 and goes; the one at 10 still holds 10.98-20.
            #expect(try segmentFiles(folder) == ["accelerometer-10000.vah", "accelerometer-20000.vah", "accelerometer-30000.vah"])
            #expect(try history.summary().firstTime == 10)
            try history.append(samples(from: 36, count: 50 * 10))  // to 45.98 s: cutoff 20.98
            #expect(try segmentFiles(folder) == ["accelerometer-20000.vah", "accelerometer-30000.vah", "accelerometer-40000.vah"])
        }
    }

    /// After a gap in recording (a watch off for days) the segment before the gap goes once its own
    /// last sample is past the retention, although the next segment starts inside it.
    @Test func aSegmentBeforeAGapIsDroppedByItsLastSample() throws {
        try withFolder { folder in
            let history = try AccelerometerHistory(folder: folder, settings: .init(retention: 25, segmentDuration: 10))
            try history.append(samples(from: 0, count: 100))  // 0 ... 1.98 s
            try history.append(samples(from: 20, count: 100))  // 20 ... 21.98 s: cutoff -3.02, both kept
            #expect(try segmentFiles(folder) == ["accelerometer-0.vah", "accelerometer-20000.vah"])
            try history.append(samples(from: 1000, count: 100))  // cutoff 976.98: the two before the gap go
            #expect(try segmentFiles(folder) == ["accelerometer-1000000.vah"])
            #expect(try history.summary().firstTime == 1000)
            try history.append(samples(from: 1020, count: 100))  // cutoff 996.98: 1000 ... 1001.98 stays
            #expect(try segmentFiles(folder) == ["accelerometer-1000000.vah", "accelerometer-1020000.vah"])
        }
    }

    @Test func anotherProgramsFileIsNamedNotOverwritten() throws {
        try withFolder { folder in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = folder + "/accelerometer-5.vah"
            _ = FileManager.default.createFile(atPath: path, contents: Data("hello, this is not a history".utf8))
            do {
                _ = try AccelerometerHistory(folder: folder)
                Issue.record("opened a folder with a foreign segment")
            } catch let error as HistoryError {
                #expect(error.code == .foreignFile)
                #expect(error.message.contains("accelerometer-5.vah"))
            }
            #expect(FileManager.default.contents(atPath: path) == Data("hello, this is not a history".utf8))
        }
    }

    /// A copy of a segment under a name that reads as the same time (or any two segments whose times
    /// overlap) is named, not read as more samples with times going back.
    @Test func segmentsWhoseTimesOverlapAreNamed() throws {
        try withFolder { folder in
            try AccelerometerHistory(folder: folder).append(samples(from: 0, count: 100))
            try FileManager.default.copyItem(atPath: folder + "/accelerometer-0.vah", toPath: folder + "/accelerometer-00.vah")
            do {
                _ = try AccelerometerHistory(folder: folder)
                Issue.record("opened a folder with two copies of a segment")
            } catch let error as HistoryError {
                #expect(error.code == .foreignFile && error.message.contains("overlap accelerometer-0"), "\(error.message)")
            }
        }
    }

    @Test func otherFilesInTheFolderAreLeftAlone() throws {
        try withFolder { folder in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: folder + "/notes.txt", contents: Data("mine".utf8))
            let history = try AccelerometerHistory(folder: folder)
            try history.append(samples(from: 0, count: 10))
            #expect(FileManager.default.contents(atPath: folder + "/notes.txt") == Data("mine".utf8))
        }
    }

    @Test func aFileWhereTheFolderShouldBeIsAnError() throws {
        try withFolder { folder in
            _ = FileManager.default.createFile(atPath: folder, contents: Data("x".utf8))
            do {
                _ = try AccelerometerHistory(folder: folder)
                Issue.record("opened a file as a history folder")
            } catch let error as HistoryError {
                #expect(error.code == .folder)
            }
        }
    }

    @Test func settingsOutOfRangeAreRefused() throws {
        try withFolder { folder in
            for settings in [AccelerometerHistory.Settings(retention: 0), .init(segmentDuration: 0.5), .init(retention: .infinity)] {
                #expect(throws: HistoryError.self) { _ = try AccelerometerHistory(folder: folder, settings: settings) }
            }
        }
    }
}
