#!/usr/bin/env python3
"""HRV from a finger PPG against the HRV of the ECG recorded with it: `vitals heart-rate` and HeartPy
side by side on the same PPG, over the stretches where the ECG reference is clean.

For each NAME.csv (time_s, an ECG column, ppg) with NAME_rpeaks.csv in the folder (laid out like
../shared/data/ppg-ecg). The R-peaks come from a reference detector, not hand-checked, and a noisy
ECG gives missed and spurious R-peaks whose intervals swamp any HRV measure (a103l's whole-recording
R-R RMSSD is 86 ms; 5 ms where its ECG is clean). So the comparison runs over the clean stretches:
runs of at least --min-seconds in which every R-R interval is within 20 % of the one before (the
quotient filter of Piskorski & Guzik, 2005). Over each stretch:
- ECG: SDNN, RMSSD and pNN50 of its R-R intervals;
- vitals: the same measures of the intervals `vitals heart-rate NAME.csv --column ppg --json` gives
  for beats in the stretch and keeps for HRV (not `artifact`, not `ectopic`);
- HeartPy: `process` on the stretch's PPG band-passed 0.7-3.5 Hz (order 3), as its docs do.
Prints a table (or one JSON document with --json). Needs numpy and heartpy (`pip install heartpy`).
Usage: bench/hrv_vs_ecg.py [FOLDER] [--vitals PATH] [--min-seconds S] [--json]
"""
import argparse, csv, glob, json, os, subprocess, sys
import numpy as np

MEASURES = ["sdnn", "rmssd", "pnn50"]


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], np.array(rows[1:], dtype=float)
    return header, body


def measures(intervals_ms):
    """SDNN, RMSSD (ms) and pNN50 (fraction) of consecutive intervals, HeartPy's definitions."""
    rr = np.asarray(intervals_ms, dtype=float)
    if len(rr) < 3:
        return {m: None for m in MEASURES}
    d = np.abs(np.diff(rr))
    return {"sdnn": float(np.std(rr)), "rmssd": float(np.sqrt(np.mean(d ** 2))), "pnn50": float(np.mean(d > 50))}


def clean_stretches(peaks, min_seconds):
    """(start, end) of runs of R-peaks whose every interval is within 20 % of the one before."""
    rr = np.diff(peaks)
    good = np.r_[True, np.abs(rr[1:] / rr[:-1] - 1) <= 0.2]
    stretches, i = [], 0
    while i < len(rr):
        if not good[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(rr) and good[j + 1]:
            j += 1
        if peaks[j + 1] - peaks[i] >= min_seconds:
            stretches.append((float(peaks[i]), float(peaks[j + 1])))
        i = j + 1
    return stretches


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", nargs="?", default="../shared/data/ppg-ecg")
    ap.add_argument("--vitals", default=".build/release/vitals")
    ap.add_argument("--min-seconds", type=float, default=60)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    import heartpy as hp

    results, without = [], []
    for path in sorted(glob.glob(os.path.join(args.folder, "*.csv"))):
        peaks_path = path[:-4] + "_rpeaks.csv"
        if path.endswith("_rpeaks.csv") or not os.path.exists(peaks_path):
            continue
        name = os.path.basename(path)[:-4]
        header, data = read_csv(path)
        t, ppg = data[:, header.index("time_s")], data[:, header.index("ppg")]
        fs = (len(t) - 1) / (t[-1] - t[0])
        peaks = read_csv(peaks_path)[1][:, 0]
        out = subprocess.run([args.vitals, "heart-rate", path, "--column", "ppg", "--json"],
                             check=True, capture_output=True, text=True).stdout
        beats = json.loads(out)["beats"]
        stretches = clean_stretches(peaks, args.min_seconds)
        if not stretches:
            without.append(name)
        for start, end in stretches:
            inside = peaks[(peaks >= start) & (peaks <= end)]
            row = {"recording": name, "start_s": round(start, 2), "end_s": round(end, 2),
                   "ecg": measures(np.diff(inside) * 1000), "ecg_intervals": len(inside) - 1}
            kept = [b["ibi_ms"] for b in beats if start < b["time_s"] <= end and b["ibi_ms"] is not None
                    and not b["artifact"] and not b["ectopic"]]
            row["vitals"] = measures(kept)
            row["vitals_intervals"] = len(kept)
            part = (t >= start) & (t <= end)
            filtered = hp.filter_signal(ppg[part], cutoff=[0.7, 3.5], sample_rate=fs, order=3, filtertype="bandpass")
            try:
                working, theirs = hp.process(filtered, sample_rate=fs)
                row["heartpy"] = {m: float(theirs[m]) if np.isfinite(theirs[m]) else None for m in MEASURES}
                row["heartpy_intervals"] = int(len(working["RR_list_cor"]))
            except Exception as error:  # HeartPy gives up on some stretches
                row["heartpy"], row["heartpy_error"] = {m: None for m in MEASURES}, str(error)
            results.append(row)

    if args.json:
        print(json.dumps({"stretches": results, "no_clean_stretch": without}, indent=1))
        return
    fmt = lambda v: "-" if v is None else "%.2f" % v
    print("%-7s %-13s %-8s %8s %8s %8s %10s" % ("record", "clean ECG, s", "", *MEASURES, "intervals"))
    for row in results:
        span = "%.0f-%.0f" % (row["start_s"], row["end_s"])
        for who in ("ecg", "vitals", "heartpy"):
            count = row["ecg_intervals"] if who == "ecg" else row.get(who + "_intervals", "-")
            print("%-7s %-13s %-8s %8s %8s %8s %10s" % (row["recording"], span, who, *(fmt(row[who][m]) for m in MEASURES), count))
    for name in without:
        print("%-7s no stretch of %g s with every R-R interval within 20 %% of the one before" % (name, args.min_seconds))


if __name__ == "__main__":
    sys.exit(main())
