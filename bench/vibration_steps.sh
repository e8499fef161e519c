#!/usr/bin/env bash
# Steps `vitals steps` counts on a phone lying still and shaken along gravity by 0.3 g for a minute
# (no walk: the right count is 0), at 4-15 Hz, sampled exactly at 50 and 100 Hz; on two minutes of
# random shaking (white noise of 0.1-0.5 g RMS on each axis; 0); and on a generated run at 3-4.5
# steps a second (the right count is printed beside it), for each binary given.
# Usage: bench/vibration_steps.sh [VITALS_BINARY ...]   (needs python3)
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import math, random, sys
out = sys.argv[1]
def write(name, fs, seconds, accel):
    with open(f"{out}/{name}.csv", "w") as f:
        f.write("time,acc_x,acc_y,acc_z\n")
        for i in range(int(seconds * fs)):
            t = i / fs
            x, y, z = accel(t)
            f.write(f"{t:.5f},{x:.6f},{y:.6f},{z:.6f}\n")
for fs in (50, 100):
    for hz in (4, 5, 6, 7, 8, 10, 12, 15):
        if hz < fs / 2:
            def shake(t, hz=hz):
                m = 1 + 0.3 * math.sin(2 * math.pi * hz * t)
                return 0.05 * m, 0.1 * m, 0.99 * m
            write(f"vibration-{hz:02d}Hz-at-{fs}Hz-expect-0", fs, 60, shake)
    for rms in (0.1, 0.2, 0.5):
        noise = random.Random(int(rms * 1000) + fs)
        write(f"noise-{rms}g-at-{fs}Hz-expect-0", fs, 120,
              lambda t: (noise.gauss(0, rms), noise.gauss(0, rms), 1 + noise.gauss(0, rms)))
    for rate in (3.0, 3.5, 4.0, 4.5):
        contacts = [5 + k / rate for k in range(int(50 * rate))]
        def run(t, rate=rate, contacts=contacts):
            v = 0.0
            for k, c in enumerate(contacts[max(0, int((t - 5.5) * rate)):int((t - 4.5) * rate) + 2]):
                d = t - c
                v += 0.8 * math.exp(-((d - 0.03) / 0.05) ** 2) - 0.3 * math.exp(-((d - 0.15) / 0.07) ** 2)
            return 0.0, 0.3, 0.95 + v
        write(f"run-{rate}-steps-per-s-at-{fs}Hz-expect-{len(contacts)}", fs, 60, run)
PY
for binary in "${@:-.build/release/vitals}"; do
  echo "== $binary"
  for f in "$dir"/*.csv; do
    steps=$("$binary" steps "$f" --accel-unit g --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["steps"])')
    printf '%-45s %5s\n' "$(basename "$f" .csv)" "$steps"
  done
done
