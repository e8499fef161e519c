import FaceTracking
import SignalProcessing
import TestSupport
import Testing

@Suite struct FaceTrackerTests {
    // MARK: Identity

    @Test("a new face gets an ID only once it is detected in confirmationFrames frames in a row")
    func newFaceNeedsConsecutiveFrames() {
        // Frames 0-1 see a box, frame 2 misses it, frames 3-5 see it again.
        let frames = Scenes.frames(seconds: 0.2) { t in
            let k = Int((t * 30).rounded())
            return k == 2 ? [] : [Scenes.box((0.5, 0.5))]
        }
        let run = Scenes.track(frames)
        #expect(run[0].faces.isEmpty && run[1].faces.isEmpty && run[3].faces.isEmpty && run[4].faces.isEmpty)
        #expect(run[5].faces.map(\.id) == [1])
        #expect(Scenes.events(run) == [.appeared(id: 1, time: frames[5].time)])
    }

    @Test("with confirmationFrames 1 a face gets its ID, and is reported, in its first frame")
    func confirmationInOneFrame() throws {
        var s = FaceTracker.Settings()
        s.confirmationFrames = 1
        let frames = Scenes.frames(seconds: 0.1) { _ in [Scenes.box((0.3, 0.5)), Scenes.box((0.7, 0.5))] }
        let run = Scenes.track(frames, settings: s)
        #expect(run[0].faces.map(\.id) == [1, 2])
        #expect(run[0].events == [.appeared(id: 1, time: 0), .appeared(id: 2, time: 0)])
        #expect(Scenes.events(run).count == 2)
    }

    @Test("a single-frame false positive never gets an ID")
    func isolatedFalsePositiveIsIgnored() {
        let frames = Scenes.frames(seconds: 1) { t in
            Int((t * 30).rounded()) % 5 == 0 ? [Scenes.box((0.2 + t / 2, 0.3))] : []
        }
        let run = Scenes.track(frames)
        #expect(run.allSatisfy { $0.faces.isEmpty })
        #expect(Scenes.events(run).isEmpty)
    }

    @Test("two faces crossing paths, the one behind hidden while they overlap, keep their IDs")
    func keepsIDsThroughCrossingPaths() {
        // Face A moves right, face B left, 0.4 image widths per second (2 face widths/s), at heights
        // 0.05 apart so their boxes overlap as they pass. While their centres are within half a face
        // width (0.25 s), only A, in front, is detected.
        let a = { (t: Double) in (x: 0.1 + 0.4 * t, y: 0.45) }
        let b = { (t: Double) in (x: 0.9 - 0.4 * t, y: 0.5) }
        let frames = Scenes.frames(seconds: 2, jitter: 0.003) { t in
            abs(a(t).x - b(t).x) < 0.1 ? [Scenes.box(a(t))] : [Scenes.box(b(t)), Scenes.box(a(t))]
        }
        let run = Scenes.track(frames)
        #expect(Scenes.events(run).count == 2)  // two faces appear, none lost
        #expect(!Scenes.events(run).contains { if case .lost = $0 { true } else { false } })
        var hiddenFrames = 0
        for f in run where f.time >= 0.2 {
            // Whoever is reported is where its own path says, never on the other's.
            #expect(f.faces.count == 2)
            for face in f.faces {
                let truth = face.id == 1 ? b(f.time) : a(f.time)  // B is listed first, so confirmed first
                #expect(abs(face.boundingBox.midX - truth.x) < 0.03, "face \(face.id) at \(face.boundingBox.midX), path \(truth.x), t \(f.time)")
            }
            if f.faces.contains(where: \.isCoasting) { hiddenFrames += 1 }
        }
        #expect(hiddenFrames >= 7)  // the crossing really hid a face (0.25 s at 30 fps)
    }

    @Test("a face missed for less than maximumCoast keeps its ID, coasting meanwhile")
    func keepsIDThroughShortMiss() {
        let frames = Scenes.frames(seconds: 3, jitter: 0.002) { t in
            t >= 1 && t < 1.4 ? [] : [Scenes.box((0.5, 0.5))]
        }
        let run = Scenes.track(frames)
        #expect(Scenes.events(run) == [.appeared(id: 1, time: frames[2].time)])
        for f in run where f.time >= 0.1 {
            #expect(f.faces.map(\.id) == [1])
            #expect(f.faces[0].isCoasting == (f.time >= 1 && f.time < 1.4))
        }
    }

