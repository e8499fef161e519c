#!/usr/bin/env python3
"""Peer for `vitals bench`: OpenCV's cv2.mean on byte-identical frames, timed the same way.

Frames: as many distinct packed frames per size and format as `vitals bench` uses, at least 64 and
at least 512 MiB of them (so even a stride-4 read covers 4x this machine's 32 MiB last-level cache);
byte i of frame f is (7*i + 31*f) mod 256 (see Sources/VitalsIO/FrameBenchmarks.swift). Each round
visits every frame once ("cold"); the fastest round's time per frame is reported, in nanoseconds.
For NV12 (4:2:0 bi-planar) OpenCV has no single call: the peer is cv2.mean of the luma plane plus
cv2.mean of the interleaved CbCr plane viewed as a 2-channel image, which reads the same bytes.

Prints {"benchmarks": [{"name": "opencv-mean-bgra-640x480", "ns_per_op": ...}, ...]}.
Install the peer with: pip install 'opencv-python-headless<5'
"""
import argparse
import json
import sys
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit("opencv_mean.py: OpenCV missing: pip install 'opencv-python-headless<5'")

MIN_FRAMES = 64
POOL_BYTES = 512 << 20  # FrameBenchmarks.poolBytes
SIZES = [(640, 480), (1920, 1080)]


def make_frames(nbytes):
    count = max(MIN_FRAMES, -(-POOL_BYTES // nbytes))  # FrameBenchmarks.frameCount(bytesPerFrame:)
    base = (np.arange(nbytes, dtype=np.uint32) * 7)
    return [((base + 31 * f) & 255).astype(np.uint8) for f in range(count)]


def bench(fn, frames, rounds):
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for fr in frames:
            fn(fr)
        best = min(best, (time.perf_counter_ns() - t0) / len(frames))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--filter", default=None)
    args = ap.parse_args()
    cv2.setNumThreads(1)  # the Swift sampler uses one thread
    results = []
    for w, h in SIZES:
        for fmt in ("bgra", "nv12"):
            name = f"opencv-mean-{fmt}-{w}x{h}"
            if args.filter and args.filter not in name:
                continue
            if fmt == "bgra":
                raw = make_frames(4 * w * h)
                views = [r.reshape(h, w, 4) for r in raw]
                fn = cv2.mean
            else:
                cw, ch = (w + 1) // 2, (h + 1) // 2
                raw = make_frames(w * h + 2 * cw * ch)
                views = [(r[: w * h].reshape(h, w), r[w * h:].reshape(ch, cw, 2)) for r in raw]

                def fn(v):
                    return cv2.mean(v[0]), cv2.mean(v[1])
            results.append({"name": name, "ns_per_op": bench(fn, views, args.rounds)})
            del raw, views
    print(json.dumps({"benchmarks": results}, indent=2))


if __name__ == "__main__":
    main()
