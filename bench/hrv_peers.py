#!/usr/bin/env python3
"""HRV from the same beats three ways: `vitals hrv`, HeartPy's `process_rr` and NeuroKit2's `hrv_time`.

The beat detector is out of the comparison: every method gets the same beat times, so what differs is
how intervals are measured and how artefacts are handled. Two kinds of input:

- Generated rhythms with a known answer: 600 beats at about 70 bpm with a breathing swing (0.25 Hz),
  a slower wave (0.1 Hz) and beat-to-beat noise; the truth is SDNN, RMSSD and pNN50 of the clean
  intervals. Then the same rhythm with artefacts a real recording has: 2 % premature beats (a short
  and a long interval), 1 % missed beats (two intervals as one) and 1 % extra beats (one interval
  split in two). Ten seeds each; the table gives each method's median and worst error against the
  clean truth.
- Every measure HeartPy names, on the clean rhythms: `vitals hrv` against HeartPy's
  `process_rr(rr, calc_freq=True)` on the same intervals (the names are HeartPy's so that users can
  compare directly; this says how directly). Worst relative difference over the seeds per measure.
- ECG R-peaks (`../shared/data/ppg-ecg/*_rpeaks.csv`, found by a reference detector and not
  hand-checked; v102s has many ectopic beats): the three methods' figures side by side.

Each method runs as its documentation shows, once as it is and once with its own artefact handling:
  vitals     `vitals hrv FILE --json` (its correction is always on: out-of-range intervals, the 20 %
             rule against the local median, short-long pairs);
  HeartPy    `process_rr(rr)`, and with `clean_rr=True` (its quotient filter);
  NeuroKit2  `hrv_time(peaks)`, and after `signal_fixpeaks(peaks, method="Kubios")`.
Needs numpy, heartpy and neurokit2 (pip install heartpy neurokit2); a peer that cannot be imported
is left out. Prints a table, or one JSON document with --json.
Usage: bench/hrv_peers.py [--vitals PATH] [--data FOLDER] [--seeds N] [--json]
"""
import argparse, glob, json, os, subprocess, sys, tempfile, warnings
import numpy as np

warnings.filterwarnings("ignore")
MEASURES = ["sdnn", "rmssd", "pnn50"]


def truth(rr):
    d = np.diff(rr)
    return {"sdnn": float(np.std(rr)), "rmssd": float(np.sqrt(np.mean(d ** 2))), "pnn50": float(np.mean(np.abs(d) > 50))}


def rhythm(seed, beats=600):
    """Intervals (ms) of a sinus rhythm: breathing and Mayer waves plus beat-to-beat noise."""
    rng = np.random.default_rng(seed)
    rr = np.empty(beats)
    t = 0.0
    for i in range(beats):
        rr[i] = 860 + 35 * np.sin(2 * np.pi * 0.25 * t) + 20 * np.sin(2 * np.pi * 0.1 * t + 1) + rng.normal(0, 8)
        t += rr[i] / 1000
    return rr


