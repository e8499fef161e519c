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
/// A floor is counted each time the altitude moves a whole `floorHeight` away from the last counted
/// level, so barometer noise and sway (tenths of a metre) never count.
public struct FloorCounter: Sendable, Equatable {
    /// Height of one floor, metres.
    public static let floorHeight = 3.0

    private var level: Double?
    /// Floors climbed so far.
    public private(set) var ascended = 0
    /// Floors descended so far.
    public private(set) var descended = 0

    public init() {}

    /// Adds one relative-altitude reading (metres, up positive).
    public mutating func process(relativeAltitude h: Double) {
        guard h.isFinite else { return }
        guard var l = level else {
            level = h
            return
        }
        while h >= l + FloorCounter.floorHeight {
            ascended += 1
            l += FloorCounter.floorHeight
        }
        while h <= l - FloorCounter.floorHeight {
            descended += 1
            l -= FloorCounter.floorHeight
        }
        level = l
    }
}
