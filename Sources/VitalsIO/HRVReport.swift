import PulseDetection

/// HRV as JSON under HeartPy's measure names, with the count of intervals kept out as artefacts.
public enum HRVReport {
    public static func json(_ hrv: HRVResult?) -> JSON {
        guard let hrv, hrv.intervals.count - hrv.rejected.count >= 2 else { return .null }
        var fields: [(String, JSON)] = HRVMeasures.names.map { name in
            (name, .num(hrv.measures[name], digits: 4))
        }
        fields.append(("intervals", .number(Double(hrv.intervals.count))))
        fields.append(("rejected_intervals", .number(Double(hrv.rejected.count))))
        return .object(fields)
    }
}
