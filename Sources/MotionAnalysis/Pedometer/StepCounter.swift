import Foundation
import SignalProcessing

/// Counts steps by locking onto the step period: one step per period, the best candidate in a window
/// around where the next step is due.
///
/// Idle, it waits for a chain of at least `chainLength` candidates spaced one period apart, found
/// backwards from the newest candidate through the last few seconds, with regular intervals and
/// comparable sizes; the whole chain is counted (back-dated), so the first steps of a walk are not
/// lost to the confirmation delay. Locked, it closes a window `[0.6, 1.4]` periods after each step
/// and takes its best candidate (prominence weighted by closeness to the expected time), tolerating
/// one missing step (filled in at the expected time once the next one shows up). It unlocks when two
/// windows in a row are empty or the signal stops repeating stride to stride.
///
/// The constants were chosen on the Oxford optimisation recordings (all 22 usable, 3 phones,
/// 7 positions); see the README for the cross-checks by phone.
struct StepCounter: Sendable {
    /// Window for the next step, as fractions of the period after the last one.
    static let window = (early: 0.6, late: 1.4)
    /// Width (fraction of the period) of the Gaussian that favours candidates near the expected time.
    static let timingWidth = 0.3
    /// Candidates needed to start counting.
    static let chainLength = 4
    /// Chain intervals must lie within this fraction of their median, which must lie within it of the period.
    static let chainRegularity = 0.3
    /// Largest ratio of prominences within a starting chain (handling gives a few huge peaks).
    static let chainProminenceRatio = 4.0
    /// A candidate smaller than this fraction of the chain's newest (or of the recent median step) is ignored.
    static let relativeProminence = 0.25
    /// A candidate larger than this multiple of the recent median step is handling, not a step.
    static let maximumRelativeProminence = 3.0
    /// Minimum 4-s periodicity (autocorrelation at the period) to start or keep counting.
    static let minimumPeriodicity = 0.3
    /// Minimum stride-to-stride correlation over the last `shortWindow` seconds to accept a step.
    static let minimumStrideCorrelation = 0.5
    /// Short window for the stride-to-stride check, seconds.
    static let shortWindow = 2.5
    /// Candidates remembered for the backwards chain, seconds.
    static let memory = 6.0
    /// Seconds of steady carrying orientation needed before counting starts (see `GaitSignal.stableAngle`).
    static let minimumSteadySpan = 2.0
    /// Every peak of a starting chain must be at least this prominent, g (as `ActivityDetector.startProminence`).
    static let minimumStartProminence = 0.08
    /// Missing steps tolerated in a row (the foot-switch truth shows such gaps are real steps).
    static let maximumMissed = 1

    private var candidates = RingBuffer<StepCandidate>(capacity: 256)
    private var pending: [StepCandidate] = []
    private var recentProminence = RingBuffer<Double>(capacity: PedometerMedian.maximumCount)
    private var sortScratch: [Double] = []
    private var chain: [StepCandidate] = []
    private var last: Double?
    private var lastCounted = -Double.infinity
    private var missed = 0
    private var virtualSteps: [Double] = []

    init() {
        pending.reserveCapacity(64)
        chain.reserveCapacity(64)
        virtualSteps.reserveCapacity(4)
        sortScratch.reserveCapacity(64)
    }

    private func score(_ c: StepCandidate, expected: Double, period: Double) -> Double {
        let z = (c.time - expected) / (StepCounter.timingWidth * period)
        return c.prominence * exp(-z * z)
    }

    private var cachedMedian: Double?

    private mutating func medianRecentProminence() -> Double {
        if let m = cachedMedian { return m }
        let m = PedometerMedian.of(recentProminence)
        cachedMedian = m
        return m
    }

    /// One stride (two step periods) in grid samples, rounded. Kept out of line: the optimiser would
    /// otherwise hoist the rounding (a library call here) out of the window loop into every tick.
    @inline(never)
    static func strideLag(period: Double) -> Int {
        Int((2 * period * GaitSignal.rate).rounded())
    }

