import PulseDetection

/// HRV as JSON under HeartPy's measure names, with the count of intervals kept out as artefacts.
public enum HRVReport {
    public static func json(_ hrv: HRVResult?) -> JSON {
        guard let hrv, hrv.isMeasured else { return .null }
        var fields: [(String, JSON)] = HRVMeasures.names.map { name in
            (name, .num(hrv.measures[name], digits: 4))
        }
        fields.append(("intervals", .number(Double(hrv.intervals.count))))
        fields.append(("rejected_intervals", .number(Double(hrv.rejected.count))))
        // Per reason, every reason present (0 when none): ectopic pairs, deviations, ...
        fields.append(("rejected_by_reason", .object(IntervalRejection.allCases.map { reason in
            (reason.rawValue, .number(Double(hrv.rejectedCount(reason))))
        })))
        fields.append(("ectopic_beats", .number(Double(hrv.ectopicBeats.count))))
        return .object(fields)
    }
}
