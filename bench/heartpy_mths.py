#!/usr/bin/env python3
"""HeartPy (and NeuroKit2, when installed) beside `vitals` on the MTHS fingertip recordings, window for window.

Issue 2 quotes HeartPy "with a 0.7-3.5 Hz band-pass on hue" for scale. This runs it: for each subject,
the hue of the frames' mean colour (HSV, as colorsys computes it) band-passed 0.7-3.5 Hz (order 3, as
HeartPy's docs do) over the whole recording, then `heartpy.process` on every window `vitals eval
fingertip` scores (the same starts, the same oximeter truths, taken from its JSON), and on the whole
recording for the subject's rate. NeuroKit2's `ppg_process` (its own cleaning and peaks) runs on the
same windows' hue turned over, its rate the mean of `PPG_Rate`: its peak finder looks for the
systolic peaks upward, and of hue, -hue, -red and -green, -hue served it best (within 5 bpm 31.5,
62.7, 50.7 and 57.8 % of answered windows; 2026-11-25). A window a peer raises on, or whose rate is not
finite, is not answered. Both sides are then summarised with the issue's measures (answered, within 5 bpm, median and
mean absolute error, half/double rates, subjects whose whole recording is within 5 bpm of the median
truth) and the agreement papers report (RMSE, Pearson r).

Needs numpy and heartpy (`pip install heartpy`); NeuroKit2 is optional (`pip install neurokit2`). Usage: bench/heartpy_mths.py [FOLDER] [--vitals PATH]
"""
import argparse, colorsys, json, math, os, subprocess, sys, warnings
import numpy as np


def summary(pairs, whole):
    """pairs: (answer or None, truth) per window; whole: (answer or None, truth) per subject."""
    answered = [(a, t) for a, t in pairs if a is not None]
    errors = np.array([abs(a - t) for a, t in answered])
    half_double = sum(1 for a, t in answered if abs(a / t - 0.5) <= 0.05 or abs(a / t - 2) <= 0.2)
    a, t = np.array([p[0] for p in answered]), np.array([p[1] for p in answered])
    scored_subjects = [(a_, t_) for a_, t_ in whole if t_ is not None and math.isfinite(t_)]
    return {
        "windows": len(pairs),
        "answered": len(answered) / max(1, len(pairs)),
        "within_5": float(np.mean(errors <= 5)) if len(errors) else float("nan"),
        "median_ae": float(np.median(errors)) if len(errors) else float("nan"),
        "mae": float(np.mean(errors)) if len(errors) else float("nan"),
        "rmse": float(np.sqrt(np.mean((a - t) ** 2))) if len(errors) else float("nan"),
        "pearson_r": float(np.corrcoef(a, t)[0, 1]) if len(errors) > 1 else float("nan"),
        "half_double": half_double / max(1, len(answered)),
        "subjects_within_5": sum(1 for a_, t_ in scored_subjects if a_ is not None and abs(a_ - t_) <= 5),
        "subjects": len(scored_subjects),
    }


def heartpy_rate(hp, signal, fs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, m = hp.process(signal, sample_rate=fs)
        bpm = m["bpm"]
        return float(bpm) if bpm is not None and math.isfinite(bpm) else None
    except Exception:
        return None


def neurokit_rate(nk, signal, fs):
    """NeuroKit2's `ppg_process` (its default cleaning and peak finder): the mean of its rate; None
    when it raises or finds no rate."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            signals, _ = nk.ppg_process(signal, sampling_rate=fs)
        bpm = float(np.nanmean(signals["PPG_Rate"]))
        return bpm if math.isfinite(bpm) else None
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", nargs="?", default="../shared/data/fingertip-mths")
    ap.add_argument("--vitals", default=".build/release/vitals")
    args = ap.parse_args()
    import heartpy as hp
    try:
        import neurokit2 as nk
    except ImportError:
        nk = None  # its row is left out
    doc = json.loads(subprocess.run([args.vitals, "eval", "fingertip", args.folder, "--json"],
                                    capture_output=True, text=True, check=True).stdout)
    ours, theirs, ours_whole, theirs_whole, nk_pairs, nk_whole = [], [], [], [], [], []
    for subject in doc["subjects"]:
        data = np.genfromtxt(os.path.join(args.folder, subject["name"] + ".csv"), delimiter=",", names=True)
        times = data["time_s"]
        fs = 1 / float(np.median(np.diff(times)))
        hue = np.array([colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)[0] for r, g, b in zip(data["r"], data["g"], data["b"])])
        filtered = hp.filter_signal(hue, cutoff=[0.7, 3.5], sample_rate=fs, order=3, filtertype="bandpass")
        for w in subject["window_results"]:
            inside = (times >= w["start_s"]) & (times < w["start_s"] + 10)
            ours.append((w["bpm"], w["truth_bpm"]))
            theirs.append((heartpy_rate(hp, filtered[inside], fs), w["truth_bpm"]))
            if nk:
                nk_pairs.append((neurokit_rate(nk, -hue[inside], fs), w["truth_bpm"]))
        truth = subject["truth_median_bpm"]
        ours_whole.append((subject["whole_bpm"], truth))
        theirs_whole.append((heartpy_rate(hp, filtered, fs), truth))
        if nk:
            nk_whole.append((neurokit_rate(nk, -hue, fs), truth))
    rows = [("vitals", summary(ours, ours_whole)), ("HeartPy (hue, 0.7-3.5 Hz)", summary(theirs, theirs_whole))]
    if nk:
        rows.append((f"NeuroKit2 {nk.__version__} (-hue)", summary(nk_pairs, nk_whole)))
    print(f"{'method':28} {'windows':>7} {'answered':>9} {'within 5':>9} {'median AE':>10} {'MAE':>7} {'RMSE':>7} {'r':>6} {'half/dbl':>9} {'subjects':>9}")
    for name, s in rows:
        print(f"{name:28} {s['windows']:7d} {100 * s['answered']:8.1f}% {100 * s['within_5']:8.1f}% {s['median_ae']:10.2f} "
              f"{s['mae']:7.2f} {s['rmse']:7.2f} {s['pearson_r']:6.3f} {100 * s['half_double']:8.1f}% "
              f"{s['subjects_within_5']:>4d}/{s['subjects']:<4d}")
    print(json.dumps({name: s for name, s in rows}))


if __name__ == "__main__":
    main()