def corrupt(rr, seed):
    """The beat times of `rr` with premature, missed and extra beats."""
    rng = np.random.default_rng(seed + 1000)
    times = list(np.concatenate([[0.0], np.cumsum(rr)]) / 1000 + 5)
    n = len(times)
    picks = rng.permutation(np.arange(5, n - 5))
    premature, missed, extra = picks[: n // 50], picks[n // 50: n // 50 + n // 100], picks[n // 50 + n // 100: n // 50 + n // 50]
    out = []
    for i, t in enumerate(times):
        if i in missed:
            continue
        if i in premature:
            t = t - 0.3 * (times[i] - times[i - 1])
        out.append(t)
        if i in extra and i + 1 < n:
            out.append(t + 0.45 * (times[i + 1] - t))
    return np.array(sorted(out))


def run_vitals(binary, times, measures=MEASURES):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("time_s\n" + "\n".join(f"{t:.6f}" for t in times) + "\n")
        path = f.name
    try:
        out = subprocess.run([binary, "hrv", path, "--json"], capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(path)
    hrv = json.loads(out)["hrv"] or {}
    return {m: hrv.get(m) for m in measures}


def heartpy_agreement(hp, binary, seeds):
    """Worst relative difference, vitals against HeartPy, of every measure HeartPy's process_rr
    reports, on the clean rhythms (beat times written with microseconds; HeartPy gets their intervals)."""
    if not hasattr(np, "trapz"):
        np.trapz = np.trapezoid  # HeartPy 1.2 calls np.trapz, which numpy 2.4 removed
    worst = {}
    for seed in range(seeds):
        times = np.round(np.concatenate([[0.0], np.cumsum(rhythm(seed))]) / 1000 + 5, 6)
        _, theirs = hp.process_rr(list(np.diff(times) * 1000), calc_freq=True)
        ours = run_vitals(binary, times, list(theirs))
        for name, value in theirs.items():
            v = ours.get(name)
            d = np.inf if v is None else (0.0 if v == value else abs(v - value) / max(abs(value), 1e-12))
            worst[name] = max(worst.get(name, 0.0), d)
    return worst


def run_heartpy(hp, times, clean):
    rr = list(np.diff(times) * 1000)
    _, m = hp.process_rr(rr, clean_rr=clean)
    return {k: float(m[k]) for k in MEASURES}


def run_neurokit(nk, times, fix):
    peaks = np.round(np.asarray(times) * 1000).astype(int)
    if fix:
        _, peaks = nk.signal_fixpeaks(peaks, sampling_rate=1000, method="Kubios")
    h = nk.hrv_time(peaks, sampling_rate=1000)
    return {"sdnn": float(h["HRV_SDNN"].iloc[0]), "rmssd": float(h["HRV_RMSSD"].iloc[0]), "pnn50": float(h["HRV_pNN50"].iloc[0]) / 100}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vitals", default=".build/release/vitals")
    ap.add_argument("--data", default="../shared/data/ppg-ecg")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    methods = [("vitals", lambda t: run_vitals(a.vitals, t))]
    try:
        import heartpy as hp
        methods += [("HeartPy", lambda t: run_heartpy(hp, t, False)), ("HeartPy clean_rr", lambda t: run_heartpy(hp, t, True))]
    except ImportError:
        print("heartpy not installed: left out", file=sys.stderr)
    try:
        import neurokit2 as nk
        methods += [("NeuroKit2", lambda t: run_neurokit(nk, t, False)), ("NeuroKit2 fixpeaks", lambda t: run_neurokit(nk, t, True))]
    except ImportError:
        print("neurokit2 not installed: left out", file=sys.stderr)

    # Generated rhythms: relative error of each measure against the clean intervals' (pNN50: difference).
    generated = {}
    for case in ["clean", "artefacts"]:
        errors = {name: {m: [] for m in MEASURES} for name, _ in methods}
        for seed in range(a.seeds):
            rr = rhythm(seed)
            want = truth(rr)
            times = np.concatenate([[0.0], np.cumsum(rr)]) / 1000 + 5 if case == "clean" else corrupt(rr, seed)
            for name, fn in methods:
                got = fn(times)
                for m in MEASURES:
                    v = got[m]
                    e = np.nan if v is None else (v - want[m] if m == "pnn50" else (v - want[m]) / want[m])
                    errors[name][m].append(e)
        generated[case] = {name: {m: {"median": float(np.nanmedian(np.abs(e))), "worst": float(np.nanmax(np.abs(e)))}
                                  for m, e in errs.items()} for name, errs in errors.items()}

    agreement = {}
    if any(name == "HeartPy" for name, _ in methods):
        agreement = heartpy_agreement(hp, a.vitals, a.seeds)

    recordings = {}
    for path in sorted(glob.glob(os.path.join(a.data, "*_rpeaks.csv"))):
        times = np.loadtxt(path, delimiter=",", skiprows=1)
        recordings[os.path.basename(path).replace("_rpeaks.csv", "")] = {name: fn(times) for name, fn in methods}

    if a.json:
        print(json.dumps({"generated": generated, "heartpy_agreement": agreement, "recordings": recordings}, indent=1))
        return
    print(f"Generated rhythms ({a.seeds} seeds, 600 beats): |error| against the clean intervals' truth,")
    print("median / worst (SDNN and RMSSD relative, pNN50 as a difference of fractions)")
    for case, rows in generated.items():
        print(f"\n{case:<20} {'SDNN':>16} {'RMSSD':>16} {'pNN50':>16}")
        for name, r in rows.items():
            cells = [f"{100 * r[m]['median']:6.1f} / {100 * r[m]['worst']:5.1f} %" if m != "pnn50"
                     else f"{r[m]['median']:6.3f} / {r[m]['worst']:5.3f}" for m in MEASURES]
            print(f"{name:<20} " + " ".join(f"{c:>16}" for c in cells))
    if agreement:
        print(f"\nEvery measure HeartPy reports, clean rhythms: worst |vitals - HeartPy| / |HeartPy| over {a.seeds} seeds")
        cells = [f"{name} {'absent' if d == np.inf else f'{100 * d:.2f} %'}" for name, d in agreement.items()]
        for start in range(0, len(cells), 6):
            print("  " + "   ".join(cells[start:start + 6]))
    if recordings:
        print("\nECG R-peaks (reference detector, not hand-checked): SDNN / RMSSD ms, pNN50")
        for rec, rows in recordings.items():
            for name, r in rows.items():
                f = lambda v, p: "-" if v is None else f"{v:.{p}f}"
                print(f"{rec:<8} {name:<20} {f(r['sdnn'], 1):>8} {f(r['rmssd'], 1):>8} {f(r['pnn50'], 3):>8}")


if __name__ == "__main__":
    main()
