#!/usr/bin/env python3
"""Beats of a finger PPG against its ECG's R-peaks: `vitals`, HeartPy and NeuroKit2 scored the same way.

For each NAME.csv (time_s, an ECG column, ppg) with NAME_rpeaks.csv in the folder (laid out like
../shared/data/ppg-ecg):
- vitals: the beats of `vitals heart-rate NAME.csv --column ppg --json` (every beat, flagged or not);
- HeartPy 1.2: `process` on the PPG band-passed 0.7-3.5 Hz (order 3, as its docs do), the peaks it
  keeps (`peaklist` less `removed_beats`);
- NeuroKit2 (when installed): `ppg_process` (its own cleaning and peak finder), `PPG_Peaks`.
Each set of beat times is scored by one scorer, as `vitals eval beats` scores (its span rules at the
recording's ends aside): the pulse arrival delay is the one in 0-0.8 s (5-ms steps) that puts the
most beats within 150 ms after an R-peak, refined to their median lag; each beat, shifted back by
it, matches the nearest unmatched R-peak within 150 ms. Sensitivity and PPV, and for consecutive
matched beats whose R-peaks are consecutive too, |IBI - RR|: median, 90th percentile and RMS (ms).
Issue 2 quotes NeuroKit2's RMSE as 18.5 ms and HeartPy's as 27 ms on a103l.

The R-peaks are one detector's (wfdb's XQRS), not hand-checked, and where the ECG is noisy they are
wrong (a103l after 263 s: R-R intervals of 0.3-0.9 s under a steady pulse). With NeuroKit2 installed,
each recording is scored a second time where the reference can be trusted, judged the way PPG-beats
(Charlton et al., Physiol Meas 2022) judges its ECG reference: a second, independent ECG detector
(NeuroKit2's `ecg_clean` + `ecg_peaks`) runs on the same ECG, and a 20-s window (every 15 s) is
trusted when it holds R-peaks and every beat of each detector has one of the other's within 150 ms
(after the detectors' median offset, as they may mark different points of the QRS). Sensitivity
then counts the R-peaks in trusted time, PPV the beats whose shifted time falls in it; the pulse
arrival delay is the whole recording's.

Needs numpy and heartpy; NeuroKit2 optional. Usage: bench/beats_peers.py [FOLDER] [--vitals PATH] [--until S]
"""
import argparse, glob, json, math, os, subprocess, warnings
import numpy as np

TOLERANCE = 0.15


def score(beats, rpeaks, trusted=None, delay=None):
    """Beats against R-peaks. `trusted`: (start, end) spans, s; when given, sensitivity counts only the
    R-peaks inside them and PPV only the beats that fall inside them once shifted back by `delay`."""
    beats, rpeaks = np.sort(np.asarray(beats, float)), np.asarray(rpeaks, float)
    if len(beats) == 0:
        return None

    def nearest(s):
        i = np.searchsorted(rpeaks, s)
        i = np.clip(i, 1, len(rpeaks) - 1)
        left, right = rpeaks[i - 1], rpeaks[i]
        return np.where(s - left < right - s, left, right)

    def lags(d):
        r = nearest(beats - d)
        ok = (np.abs(r - (beats - d)) <= TOLERANCE) & (r <= beats)
        return beats[ok] - r[ok]

    if delay is None:
        counts = [(len(lags(step * 0.005)), step * 0.005) for step in range(161)]
        best = max(counts, key=lambda c: (c[0], -c[1]))[1]
        found = lags(best)
        delay = float(np.median(found)) if len(found) else best
    used, match = set(), {}
    for i, t in enumerate(beats):
        k = int(np.argmin(np.abs(rpeaks - (t - delay))))
        if abs(rpeaks[k] - (t - delay)) <= TOLERANCE and k not in used:
            used.add(k)
            match[i] = k
    errors = [abs((beats[i + 1] - beats[i]) - (rpeaks[match[i + 1]] - rpeaks[match[i]])) * 1000
              for i in range(len(beats) - 1) if i in match and i + 1 in match and match[i + 1] == match[i] + 1]
    inside_r, inside_b = np.ones(len(rpeaks), bool), np.ones(len(beats), bool)
    if trusted is not None:
        inside_r, inside_b = within(rpeaks, trusted), within(beats - delay, trusted)
        errors = [e for e, i in zip(errors, [i for i in range(len(beats) - 1) if i in match and i + 1 in match
                                             and match[i + 1] == match[i] + 1]) if inside_b[i] and inside_b[i + 1]]
    errors = np.array(errors)
    return {"beats": int(inside_b.sum()), "r_peaks": int(inside_r.sum()), "delay_ms": round(delay * 1000), "delay_s": delay,
            "sensitivity": sum(1 for k in used if inside_r[k]) / max(1, inside_r.sum()),
            "ppv": sum(1 for i in match if inside_b[i]) / max(1, inside_b.sum()),
            "ibi_median_ms": float(np.median(errors)) if len(errors) else math.nan,
            "ibi_p90_ms": float(np.percentile(errors, 90)) if len(errors) else math.nan,
            "ibi_rms_ms": float(np.sqrt(np.mean(errors ** 2))) if len(errors) else math.nan}


def within(times, spans):
    """Whether each of `times` lies in one of the (start, end) `spans`."""
    times = np.asarray(times, float)
    return np.array([any(a <= x <= b for a, b in spans) for x in times], bool) if len(times) else np.zeros(0, bool)


