/// Step length from cadence and body height, calibratable: distance without GPS.
///
/// `stepLength = scale × height × (baseRatio + cadenceSlope × (cadence − referenceCadence))`, clamped
/// to `ratioBounds` × height. The ratios are textbook gait figures (a step is about 0.41 × height at
/// a normal 1.8 steps/s walk, shorter when slower, longer when faster), not fitted to data here: no
/// recording in the evaluation sets has distance truth. `calibrate(distance:steps:)` adjusts `scale`
/// from a walk of known length.
public struct StrideModel: Sendable, Equatable, Hashable {
    /// Step length over height at `referenceCadence`.
    public static let baseRatio = 0.41
    /// Change of that ratio per step/s of cadence.
    public static let cadenceSlope = 0.14
    /// Cadence of an ordinary walk, steps/s.
    public static let referenceCadence = 1.8
    /// Bounds of the step-length-to-height ratio (shuffle to run).
    public static let ratioBounds = (min: 0.2, max: 0.9)
    /// Height assumed when none is given, metres.
    public static let defaultHeight = 1.70

    /// Body height, metres.
    public var height: Double
    /// Personal correction factor (1 until calibrated).
    public var scale: Double

    /// A model for a person `height` metres tall.
    public init(height: Double = StrideModel.defaultHeight, scale: Double = 1) {
        self.height = height
        self.scale = scale
    }

    /// Length of one step in metres at `cadence` steps per second.
    public func stepLength(cadence: Double) -> Double {
        let c = cadence.isFinite && cadence > 0 ? cadence : StrideModel.referenceCadence
        let ratio = StrideModel.baseRatio + StrideModel.cadenceSlope * (c - StrideModel.referenceCadence)
        return scale * height * min(StrideModel.ratioBounds.max, max(StrideModel.ratioBounds.min, ratio))
    }

    /// Calibrates the scale from a walk of known `distance` (metres) that took `steps` steps at `cadence`.
    public mutating func calibrate(distance: Double, steps: Int, cadence: Double = StrideModel.referenceCadence) {
        guard distance > 0, steps > 0 else { return }
        let unscaled = StrideModel(height: height, scale: 1).stepLength(cadence: cadence) * Double(steps)
        scale = distance / unscaled
    }
}

/// Floors climbed and descended from relative altitude, about 3 m per floor (as `CMPedometer`).
///
/// Like `CMPedometerData`'s, the floors are those walked: readings passed with `counting: false`
/// (the pedometer's, while it sees no walk: a lift ride, barometer drift while sitting) move the
/// counted level along by whole floors without counting them, so a ride neither counts nor leaves
/// a partial floor behind, while the part of a floor climbed before a walk is recognised still counts.
///
/// A floor is counted each time the altitude moves a whole `floorHeight` away from the last counted
/// level, so barometer noise and sway (tenths of a metre) never count. A reading no barometer on a
/// person can give is a glitch, never floors: one outside `maximumRelativeAltitude`, or one that moved
/// from the previous reading faster than `maximumVerticalSpeed` (beyond `noiseAllowance`). After a
/// jump the counting restarts from the new altitude, so neither the jump nor the return counts.
/// - Complexity: O(1) per reading (floors are counted by division, not one at a time).
public struct FloorCounter: Sendable, Equatable {
    /// Height of one floor, metres.
    public static let floorHeight = 3.0
    /// Fastest credible climb or descent, m/s: above the fastest passenger lifts (about 20-21 m/s,
    /// Shanghai Tower and Guangzhou CTF Finance Centre), so no real ride is taken for a glitch (the
    /// pedometer passes rides over uncounted: see `counting`).
    public static let maximumVerticalSpeed = 25.0
    /// Change allowed between two readings on top of `maximumVerticalSpeed` × interval, metres: barometer
    /// noise and pressure transients (a door, a gust) stay within a metre or two.
    public static let noiseAllowance = 2.0
    /// Largest magnitude of a relative altitude a barometer can report, metres: 100 km is where the
    /// atmosphere ends (pressure below 0.001 % of sea level); beyond it the reading is not a pressure.
    public static let maximumRelativeAltitude = 100_000.0

    private var level: Double?
    private var previousTime = 0.0
    private var previousAltitude = 0.0
    /// Floors climbed so far.
    public private(set) var ascended = 0
    /// Floors descended so far.
    public private(set) var descended = 0
    /// Readings ignored as glitches (out of range, or a jump faster than any lift).
    public private(set) var glitches = 0

    public init() {}

    /// Adds one altitude sample.
    public mutating func process(_ sample: AltitudeSample, counting: Bool = true) {
        process(time: sample.time, relativeAltitude: sample.relativeAltitude, counting: counting)
    }

    /// Adds one relative-altitude reading (metres, up positive) taken at `time` (seconds); with
    /// `counting` false, whole floors of change are passed over uncounted.
    public mutating func process(time: Double, relativeAltitude h: Double, counting: Bool = true) {
        guard h.isFinite, time.isFinite, abs(h) <= FloorCounter.maximumRelativeAltitude else {
            glitches += 1
            return
        }
        defer {
            previousTime = time
            previousAltitude = h
        }
        guard let l = level else {
            level = h
            return
        }
        let bound = FloorCounter.noiseAllowance + FloorCounter.maximumVerticalSpeed * max(0, time - previousTime)
        guard abs(h - previousAltitude) <= bound else {
            glitches += 1
            level = h
            return
        }
        // |h − l| ≤ 2 × maximumRelativeAltitude, so the floor count is a small exact integer.
        let floors = ((h - l) / FloorCounter.floorHeight).rounded(.towardZero)
        guard floors != 0 else { return }
        if counting { if floors > 0 { ascended += Int(floors) } else { descended += Int(-floors) } }
        level = l + floors * FloorCounter.floorHeight
    }
}