    @Test("a face missed for longer than maximumCoast is lost, and comes back with a new ID")
    func newIDAfterLongLoss() {
        let frames = Scenes.frames(seconds: 3) { t in
            t >= 1 && t < 1.7 ? [] : [Scenes.box((0.5, 0.5))]
        }
        let run = Scenes.track(frames)
        let lastSeen = frames.last { $0.time < 1 }!.time
        let lostAt = frames.first { $0.time - lastSeen > 0.5 }!.time
        let back = frames.firstIndex { $0.time >= 1.7 }!
        #expect(Scenes.events(run) == [.appeared(id: 1, time: frames[2].time), .lost(id: 1, time: lostAt),
                                       .appeared(id: 2, time: frames[back + 2].time)])
        #expect(run.last!.faces.map(\.id) == [2])
    }

    @Test("IDs are never reused: each appears once, in increasing order, and never after it is lost")
    func idsAreNeverReused() {
        // Up to four faces come and go at random places for a minute.
        var g = SplitMix64(seed: 42)
        var present: [(x: Double, y: Double)?] = [nil, nil, nil, nil]
        let frames = Scenes.frames(seconds: 60, jitter: 0.002) { _ in
            for i in present.indices where g.uniform() < 0.02 {
                present[i] = present[i] == nil ? (0.15 + 0.7 * g.uniform(), 0.15 + 0.7 * g.uniform()) : nil
            }
            return present.compactMap { $0 }.filter { _ in g.uniform() > 0.05 }.map { Scenes.box($0, size: 0.1) }
        }
        let run = Scenes.track(frames)
        var appeared: [Int] = [], lost: Set<Int> = []
        for f in run {
            for e in f.events {
                switch e {
                case .appeared(let id, _): appeared.append(id)
                case .lost(let id, _): lost.insert(id)
                }
            }
            for face in f.faces { #expect(!lost.contains(face.id) && appeared.contains(face.id)) }
        }
        #expect(appeared.count > 10)  // the scene really recycles faces
        #expect(appeared == Array(1...appeared.count))
    }

    @Test("a face reported twice by the detector is still one face")
    func duplicateBoxIsNotANewFace() {
        let frames = Scenes.frames(seconds: 1) { _ in
            [Scenes.box((0.5, 0.5)), Scenes.box((0.52, 0.51), size: 0.22)]
        }
        let run = Scenes.track(frames)
        #expect(Scenes.events(run) == [.appeared(id: 1, time: frames[2].time)])
    }

    // MARK: Smoothing

    /// Standard deviation of the tracked centre about the truth, x and y pooled.
    static func centreError(_ run: [TrackedFrame], from start: Double, truth: (Double) -> (x: Double, y: Double)) -> (rms: Double, worst: Double) {
        var sum = 0.0, n = 0.0, worst = 0.0
        for f in run where f.time >= start {
            let b = f.faces[0].boundingBox, c = truth(f.time)
            sum += (b.midX - c.x) * (b.midX - c.x) + (b.midY - c.y) * (b.midY - c.y)
            n += 2
            worst = max(worst, abs(b.midX - c.x), abs(b.midY - c.y))
        }
        return ((sum / n).squareRoot(), worst)
    }

    @Test("a still face's jitter is cut at least 2.5-fold in centre and size")
    func smoothingReducesJitterOfAStillFace() {
        // Each edge jitters by 0.004 (2 % of the 0.2 face width) per frame, so the centre by
        // 0.004 √1.25 (x and width/2 both jitter) and the size by 0.004. Measured: 3.2-fold in
        // centre, 3.4-fold in size.
        let frames = Scenes.frames(seconds: 20, jitter: 0.004, seed: 7) { _ in [Scenes.box((0.5, 0.5))] }
        let run = Scenes.track(frames)
        let centre = Self.centreError(run, from: 1) { _ in (0.5, 0.5) }.rms / (0.004 * 1.25.squareRoot())
        var sizeSum = 0.0, n = 0.0
        for f in run where f.time >= 1 {
            let b = f.faces[0].boundingBox
            sizeSum += (b.width - 0.2) * (b.width - 0.2) + (b.height - 0.2) * (b.height - 0.2)
            n += 2
        }
        let size = (sizeSum / n).squareRoot() / 0.004
        #expect(centre < 1 / 2.5, "centre jitter kept: \(centre)")
        #expect(size < 1 / 2.5, "size jitter kept: \(size)")
    }

    @Test("a face moving at 2 face widths per second is followed within 0.1 face width, at a steady or ragged frame rate")
    func smoothingLagsAMovingFaceLittle() {
        // Moving right at 0.4/s (a 0.2-wide face: 2 widths per second, a brisk head movement),
        // slightly jittered; from half a second on, the smoothed centre trails the truth by under
        // 0.02 (0.1 face width; measured 0.073 steady, 0.063 ragged). A fixed 1-Hz low-pass, which smooths a still
        // face about as much, would trail by 0.4/(2π) = 0.064 (0.32 face width).
        let path = { (t: Double) in (x: 0.1 + 0.4 * t, y: 0.5) }
        let steady = Scenes.frames(seconds: 2, jitter: 0.002) { t in [Scenes.box(path(t))] }
        // The same at ragged intervals of 20-60 ms.
        var g = SplitMix64(seed: 3)
        var ragged: [FaceDetections] = []
        var t = 0.0
        while t < 2 {
            ragged.append(FaceDetections(time: t, observations: [FaceObservation(boundingBox: Scenes.box(path(t)))]))
            t += 0.02 + 0.04 * g.uniform()
        }
        for frames in [steady, ragged] {
            let run = Scenes.track(frames)
            let lag = Self.centreError(run, from: 0.5, truth: path).worst
            #expect(lag < 0.02, "trailing by \(lag / 0.2) face widths")
        }
    }

    @Test("roll is unwrapped across ±π: a face turning steadily through π reads as a steady turn")
    func rollIsUnwrapped() {
        // Roll rises 3 rad/s from 2.5 rad; the detector reports it wrapped into (-π, π].
        let frames = (0..<60).map { k in
            let t = Double(k) / 30, roll = 2.5 + 3 * t
            return FaceDetections(time: t, observations: [FaceObservation(boundingBox: Scenes.box((0.5, 0.5)),
                                                                          roll: roll.remainder(dividingBy: 2 * .pi), yaw: 0.1)])
        }
        let run = Scenes.track(frames)
        var previous: Double?
        for f in run where !f.faces.isEmpty {
            let roll = f.faces[0].roll!
            if let p = previous { #expect(roll > p && roll - p < 0.2) }
            previous = roll
            #expect(abs(f.faces[0].yaw! - 0.1) < 1e-12)
        }
        // Unwrapped: it ends near the true 8.4 rad, behind it by the filter's lag (under 0.3 rad).
        let truth = 2.5 + 3 * frames.last!.time
        #expect(previous! > truth - 0.3 && previous! < truth)
    }

    // MARK: Streaming, batch, bad input

    static let busyScene: [FaceDetections] = {
        var g = SplitMix64(seed: 9)
        var present: [(x: Double, y: Double)?] = [nil, nil, nil]
        return Scenes.frames(seconds: 20, jitter: 0.004) { t in
            for i in present.indices where g.uniform() < 0.03 {
                present[i] = present[i] == nil ? (0.2 + 0.6 * g.uniform(), 0.2 + 0.6 * g.uniform()) : nil
            }
            return present.compactMap { $0 }.filter { _ in g.uniform() > 0.1 }
                .map { Scenes.box((x: $0.x + 0.05 * (3 * t).sinApprox, y: $0.y), size: 0.15) }
        }
    }()

    @Test("feeding frames one by one or in chunks of any size gives the same faces and events",
          arguments: [1, 7, 100, Int.max])
    func streamingEqualsBatch(chunk: Int) {
        var oneByOne = try! FaceTracker(settings: .init())
        var expected: [TrackedFrame] = []
        for f in Self.busyScene {
            var events: [FaceTrackEvent] = []
            let faces = oneByOne.process(f.observations, at: f.time, events: &events)
            expected.append(TrackedFrame(time: f.time, faces: faces, events: events))
        }
        var chunked = FaceTracker()
        var got: [TrackedFrame] = []
        var start = 0
        while start < Self.busyScene.count {
            let end = start + min(chunk, Self.busyScene.count - start)
            got += chunked.process(Self.busyScene[start..<end])
            start = end
        }
        #expect(got == expected)
        #expect(Scenes.events(got).count > 4)
    }

    @Test("bad frames and boxes are counted and skipped; tracking goes on as if they were not there")
    func badInputIsIgnored() {
        var clean = FaceTracker(), dirty = FaceTracker()
        let nanBox = FaceObservation(boundingBox: NormalizedRect(x: .nan, y: 0.1, width: 0.2, height: 0.2))
        let emptyBox = FaceObservation(boundingBox: NormalizedRect(x: 0.1, y: 0.1, width: 0, height: 0.2))
        let badAngle = FaceObservation(boundingBox: Scenes.box((0.3, 0.3)), roll: .infinity)
        for (k, f) in Self.busyScene.enumerated() {
            let expected = clean.process(f.observations, at: f.time)
            if k % 10 == 3 {
                #expect(dirty.process(f.observations, at: f.time - 0.5).isEmpty)  // time going back
                #expect(dirty.process(f.observations, at: .nan).isEmpty)
            }
            let got = dirty.process([nanBox] + f.observations + [emptyBox, badAngle], at: f.time)
            #expect(got == expected)
            if k % 10 == 3 { #expect(dirty.process(f.observations, at: f.time).isEmpty) }  // same time again
        }
        let n = Self.busyScene.count
        #expect(dirty.ignoredObservations == 3 * n)
        #expect(dirty.ignoredFrames == 3 * ((n + 6) / 10))
        #expect(clean.ignoredFrames == 0 && clean.ignoredObservations == 0)
    }

    @Test("the tracker holds no more after ten minutes of faces coming and going than after one")
    func stateStaysBounded() {
        var tracker = FaceTracker()
        var g = SplitMix64(seed: 5)
        var present: [(x: Double, y: Double)?] = Array(repeating: nil, count: 6)
        var held: [Int] = []
        for k in 0..<(600 * 30) {
            for i in present.indices where g.uniform() < 0.02 {
                present[i] = present[i] == nil ? (0.1 + 0.8 * g.uniform(), 0.1 + 0.8 * g.uniform()) : nil
            }
            let boxes = present.compactMap { $0 }.map { FaceObservation(boundingBox: Scenes.box($0, size: 0.08)) }
            _ = tracker.process(boxes, at: Double(k) / 30)
            if k % (60 * 30) == 60 * 30 - 1 { held.append(heldElements(tracker)) }
        }
        #expect(held.count == 10)
        // It moves with the number of faces in view (at most 6 here), never with the time run.
        #expect(held.max()! <= held[0] + 64, "held elements every minute: \(held)")
        #expect(held[0] > 16)  // the reflection reaches the working buffers
    }

    @Test("settings outside their ranges are refused with a code and the setting's name")
    func invalidSettingsAreRefused() {
        var s = FaceTracker.Settings()
        s.minimumOverlap = 0
        #expect(throws: FaceTrackingError.self) { try FaceTracker(settings: s) }
        s = .init()
        s.maximumCoast = .nan
        do {
            _ = try FaceTracker(settings: s)
            Issue.record("NaN coast accepted")
        } catch {
            #expect(error.code == .invalidSetting && error.message.contains("maximumCoast"))
        }
        s = .init()
        s.boxSmoothing.minimumCutoff = -1
        #expect(throws: FaceTrackingError.self) { try FaceTracker(settings: s) }
    }

    @Test("more faces than the tracker can reserve room for are refused (Int.max trapped, a million asked for 32 TB)")
    func tooManyFacesAreRefused() throws {
        var s = FaceTracker.Settings()
        for n in [FaceTracker.Settings.largestMaximumFaces + 1, 1_000_000, Int.max] {
            s.maximumFaces = n
            do {
                _ = try FaceTracker(settings: s)
                Issue.record("maximumFaces \(n) accepted")
            } catch {
                #expect(error.code == .invalidSetting && error.message.contains("maximumFaces"))
            }
        }
        s.maximumFaces = FaceTracker.Settings.largestMaximumFaces
        _ = try FaceTracker(settings: s)
    }
}

private extension Double {
    /// A smooth, deterministic wobble (sin via its Taylor series around the nearest multiple of 2π),
    /// so the scene needs no Foundation.
    var sinApprox: Double {
        let x = self.remainder(dividingBy: 2 * .pi)
        let x2 = x * x
        return x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72 * (1 - x2 / 110)))))
    }
}
