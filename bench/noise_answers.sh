#!/usr/bin/env bash
# How often `vitals heart-rate` answers a recording that holds no pulse (2 of 60 at the time of writing; 20 before
# `RateTracker.Settings.minimumPeakShare`): 60 one-minute signals at
# 30 Hz (12 each of white noise, a random walk, a slow sine of 0.02-0.3 Hz, a cubic trend and an
# integrated random walk), generated with a fixed seed. Prints the count answered per kind.
# Usage: bench/noise_answers.sh [VITALS_BINARY ...]   (needs python3 with numpy)
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(5)
fs = 30
for k in range(12):
    n = fs * 60
    t = np.arange(n) / fs
    kinds = {'white': rng.standard_normal(n), 'walk': np.cumsum(rng.standard_normal(n)),
             'sine': 50 * np.sin(2 * np.pi * rng.uniform(0.02, 0.3) * t + rng.uniform(0, 6)),
             'cubic': np.polyval(rng.standard_normal(4), t / 60) * 30,
             'integrated': np.cumsum(np.cumsum(rng.standard_normal(n))) / 100}
    for name, x in kinds.items():
        with open(f'{sys.argv[1]}/{name}-{k}.csv', 'w') as f:
            f.write('time_s,v\n')
            np.savetxt(f, np.c_[t, 1000 + x], fmt='%.6f', delimiter=',')
PY
for binary in "${@:-.build/release/vitals}"; do
  total=0
  for kind in white walk sine cubic integrated; do
    n=0
    for f in "$dir/$kind"-*.csv; do
      if "$binary" heart-rate "$f" --column v --json 2>/dev/null | grep -q '"heart_rate": {"bpm": [0-9]'; then n=$((n + 1)); fi
    done
    total=$((total + n))
    echo "$binary $kind: $n of 12 answered"
  done
  echo "$binary all: $total of 60 answered"
done
