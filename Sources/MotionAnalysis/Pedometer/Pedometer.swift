/// Pedometer figures over a span of time, mirroring `CMPedometerData`.
public struct PedometerData: Sendable, Equatable {
    /// Start of the span, seconds.
    public var startDate: Double
    /// End of the span, seconds.
    public var endDate: Double
    /// Steps taken.
    public var numberOfSteps: Int
    /// Distance walked, metres (stride model).
    public var distance: Double
    /// Floors climbed, nil when there was no altitude.
    public var floorsAscended: Int?
    /// Floors descended, nil when there was no altitude.
    public var floorsDescended: Int?
    /// Pace of the latest steps, seconds per metre; nil when not walking.
    public var currentPace: Double?
    /// Cadence of the latest steps, steps per second; nil when not walking.
    public var currentCadence: Double?
    /// Time spent walking (between resume and pause events), seconds.
    public var activeTime: Double
    /// Mean cadence while walking, steps per second (0 without steps).
    public var averageCadence: Double
    public init(startDate: Double, endDate: Double, numberOfSteps: Int, distance: Double, floorsAscended: Int?,
                floorsDescended: Int?, currentPace: Double?, currentCadence: Double?, activeTime: Double,
                averageCadence: Double) {
        self.startDate = startDate
        self.endDate = endDate
        self.numberOfSteps = numberOfSteps
        self.distance = distance
        self.floorsAscended = floorsAscended
        self.floorsDescended = floorsDescended
        self.currentPace = currentPace
        self.currentCadence = currentCadence
        self.activeTime = activeTime
        self.averageCadence = averageCadence
    }

    /// Active time over distance, seconds per metre; nil without distance.
    public var averageActivePace: Double? {
        distance > 0 && activeTime > 0 ? activeTime / distance : nil
    }
}

/// One counted step with its length, for range queries.
public struct StepRecord: Sendable, Equatable {
    /// Contact time, seconds.
    public var time: Double
    /// Step length, metres.
    public var length: Double
    /// Cadence the length was computed at, steps per second.
    public var cadence: Double
}

/// A pedometer: steps, distance, cadence, pace, floors and pause/resume, live and cumulative from the
/// first sample, as `CMPedometer.startUpdates(from:)` and `startEventUpdates`.
///
/// Feed accelerometer samples (and altitude samples when a barometer is available) in time order;
/// read `data` at any moment. Memory is constant: it keeps running totals, not the steps (use
/// `PedometerHistory` to answer queries over past ranges).
public struct Pedometer: Sendable {
    /// Intervals between consecutive steps longer than this (s) are not part of one walk: cadence
    /// falls back to the detector's period.
    public static let maximumStepInterval = 1.6
    /// Largest acceleration magnitude taken, g (twice the ±32 g full scale of the widest phone, watch
    /// and wearable accelerometers); larger or NaN samples are skipped.
    public static let maximumAcceleration = GaitSignal.maximumMagnitude
    /// Longest hole in the input that is filled, s; after a longer one the detector restarts.
    public static let maximumFilledGap = GaitSignal.maximumFilledGap

    /// The stride model turning steps into distance.
    public var strideModel: StrideModel
    private var detector = StepDetector()
    private var floors = FloorCounter()
    private var hasAltitude = false
    private var firstTime: Double?
    private var lastTime = 0.0
    private var steps = 0
    private var distance = 0.0
    private var lastStep: Double?
    private var lastCadence: Double?
    private var lastLength: Double?
    private var walkingSince: Double?
    private var activeTime = 0.0
    private var intervalSum = 0.0
    private var intervalCount = 0
    /// The steps the latest `process(_:)` (accelerometer) or `finish()` call counted, one per `.step`
    /// event it returned and in the same order, each with its own time, length and cadence (one call
    /// can return several steps: the back-dated start of a walk, steps filled in). For
    /// `PedometerHistory.record(_:steps:)`.
    public private(set) var stepRecords: [StepRecord] = []

    /// A pedometer using `strideModel` for distance.
    public init(strideModel: StrideModel = StrideModel()) {
        self.strideModel = strideModel
    }

    /// Processes one accelerometer sample (g, gravity included); returns the events it revealed.
    public mutating func process(_ sample: AccelerometerSample) -> [PedometerEvent] {
        if firstTime == nil { firstTime = sample.time }
        lastTime = max(lastTime, sample.time)
        if !stepRecords.isEmpty { stepRecords.removeAll(keepingCapacity: true) }
        let events = detector.process(sample)
        for e in events { apply(e) }
        return events
    }

    /// Processes one relative-altitude sample. Floors count only while the pedometer sees a walk
    /// (`CMPedometerData`: floors walked, not ridden), so feed altitude and acceleration in time order.
    public mutating func process(_ altitude: AltitudeSample) {
        hasAltitude = true
        floors.process(altitude, counting: detector.isWalking)
    }

    /// Ends the recording (takes the last open step; closes the active time at the last step).
    public mutating func finish() -> [PedometerEvent] {
        if !stepRecords.isEmpty { stepRecords.removeAll(keepingCapacity: true) }
        let events = detector.finish()
        for e in events { apply(e) }
        if let since = walkingSince, let l = lastStep, l > since {
            activeTime += l - since
            walkingSince = nil
        }
        return events
    }

