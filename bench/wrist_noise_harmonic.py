#!/usr/bin/env python3
"""Does a wrist PPG hold a pulse at all? A study of one cue, tried and not built into the tracker.

`vitals heart-rate --motion` answers most windows of noise put in place of the PPG (README, "Wrist
PPG while running"). The cue studied here: the prominence of the PPG's spectrum at twice the rate the
tracker reports (the pulse's second harmonic), against the spectrum's median within 0.6 Hz of it
(outside 0.2 Hz). Noise has no harmonic; a pulse usually has one.

For each SPC 2015 recording (NAME.csv with NAME_bpm.csv, laid out like ../shared/data/wrist-ppg-spc2015),
and for white, pink and brown noise put in place of both PPG columns beside the first six recordings'
own accelerometers (seeded), it runs `vitals heart-rate NAME.csv --column ppg1,ppg2 --motion
acc_x,acc_y,acc_z --rate 125 --json` and, for each answered window, the cue on ppg1 (band-passed
0.5-8 Hz, Hann window, 8192-point spectrum). It prints, per recording, the median cue over the
recording (log10) and what a live rule would decline: windows where the median cue of the last
--history windows is under --threshold, with the real windows' errors against the truth.

Measured 2026-11-25: the whole-recording medians separate the 13 recordings (0.67-1.68) from the 18
noise files (0.16-0.37); the live rule with 30 windows (60 s) under 0.45 declines 93 % of the noise
windows and 2.1 % of the real ones (nearly all in DATA_10's first minutes, answers 2-3 bpm off), which
would cost the wrist gate's answered share (0.94) and good answers; so it was not built.

Needs numpy and scipy. Usage: bench/wrist_noise_harmonic.py [FOLDER] [--vitals PATH] [--history N] [--threshold T]
"""
import argparse, glob, json, os, subprocess, sys, tempfile
import numpy as np
from scipy.signal import butter, sosfiltfilt

RATE = 125.0


def noise_files(recordings, folder):
    rng = np.random.default_rng(7)
    made = []
    for path in recordings[:6]:
        d = np.genfromtxt(path, delimiter=",", names=True)
        n = len(d)
        name = os.path.basename(path)[:-4]
        for kind in ("white", "pink", "brown"):
            columns = []
            for _ in range(2):
                w = rng.standard_normal(n)
                if kind == "brown":
                    w = np.cumsum(w)
                elif kind == "pink":
                    f = np.fft.rfftfreq(n, 1 / RATE)
                    f[0] = f[1]
                    w = np.fft.irfft(np.fft.rfft(w) / np.sqrt(f), n)
                columns.append(100 * w)
            out = os.path.join(folder, f"{name}_{kind}.csv")
            with open(out, "w") as o:
                o.write("ppg1,ppg2,acc_x,acc_y,acc_z\n")
                for i in range(n):
                    o.write("%.3f,%.3f,%.4f,%.4f,%.4f\n" % (columns[0][i], columns[1][i], d["acc_x"][i], d["acc_y"][i], d["acc_z"][i]))
            made.append(out)
    return made


def windows(vitals, path):
    """(start_s, bpm or None, log10 cue or NaN) for each window of the tracker."""
    out = subprocess.run([vitals, "heart-rate", path, "--column", "ppg1,ppg2", "--motion", "acc_x,acc_y,acc_z",
                          "--rate", str(RATE), "--json"], capture_output=True, text=True, check=True).stdout
    data = np.genfromtxt(path, delimiter=",", names=True)
    x = sosfiltfilt(butter(4, [0.5, 8], btype="band", fs=RATE, output="sos"), data["ppg1"] - data["ppg1"].mean())
    freq = np.fft.rfftfreq(8192, 1 / RATE)
    rows = []
    for w in json.loads(out)["windows"]:
        if w["bpm"] is None:
            rows.append((w["start_s"], None, np.nan))
            continue
        a, b = int(round(w["start_s"] * RATE)), int(round(w["end_s"] * RATE))
        power = np.abs(np.fft.rfft(x[a:b] * np.hanning(b - a), 8192)) ** 2
        f = 2 * w["bpm"] / 60
        peak = power[(freq > f - 0.1) & (freq < f + 0.1)].max()
        around = (freq > f - 0.6) & (freq < f + 0.6) & ~((freq > f - 0.2) & (freq < f + 0.2))
        rows.append((w["start_s"], w["bpm"], np.log10(peak / np.median(power[around]))))
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("folder", nargs="?", default="../shared/data/wrist-ppg-spc2015")
    p.add_argument("--vitals", default=".build/release/vitals")
    p.add_argument("--history", type=int, default=30, help="windows the live rule looks back over (2 s each)")
    p.add_argument("--threshold", type=float, default=0.45, help="log10 of the cue under which the rule declines")
    a = p.parse_args()
    recordings = sorted(f for f in glob.glob(os.path.join(a.folder, "DATA_*.csv")) if not f.endswith("_bpm.csv"))
    if not recordings:
        sys.exit(f"{a.folder}: no DATA_*.csv recordings")
    totals = {"real": [0, 0], "noise": [0, 0]}
    with tempfile.TemporaryDirectory() as tmp:
        for path in recordings + noise_files(recordings, tmp):
            rows = windows(a.vitals, path)
            truth_path = path[:-4] + "_bpm.csv"
            truth = {}
            if os.path.exists(truth_path):
                t = np.genfromtxt(truth_path, delimiter=",", names=True)
                truth = {round(s): v for s, v in zip(t["window_start_s"], t["bpm"])}
            cue = np.array([r[2] for r in rows])
            answered = declined = 0
            errors = []
            for i, (start, bpm, _) in enumerate(rows):
                if bpm is None:
                    continue
                answered += 1
                past = cue[max(0, i - a.history + 1):i + 1]
                if np.median(past[~np.isnan(past)]) < a.threshold:
                    declined += 1
                    if round(start) in truth:
                        errors.append(abs(bpm - truth[round(start)]))
            kind = "real" if truth else "noise"
            totals[kind][0] += answered
            totals[kind][1] += declined
            print("%-28s %-5s median cue %5.2f  answered %3d  the rule declines %3d%s" % (
                os.path.basename(path), kind, np.nanmedian(cue), answered, declined,
                "  (their mean error %.1f bpm)" % np.mean(errors) if errors else ""))
    for kind, (answered, declined) in totals.items():
        print(f"{kind}: the rule declines {declined} of {answered} answered windows ({100 * declined / max(1, answered):.1f} %)")


if __name__ == "__main__":
    main()