    /// One grid tick. `emit` receives step times (seconds, filter delay not yet removed), oldest first.
    mutating func tick(now: Double, candidate: StepCandidate?, signal: inout GaitSignal, emit: (Double) -> Void) {
        // The period estimate is read only when a decision needs it (see `GaitSignal.period`).
        if let c = candidate {
            candidates.append(c)
            if last == nil {
                let steadySince = now - signal.stableDuration
                if signal.periodicity > StepCounter.minimumPeriodicity && now - steadySince >= StepCounter.minimumSteadySpan {
                    tryStart(from: c, period: signal.period, notBefore: steadySince, emit: emit)
                }
            } else {
                pending.append(c)
            }
        }
        guard last != nil else { return }
        let period = signal.period
        let periodic = signal.periodicity > StepCounter.minimumPeriodicity
        while let l = last, now > l + StepCounter.window.late * period {
            let reference = medianRecentProminence()
            var best: StepCandidate?
            var bestScore = -Double.infinity
            for c in pending where c.time >= l + StepCounter.window.early * period
                && c.time <= l + StepCounter.window.late * period
                && c.prominence >= StepCounter.relativeProminence * reference
                && c.prominence <= StepCounter.maximumRelativeProminence * reference {
                let s = score(c, expected: l + period, period: period)
                if s > bestScore { bestScore = s; best = c }
            }
            if let b = best, periodic,
               signal.laggedCorrelation(length: Int(StepCounter.shortWindow * GaitSignal.rate),
                                        lag: StepCounter.strideLag(period: period))
                > StepCounter.minimumStrideCorrelation {
                for v in virtualSteps { emit(v) }
                virtualSteps.removeAll(keepingCapacity: true)
                missed = 0
                emit(b.time)
                recentProminence.append(b.prominence)
                cachedMedian = nil
                last = b.time
                pending.removeAll { $0.time <= b.time }
            } else if missed < StepCounter.maximumMissed && periodic {
                missed += 1
                virtualSteps.append(l + period)
                last = l + period
            } else {
                lastCounted = virtualSteps.first.map { $0 - period } ?? l
                last = nil
                pending.removeAll(keepingCapacity: true)
                missed = 0
                virtualSteps.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Looks for a regular chain ending at `c`; when found, counts it and locks on.
    private mutating func tryStart(from c: StepCandidate, period: Double, notBefore: Double, emit: (Double) -> Void) {
        guard c.time >= notBefore, c.prominence >= StepCounter.minimumStartProminence else { return }
        chain.removeAll(keepingCapacity: true)
        chain.append(c)
        while true {
            let current = chain[chain.count - 1].time
            var best: StepCandidate?
            var bestScore = -Double.infinity
            for cc in candidates where cc.time >= current - StepCounter.window.late * period
                && cc.time <= current - StepCounter.window.early * period
                && cc.time > lastCounted + StepCounter.window.early * period
                && cc.time >= c.time - StepCounter.memory
                && cc.time >= notBefore
                && cc.prominence >= StepCounter.minimumStartProminence
                && cc.prominence >= StepCounter.relativeProminence * c.prominence {
                let s = score(cc, expected: current - period, period: period)
                if s > bestScore { bestScore = s; best = cc }
            }
            guard let b = best else { break }
            chain.append(b)
        }
        guard chain.count >= StepCounter.chainLength else { return }
        chain.reverse()
        // Regular intervals near the period, comparable prominences.
        sortScratch.removeAll(keepingCapacity: true)
        var smallest = Double.infinity, largest = 0.0
        for i in chain.indices {
            smallest = min(smallest, chain[i].prominence)
            largest = max(largest, chain[i].prominence)
        }
        for i in 1..<chain.count { sortScratch.append(chain[i].time - chain[i - 1].time) }
        let intervals = sortScratch
        let median = Statistics.median(intervals)
        let regularSteps = intervals.allSatisfy({ abs($0 - median) <= StepCounter.chainRegularity * median })
            && abs(median - period) <= StepCounter.chainRegularity * period
        guard regularSteps || Self.regularStrides(intervals, period: period),
              largest <= StepCounter.chainProminenceRatio * smallest else { return }
        recentProminence.removeAll()
        cachedMedian = nil
        for s in chain {
            emit(s.time)
            recentProminence.append(s.prominence)
        }
        last = c.time
        pending.removeAll(keepingCapacity: true)
    }

    /// Whether step `intervals` that alternate short and long (a limp, or a phone in one front pocket:
    /// 0.36 and 0.68 s on an Oxford recording) are a regular gait: the short ones (every other
    /// interval) within ``alternationRegularity`` of their median, the long ones within it of
    /// theirs, at least ``minimumAlternatingIntervals`` of them, and a stride (one of each) within
    /// ``chainRegularity`` of two periods. Step intervals alone fail there (the long ones are 30-50 %
    /// past their median), and such a walk, once interrupted, was not counted again for 50 s.
    /// Requiring each half to be regular on its own is what keeps random bumps out: sums of
    /// neighbouring intervals alone smooth irregularity away (random chains passed 61-91 % of the
    /// time; a simulated car ride started counting).
    static func regularStrides(_ intervals: [Double], period: Double) -> Bool {
        guard intervals.count >= minimumAlternatingIntervals else { return false }
        let first = Swift.stride(from: 0, to: intervals.count, by: 2).map { intervals[$0] }
        let second = Swift.stride(from: 1, to: intervals.count, by: 2).map { intervals[$0] }
        let a = Statistics.median(first), b = Statistics.median(second)
        return first.allSatisfy { abs($0 - a) <= alternationRegularity * a }
            && second.allSatisfy { abs($0 - b) <= alternationRegularity * b }
            && abs(a + b - 2 * period) <= chainRegularity * 2 * period
    }

    /// How close each half of an alternating chain must stay to its own median (see
    /// ``regularStrides(_:period:)``).
    static let alternationRegularity = 0.15
    /// Fewest intervals an alternating chain needs: three of each kind.
    static let minimumAlternatingIntervals = 6

    /// End of the recording: takes the best candidate of the open window, if any.
    mutating func finish(period: Double, emit: (Double) -> Void) {
        guard let l = last else { return }
        var best: StepCandidate?
        var bestScore = -Double.infinity
        for c in pending where c.time >= l + StepCounter.window.early * period
            && c.time <= l + StepCounter.window.late * period {
            let s = score(c, expected: l + period, period: period)
            if s > bestScore { bestScore = s; best = c }
        }
        if let b = best {
            for v in virtualSteps { emit(v) }
            emit(b.time)
        }
        last = nil
        pending.removeAll(keepingCapacity: true)
        virtualSteps.removeAll(keepingCapacity: true)
    }
}