    /// The figures from the first sample to now.
    public var data: PedometerData {
        var active = activeTime
        if let since = walkingSince, let l = lastStep, l > since { active += l - since }
        let walking = detector.isWalking
        return PedometerData(
            startDate: firstTime ?? 0, endDate: lastTime, numberOfSteps: steps, distance: distance,
            floorsAscended: hasAltitude ? floors.ascended : nil, floorsDescended: hasAltitude ? floors.descended : nil,
            currentPace: walking ? lastCadence.flatMap { c in lastLength.map { 1 / (c * $0) } } : nil,
            currentCadence: walking ? lastCadence : nil, activeTime: active,
            averageCadence: intervalCount > 0 ? Double(intervalCount) / intervalSum : 0)
    }

    /// The length and cadence the pedometer gave its latest step.
    public var latestStep: StepRecord? {
        guard let t = lastStep, let l = lastLength, let c = lastCadence else { return nil }
        return StepRecord(time: t, length: l, cadence: c)
    }

    private mutating func apply(_ e: PedometerEvent) {
        switch e.kind {
        case .step:
            var cadence = 1 / detector.stepPeriod
            if let l = lastStep {
                let dt = e.time - l
                if dt > 0 && dt <= Pedometer.maximumStepInterval {
                    cadence = 1 / dt
                    intervalSum += dt
                    intervalCount += 1
                }
            }
            let length = strideModel.stepLength(cadence: cadence)
            steps += 1
            distance += length
            lastStep = max(lastStep ?? e.time, e.time)
            lastCadence = cadence
            lastLength = length
            stepRecords.append(StepRecord(time: e.time, length: length, cadence: cadence))
        case .resume:
            if walkingSince == nil { walkingSince = e.time }
        case .pause:
            if let since = walkingSince {
                activeTime += max(0, e.time - since)
                walkingSince = nil
            }
        }
    }
}

/// Steps and events of a recording kept for queries over ranges (as `CMPedometer.queryPedometerData`).
/// Grows with the number of steps, not samples.
public struct PedometerHistory: Sendable {
    /// Every step, in time order.
    public private(set) var steps: [StepRecord] = []
    /// Pause and resume events, in report order.
    public private(set) var events: [PedometerEvent] = []
    /// Relative altitude samples, in time order.
    public private(set) var altitude: [AltitudeSample] = []

    public init() {}

    /// Records a step event with the length and cadence the pedometer gave that step (`step`'s time is
    /// not used: the step is kept at `event.time`), or a pause/resume (`step` nil).
    public mutating func record(_ event: PedometerEvent, step: StepRecord?) {
        if event.kind == .step, let s = step {
            steps.append(StepRecord(time: event.time, length: s.length, cadence: s.cadence))
        } else if event.kind != .step {
            events.append(event)
        }
    }

    /// Records what one `Pedometer.process(_:)` or `finish()` call returned: its events, and its
    /// `Pedometer.stepRecords` (one per `.step` event, in order) for the steps.
    public mutating func record(_ events: [PedometerEvent], steps records: [StepRecord]) {
        var next = 0
        for e in events {
            if e.kind == .step {
                guard next < records.count else { continue }
                record(e, step: records[next])
                next += 1
            } else {
                record(e, step: nil)
            }
        }
    }

    /// Records an altitude sample.
    public mutating func record(_ sample: AltitudeSample) { altitude.append(sample) }

    /// The figures between `start` and `end` (seconds, inclusive).
    public func data(from start: Double, to end: Double) -> PedometerData {
        let inRange = steps.filter { $0.time >= start && $0.time <= end }
        let distance = inRange.reduce(0) { $0 + $1.length }
        // Walking intervals (resume..pause, the last open one to the last step).
        var walks: [ClosedRange<Double>] = []
        var since: Double?
        for e in events.sorted(by: { $0.time < $1.time }) {
            if e.kind == .resume, since == nil { since = e.time }
            if e.kind == .pause, let s = since {
                walks.append(s...max(s, e.time))
                since = nil
            }
        }
        if let s = since, let last = steps.last?.time, last >= s { walks.append(s...last) }
        // Active time: the walking intervals clipped to the range.
        let active = walks.reduce(0.0) { $0 + max(0, min($1.upperBound, end) - max($1.lowerBound, start)) }
        // Floors: those walked (as `Pedometer`), from the walks as dated.
        var floors: FloorCounter?
        if !altitude.isEmpty {
            var f = FloorCounter()
            for a in altitude where a.time >= start && a.time <= end {
                f.process(a, counting: walks.contains { $0.contains(a.time) })
            }
            floors = f
        }
        var intervalSum = 0.0, intervalCount = 0
        for i in inRange.indices.dropFirst() {
            let dt = inRange[i].time - inRange[i - 1].time
            if dt > 0 && dt <= Pedometer.maximumStepInterval { intervalSum += dt; intervalCount += 1 }
        }
        return PedometerData(startDate: start, endDate: end, numberOfSteps: inRange.count, distance: distance,
                             floorsAscended: floors?.ascended, floorsDescended: floors?.descended,
                             currentPace: nil, currentCadence: nil, activeTime: active,
                             averageCadence: intervalCount > 0 ? Double(intervalCount) / intervalSum : 0)
    }
}
