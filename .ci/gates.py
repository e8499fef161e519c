#!/usr/bin/env python3
"""Evaluation gates: runs `vitals eval ...` / `vitals bench` on ../shared/data, prints every measured
figure next to the issue's target and next to the floor CI enforces, and exits 1 when a figure falls
below its floor.

Floors hold what the toolkit has been measured to reach (so a change that makes it worse fails CI);
targets are the figures the issues ask for. Where a target is not met yet, the issue stays open and
the line says so: the floor is never set above what was measured, and never silently lowered.
"""
import json, os, subprocess, sys

VITALS = os.environ.get("VITALS", ".build/release/vitals")
DATA = os.environ.get("VITALS_DATA", "../shared/data")

def run_json(args):
    out = subprocess.run([VITALS] + args + ["--json"], capture_output=True, text=True)
    if out.returncode not in (0, 1) or not out.stdout.strip():
        raise RuntimeError(f"vitals {' '.join(args)} failed: {out.stderr.strip()[:400]}")
    return json.loads(out.stdout)

def get(doc, path):
    for key in path:
        if isinstance(key, str) and key.startswith("name="):
            doc = next(x for x in doc if x.get("name") == key[5:])
        else:
            doc = doc[key]
    return doc

# (label, command args, path into its JSON, "min" or "max", floor, issue target)
GATES = [
    ("MTHS answered fraction", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "answered_fraction"], "min", 0.83, 0.85),
    ("MTHS within 5 bpm of answered", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "within_5_fraction"], "min", 0.85, 0.85),
    ("MTHS median abs error (bpm)", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "median_ae_bpm"], "max", 2.0, 2.0),
    ("MTHS MAE (bpm)", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "mae_bpm"], "max", 4.4, 4.0),
    ("MTHS subjects within 5 bpm", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "subjects_within_5"], "min", 35, 36),
    ("MTHS half/double windows", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "half_double_fraction"], "max", 0.04, 0.02),
    ("a103l beat sensitivity", ["eval", "beats", f"{DATA}/ppg-ecg"], ["recordings", "name=a103l", "sensitivity"], "min", 0.95, 0.97),
    ("a103l beat PPV", ["eval", "beats", f"{DATA}/ppg-ecg"], ["recordings", "name=a103l", "ppv"], "min", 0.95, 0.97),
    ("a103l IBI median error (ms)", ["eval", "beats", f"{DATA}/ppg-ecg"], ["recordings", "name=a103l", "ibi_median_error_ms"], "max", 5.0, 5.0),
    ("a103l IBI p90 error (ms)", ["eval", "beats", f"{DATA}/ppg-ecg"], ["recordings", "name=a103l", "ibi_p90_error_ms"], "max", 15.0, 15.0),
    ("fingertip videos within 5 bpm (of 7)", ["eval", "video", f"{DATA}/fingertip-video"], ["overall", "within_5"], "min", 4, 6),
    ("live pipeline per frame (ns)", ["bench", "--filter", "pulse-stream"], ["benchmarks", "name=pulse-stream-per-frame-30fps", "ns_per_op"], "max", 2000, 2000),
    ("PPG batch 1 h at 100 Hz (samples/s)", ["bench", "--filter", "ppg-batch"], ["benchmarks", "name=ppg-batch-1h-100hz", "samples_per_s"], "min", 1.0e6, 50e6),
]

def main():
    cache, failed = {}, []
    print(f"{'figure':42} {'measured':>12} {'floor':>10} {'target':>10}  status")
    for label, args, path, kind, floor, target in GATES:
        key = tuple(args)
        try:
            if key not in cache:
                cache[key] = run_json(args)
            value = float(get(cache[key], path))
        except Exception as e:  # a command that fails is a failed gate, with its reason
            print(f"{label:42} {'error':>12} {floor:>10} {target:>10}  FAIL ({e})")
            failed.append(label)
            continue
        ok_floor = value >= floor if kind == "min" else value <= floor
        ok_target = value >= target if kind == "min" else value <= target
        status = "target met" if ok_target else ("below target (floor holds)" if ok_floor else "FAIL: below floor")
        print(f"{label:42} {value:12.4g} {floor:>10} {target:>10}  {status}")
        if not ok_floor:
            failed.append(label)
    if failed:
        print(f"\n{len(failed)} gate(s) below their floor: " + "; ".join(failed))
        sys.exit(1)
    print("\nall floors hold")

if __name__ == "__main__":
    main()
