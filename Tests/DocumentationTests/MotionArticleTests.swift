import Foundation
import Testing
import Vitals
import TestSupport

/// The code of MotionAnalysis's `GettingStarted` article (MotionAnalysis.docc), as it writes it, on
/// generated motion with known answers.
@Suite struct MotionArticleTests {
    /// Every code block of the article stands in this file line for line (indentation aside), so the
    /// article cannot drift from the code the tests run.
    @Test func theArticlesCodeIsThisFilesCode() throws {
        let here = URL(fileURLWithPath: #filePath)
        let repository = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = repository.appendingPathComponent("Sources/MotionAnalysis/MotionAnalysis.docc/GettingStarted.md")
        #expect(try codeBlocks(of: article, standIn: here) == 5)
    }

    @Test func rawIMUBecomesDeviceMotion() throws {
        // A device held still, tilted 30° about x: the accelerometer reads gravity alone.
        let down = Vector3(x: 0, y: -0.5, z: -0.866)
        let imuSamples = (0..<500).map { IMUSample(time: Double($0) / 50, acceleration: down, rotationRate: .zero) }
        // As the article writes it:
        var filter = AttitudeFilter()
        var motions: [DeviceMotion] = []
        for sample in imuSamples {          // acceleration in g, rotation rate in rad/s
            motions.append(filter.process(sample))
        }
        let last = try #require(motions.last)
        #expect((last.gravity - down.normalized).magnitude < 0.01)
        #expect(last.userAcceleration.magnitude < 0.01)
    }

    @Test func swingsAndTheirSpeed() {
        let motions = Generate.swings([(2, -9, 0.5), (5, 9, 0.5)], rate: 50, seconds: 8)
        // As the article writes it:
        var swings = SwingWatchDetector(wrist: .right)
        var found: [(kind: SwingKind, speed: Double)] = []
        for m in motions {
            if let swing = swings.process(m) {
                let speed = SwingSpeed.headSpeed(rotationRate: swing.peakRate, leverLength: 1.2)   // m/s
                found.append((swing.kind, speed))
            }
        }
        #expect(found.map(\.kind) == [.forehand, .backhand])
        #expect(found.allSatisfy { $0.speed > 8 && $0.speed < 14 })   // about 9 rad/s at 1.2 m
    }

    @Test func repsInSets() {
        let motions = Generate.reps(sets: [(10, 2.5), (8, 3)], rest: 20, rate: 50)
        // As the article writes it:
        var reps = RepCounter(sampleRate: 50)
        var counted: [Int] = []
        for m in motions {
            if let set = reps.process(m) { counted.append(set.reps) }
        }
        if let set = reps.finish() { counted.append(set.reps) }   // a set still open when the data ends
        #expect(counted == [10, 8])
    }

    @Test func aRestingTremor() throws {
        // 60 s of a wrist at rest with a 5-Hz tremor of 2 cm peak to peak.
        let a = 0.02 / 2 * pow(2 * Double.pi * 5, 2) / 9.80665
        var rng = SplitMix64(seed: 3)
        let accelerometer = (0..<3000).map { i -> AccelerometerSample in
            let t = Double(i) / 50
            let noise = Vector3(x: Double.random(in: -0.003...0.003, using: &rng), y: 0, z: 0)
            return AccelerometerSample(time: t, acceleration: Vector3(x: a * sin(2 * .pi * 5 * t), y: 0, z: -1) + noise)
        }
        // As the article writes it:
        var tremor = try TremorDetector(sampleRate: 50)
        var seconds: [TremorDetector.Second] = []
        for s in accelerometer {
            seconds += tremor.process(time: s.time, acceleration: s.acceleration)
        }
        seconds += tremor.finish()
        let minutes = TremorDetector.minutes(seconds)
        #expect(seconds.count == 60 && minutes.count == 1)
        #expect(seconds.dropFirst(4).allSatisfy { $0.severity == .mild && abs(($0.frequency ?? 0) - 5) < 0.2 })
    }

    @Test func aWorkoutWithAPause() throws {
        let motions = Generate.swings([(2, -9, 0.5), (5, 9, 0.5), (12, -9, 0.5)], rate: 50, seconds: 14)
        // As the article writes it:
        var workout = WorkoutSession(sampleRate: 50, wrist: .right)
        var events: [WorkoutEvent] = []
        events.append(try workout.start(at: 0))
        for m in motions where m.time < 7 { events += workout.process(m) }
        events += try workout.pause(at: 7)                         // samples stop coming while paused
        events.append(try workout.resume(at: 10))
        for m in motions where m.time >= 10 { events += workout.process(m) }
        events += try workout.stop(at: 14)                         // also ends a swing still being decided
        let swings = events.compactMap { if case .swing(let s) = $0 { s.kind } else { nil } }
        #expect(swings == [.forehand, .backhand, .forehand])
        #expect(events.first == .started(time: 0) && events.last == .stopped(time: 14))
        #expect(events.contains(.paused(time: 7)) && events.contains(.resumed(time: 10)))
    }
}