def trusted_spans(t, ecg, rpeaks, nk, window=20.0, step=15.0, tolerance=TOLERANCE):
    """The (start, end) spans, s, where a second ECG detector (NeuroKit2) agrees with the R-peaks: the
    20-s windows (every 15 s) that hold R-peaks and where every beat of each has one of the other's
    within `tolerance` after their median offset; adjacent windows merge."""
    fs = 1 / float(np.median(np.diff(t)))
    _, info = nk.ecg_peaks(nk.ecg_clean(ecg, sampling_rate=fs), sampling_rate=fs)
    other = t[np.asarray(info["ECG_R_Peaks"], int)]
    if len(other) == 0 or len(rpeaks) == 0:
        return []
    offsets = np.array([other[np.argmin(np.abs(other - r))] - r for r in rpeaks])
    near = offsets[np.abs(offsets) < 0.3]
    other = other - (float(np.median(near)) if len(near) else 0.0)
    alone = [x for x in rpeaks if np.min(np.abs(other - x)) > tolerance] + \
            [x for x in other if np.min(np.abs(rpeaks - x)) > tolerance]
    spans, start = [], float(t[0])
    while start + window <= t[-1]:
        end = start + window
        if not any(start <= x <= end for x in alone) and np.any((rpeaks >= start) & (rpeaks <= end)):
            if spans and spans[-1][1] >= start:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        start += step
    return spans


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", nargs="?", default="../shared/data/ppg-ecg")
    ap.add_argument("--vitals", default=".build/release/vitals")
    ap.add_argument("--until", type=float, default=None,
                    help="score only beats and R-peaks before this time, s (a103l's ECG turns noisy at 259 s)")
    args = ap.parse_args()
    import heartpy as hp
    try:
        import neurokit2 as nk
    except ImportError:
        nk = None
    print(f"{'record':8} {'method':28} {'beats':>6} {'R-peaks':>8} {'delay':>6} {'sens':>7} {'PPV':>7} {'IBI med':>8} {'p90':>7} {'RMS':>7}")
    results = {}
    for path in sorted(glob.glob(os.path.join(args.folder, "*.csv"))):
        name = os.path.basename(path)[:-4]
        peaks_path = os.path.join(args.folder, name + "_rpeaks.csv")
        if name.endswith("_rpeaks") or not os.path.exists(peaks_path):
            continue
        data = np.genfromtxt(path, delimiter=",", names=True)
        t, ppg = data["time_s"], data["ppg"]
        fs = 1 / float(np.median(np.diff(t)))
        rpeaks = np.genfromtxt(peaks_path, delimiter=",", names=True)["time_s"]
        doc = json.loads(subprocess.run([args.vitals, "heart-rate", path, "--column", "ppg", "--json"],
                                        capture_output=True, text=True, check=True).stdout)
        methods = {"vitals": [t[0] + b["time_s"] for b in doc["beats"]]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            filtered = hp.filter_signal(ppg, cutoff=[0.7, 3.5], sample_rate=fs, order=3, filtertype="bandpass")
            wd, _ = hp.process(filtered, sample_rate=fs)
            removed = set(wd["removed_beats"])
            methods["HeartPy 1.2"] = [t[i] for i in wd["peaklist"] if i not in removed]
            if nk:
                _, info = nk.ppg_process(ppg, sampling_rate=fs)
                methods[f"NeuroKit2 {nk.__version__}"] = [t[i] for i in info["PPG_Peaks"]]
        if args.until is not None:
            rpeaks = rpeaks[rpeaks < args.until]
            methods = {m: [b for b in beats if b < args.until] for m, beats in methods.items()}
        spans = None
        if nk:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ecg_column = [c for c in data.dtype.names if c.startswith("ecg")]
                spans = trusted_spans(t, data[ecg_column[0]], rpeaks, nk) if ecg_column else None
        for method, beats in methods.items():
            s = score(beats, rpeaks)
            results.setdefault(name, {})[method] = s
            print(f"{name:8} {method:28} {s['beats']:6d} {s['r_peaks']:8d} {s['delay_ms']:5d}ms {100 * s['sensitivity']:6.1f}% "
                  f"{100 * s['ppv']:6.1f}% {s['ibi_median_ms']:8.1f} {s['ibi_p90_ms']:7.1f} {s['ibi_rms_ms']:7.1f}")
        if spans is not None:
            trusted = sum(b - a for a, b in spans)
            print(f"{name:8} where a second ECG detector agrees with the R-peaks: {trusted:.0f} of {t[-1] - t[0]:.0f} s "
                  f"({', '.join(f'{a:.0f}-{b:.0f} s' for a, b in spans) or 'nowhere'})")
            for method, beats in methods.items():
                if not spans:
                    break
                s = score(beats, rpeaks, trusted=spans, delay=results[name][method]["delay_s"])
                results[name][method + ", trusted reference"] = s
                print(f"{name:8} {method + ', trusted':28} {s['beats']:6d} {s['r_peaks']:8d} {s['delay_ms']:5d}ms {100 * s['sensitivity']:6.1f}% "
                      f"{100 * s['ppv']:6.1f}% {s['ibi_median_ms']:8.1f} {s['ibi_p90_ms']:7.1f} {s['ibi_rms_ms']:7.1f}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
