#!/usr/bin/env python3
"""An hour of PPG as CSV, end to end: HeartPy (load + band-pass + process) vs `vitals heart-rate`.

Writes a synthetic 1-hour, 100 Hz PPG (72 bpm with slow variation, dicrotic wave, wander, noise) to a
temporary CSV, times HeartPy 1.2.x on it and the vitals command on the same file (best of --rounds
each), checks both report the right rate, and prints one JSON line with the ratio. Needs numpy and
heartpy (`pip install heartpy`).
"""
import argparse, json, os, subprocess, sys, tempfile, time
import numpy as np

def synthetic(seconds=3600, fs=100.0, seed=7):
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * fs)) / fs
    bpm = 72 + 6 * np.sin(2 * np.pi * t / 60)
    phase = np.cumsum(bpm / 60 / fs)
    p = phase - np.floor(phase)
    x = np.exp(-((p - 0.2) / 0.07) ** 2) + 0.35 * np.exp(-((p - 0.5) / 0.08) ** 2)
    x += 0.3 * np.sin(2 * np.pi * 0.25 * t) + rng.normal(0, 0.015, t.size)
    return t, x, float(np.mean(bpm))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vitals", default=".build/release/vitals")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    import heartpy as hp
    t, x, true_bpm = synthetic()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ppg-1h-100hz.csv")
        np.savetxt(path, np.column_stack([t, x]), delimiter=",", header="time_s,ppg", comments="", fmt="%.5f")
        hp_best, hp_bpm = float("inf"), None
        for _ in range(args.rounds):
            start = time.perf_counter()
            data = hp.get_data(path, column_name="ppg")
            filtered = hp.filter_signal(data, cutoff=[0.7, 3.5], sample_rate=100.0, order=3, filtertype="bandpass")
            _, m = hp.process(filtered, sample_rate=100.0)
            hp_best = min(hp_best, time.perf_counter() - start)
            hp_bpm = m["bpm"]
        v_best, v_bpm = float("inf"), None
        for _ in range(args.rounds):
            start = time.perf_counter()
            out = subprocess.run([args.vitals, "heart-rate", path, "--column", "ppg", "--json"],
                                 check=True, capture_output=True, text=True).stdout
            v_best = min(v_best, time.perf_counter() - start)
            v_bpm = json.loads(out)["heart_rate"]["bpm"]
    result = {"name": "ppg-csv-1h-end-to-end", "true_bpm": round(true_bpm, 2),
              "heartpy_s": round(hp_best, 3), "heartpy_bpm": round(hp_bpm, 2),
              "vitals_s": round(v_best, 3), "vitals_bpm": v_bpm, "speedup": round(hp_best / v_best, 1)}
    print(json.dumps(result))
    # Issue 2 asks for at least 20x; CI's floor is 15x (both sides are timed on a shared machine).
    target, floor = 20.0, 15.0
    speedup = result["speedup"]
    print(f"speedup {speedup}x: " + ("target met" if speedup >= target else
          ("below target (floor holds)" if speedup >= floor else "FAIL: below floor")))
    # Both must get the rate right: a peer that took a wrong or degenerate path would set the ratio
    # with work that does not count.
    rates_right = v_bpm is not None and abs(v_bpm - true_bpm) <= 2 and abs(hp_bpm - true_bpm) <= 2
    if not rates_right:
        print(f"FAIL: rates off the true {true_bpm:.1f} bpm (vitals {v_bpm}, HeartPy {hp_bpm:.2f})")
    ok = rates_right and speedup >= floor
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    main()
