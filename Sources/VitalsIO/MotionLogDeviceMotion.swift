import Foundation
import MotionAnalysis

extension MotionLog {
    /// Whether the device motion comes straight from the log or from `AttitudeFilter`.
    public var hasDeviceMotion: Bool { gravity != nil && rotationRate != nil }

    /// Device motion for every sample: the log's own when it has gravity and rotation rate (user
    /// acceleration from the log, else raw acceleration minus gravity, else zero; attitude from the
    /// log or levelled from gravity), or derived by `AttitudeFilter` from raw acceleration + rotation
    /// rate.
    /// - Throws: `InputError.missingColumn` naming what the log has when neither is possible.
    public func deviceMotion(filter: AttitudeFilter.Parameters = .init()) throws -> [DeviceMotion] {
        if let gravity, let rate = rotationRate {
            // Total acceleration is gravity + user acceleration (Core Motion's model), so a log with
            // gravity and raw acceleration but no user acceleration still has it.
            let acc = acceleration
            let user = userAcceleration
            return (0..<count).map { k in
                DeviceMotion(time: time[k], attitude: attitude?[k] ?? AttitudeFilter.levelAttitude(gravity: gravity[k]),
                             gravity: gravity[k], rotationRate: rate[k],
                             userAcceleration: user?[k] ?? acc.map { $0[k] - gravity[k] } ?? .zero)
            }
        }
        if let acc = acceleration, let rate = rotationRate {
            var f = AttitudeFilter(parameters: filter)
            var out: [DeviceMotion] = []
            out.reserveCapacity(count)
            for k in 0..<count {
                out.append(f.process(IMUSample(time: time[k], acceleration: acc[k], rotationRate: rate[k])))
            }
            return out
        }
        var have: [String] = []
        if gravity != nil { have.append("gravity") }
        if userAcceleration != nil { have.append("user acceleration") }
        if acceleration != nil { have.append("acceleration") }
        if rotationRate != nil { have.append("rotation rate") }
        if attitude != nil { have.append("attitude") }
        throw InputError(.missingColumn,
                         "\(source): need rotation rate with gravity or with raw acceleration; the log has \(have.isEmpty ? "none of these" : have.joined(separator: ", "))")
    }

    /// Splits `[0, count)` at the log's gaps: ranges of contiguous samples.
    public var segments: [Range<Int>] {
        var out: [Range<Int>] = []
        var start = 0
        for g in gaps {
            out.append(start..<g.index)
            start = g.index
        }
        out.append(start..<count)
        return out
    }
}
