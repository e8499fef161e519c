#!/usr/bin/env python3
"""Memory of `vitals heart-rate` on long PPG files: 1 h and 6 h of 100 Hz PPG as CSV.

The CSV is read from disk a block at a time and the samples are read again when the analysis asks for
them, so what grows with the recording's length is the results (every 1-s update and every beat),
not the samples; `--json` writes its beats as it makes them. Measures the peak resident memory of
`vitals heart-rate FILE --column ppg` (text summary) and with `--json`, prints one JSON line per mode,
and fails when either grows by more than `--limit` MB per hour of recording. Needs numpy.
"""
import argparse, json, os, subprocess, sys, tempfile
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heartpy_e2e import synthetic  # the same synthetic PPG (no heartpy needed for it)

PEAK = ("import resource, subprocess, sys; "
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")

def peak_mb(command):
    """Peak resident memory of `command`, MB (a fresh process measures only it)."""
    out = subprocess.run([sys.executable, "-c", PEAK] + command, check=True, capture_output=True, text=True).stdout
    return int(out) / 1024

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vitals", nargs="?", default=".build/release/vitals")
    ap.add_argument("--limit", type=float, default=3.0, help="largest growth of the memory, MB per hour")
    args = ap.parse_args()
    hours = (1, 6)
    with tempfile.TemporaryDirectory() as d:
        paths = {}
        for h in hours:
            t, x, _ = synthetic(seconds=3600 * h)
            paths[h] = os.path.join(d, f"ppg-{h}h-100hz.csv")
            np.savetxt(paths[h], np.column_stack([t, x]), delimiter=",", header="time_s,ppg", comments="", fmt="%.5f")
        failed = False
        for mode, extra in (("text", []), ("json", ["--json"])):
            mb = {h: peak_mb([args.vitals, "heart-rate", paths[h], "--column", "ppg"] + extra) for h in hours}
            per_hour = (mb[6] - mb[1]) / 5
            print(json.dumps({"name": f"heart-rate-csv-memory-{mode}", "peak_mb_1h": round(mb[1], 1),
                              "peak_mb_6h": round(mb[6], 1), "growth_mb_per_hour": round(per_hour, 2),
                              "file_mb_per_hour": round(os.path.getsize(paths[1]) / 2**20, 1)}))
            if per_hour > args.limit:
                print(f"FAIL: with the {mode} output, memory grows {per_hour:.1f} MB per hour of recording (limit {args.limit})")
                failed = True
    sys.exit(1 if failed else 0)

if __name__ == "__main__":
    main()
