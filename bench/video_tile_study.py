#!/usr/bin/env python3
"""Study behind issue 3's real-video figure: do tiles, clipping-aware selection or removing the
frame-step artefact bring the whole-video heart rate of the fingertip videos nearer the oximeter?

For every video in DATA_DIR (NAME.mp4/.avi + NAME.json with hr_bpm), ffmpeg shrinks each frame to an
18 x 32 grid of tile means by area averaging, in 16 bits per sample (so the sub-code pulse of a
flat, dark, heavily compressed picture is not rounded away), as Y'CbCr. Each variant below turns the
tiles into one recording (time_s,r,g,b or time_s,ppg), which `vitals heart-rate CSV --json` analyses
with the unchanged fingertip pipeline; the table shows its whole-video rate per video and the count
within 5 bpm.

Variants (none has a constant fitted to a video):
  mean        all tiles averaged (the whole-frame mean, at full precision)
  unclipped   only tiles whose Cr (red) is below the video's top code - 1 (all tiles if none)
  destep      mean, with the periodic frame step (found as in VitalsIO.FrameStep) removed
  cycle       destep, then the average step cycle (period P frames, whole video) subtracted
  consensusG  per 10-s window (50 % overlap-add), each tile-channel normalised; tiles weighted by
              the square of their power fraction at the peak of the concentration-weighted mean
              spectrum of all tiles; G x G pooling of the 18 x 32 grid (1: 18 x 32, 2: 9 x 16,
              4: 6 x 8 after 3 x 4 pooling)
Usage: video_tile_study.py PATH/TO/vitals DATA_DIR
Needs ffmpeg, numpy, scipy. Takes a few minutes (every video is decoded once).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy import signal

FS = 30.0
W, H = 18, 32


def tiles(path):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-vf", f"scale={W}:{H}:flags=area",
                          "-pix_fmt", "yuv444p16le", "-f", "rawvideo", "pipe:1"],
                         check=True, capture_output=True).stdout
    return np.frombuffer(out, "<u2").reshape(-1, 3, H, W).transpose(0, 2, 3, 1).astype(float) / 256


def rgb(m):
    """Y'CbCr (video range, BT.709: untagged HD) plane means -> unclipped R, G, B."""
    y = (m[..., 0] - 16) * 255 / 219
    cb = (m[..., 1] - 128) * 255 / 224
    cr = (m[..., 2] - 128) * 255 / 224
    return np.stack([y + 1.5748 * cr, y - 0.1873 * cb - 0.4681 * cr, y + 1.8556 * cb], -1)


def frame_step(x):
    """(strength, period, phase) of the strongest periodic frame step, as VitalsIO.FrameStep."""
    s = np.abs(np.diff(x.reshape(len(x), -1), axis=0)).mean(1)
    res = []
    for p in range(10, 121):
        if len(s) < 4 * p:
            continue
        f = np.median(s[:len(s) // p * p].reshape(-1, p), axis=0)
        ph = int(f.argmax())
        res.append((f[ph] / np.median(np.delete(f, ph)), p, ph))
    best = max(r[0] for r in res)
    return next(r for r in res if r[0] >= 0.7 * best)


def destep(x, period, phase):
    d = np.diff(x, axis=0)
    d2 = d.copy()
    for k in range(phase, len(d), period):
        d2[k] = (d[max(k - 1, 0)] + d[min(k + 1, len(d) - 1)]) / 2
    return np.concatenate([x[:1], x[0] + np.cumsum(d2, axis=0)])


def consensus(a, pool):
    t = len(a)
    if pool == 2:
        a = a.reshape(t, 16, 2, 9, 2, 3).mean((2, 4))
    elif pool == 4:
        a = a.reshape(t, 8, 4, 6, 3, 3).mean((2, 4))
    x = a.reshape(t, -1)
    b, aa = signal.butter(2, [0.6 / (FS / 2), 3.5 / (FS / 2)], "band")
    y = signal.filtfilt(b, aa, x - x.mean(0), axis=0)
    win, nfft = int(10 * FS), 1024
    hop = win // 2
    fr = np.fft.rfftfreq(nfft, 1 / FS)
    band = (fr >= 0.7) & (fr <= 3.5)
    fb = fr[band]
    ola = np.hanning(win + 1)[:-1]
    out, wsum = np.zeros(t), np.zeros(t)
    for s in range(0, t - win + 1, hop):
        seg = y[s:s + win] - y[s:s + win].mean(0)
        sd = seg.std(0)
        ok = sd > 1e-6
        if not ok.any():
            continue
        z = seg[:, ok] / sd[ok]
        p = (np.abs(np.fft.rfft(z * np.hanning(win)[:, None], nfft, axis=0)) ** 2)[band]
        pn = p / p.sum(0)
        own = fb[pn.argmax(0)]
        q = np.array([pn[np.abs(fb - f) <= 0.1, j].sum() for j, f in enumerate(own)])
        f0 = fb[(pn * q ** 2).sum(1).argmax()]
        w = pn[np.abs(fb - f0) <= 0.1].sum(0) ** 2
        sign = np.sign(z.T @ z[:, w.argmax()])
        sign[sign == 0] = 1
        out[s:s + win] += (z * (w * sign)).sum(1) / w.sum() * ola
        wsum[s:s + win] += ola
    return out / np.maximum(wsum, 1e-9)


def variants(a):
    t = len(a)
    m = a.mean((1, 2))
    yield "mean", rgb(m)
    v = a[..., 2]
    unclipped = v.mean(0) < np.percentile(v, 99.9) - 1
    yield "unclipped", rgb(a[:, unclipped].mean(1) if unclipped.any() else m)
    strength, period, phase = frame_step(a)
    ds = destep(m, period, phase) if strength >= 6 else m
    yield "destep", rgb(ds)
    if strength >= 6:
        hp = ds - signal.filtfilt(*signal.butter(2, 0.3 / (FS / 2)), ds, axis=0)
        cycle = hp[:t // period * period].reshape(-1, period, 3).mean(0)
        ds = ds - np.concatenate([cycle] * (t // period + 1))[:t]
    yield "cycle", rgb(ds)
    for pool in (1, 2, 4):
        yield f"consensus{pool}", consensus(a, pool)


def run(vitals, path, ppg):
    args = [vitals, "heart-rate", path, "--json"] + (["--column", "ppg"] if ppg else [])
    doc = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return (doc.get("heart_rate") or {}).get("bpm")


def main():
    vitals, data = sys.argv[1], sys.argv[2]
    names = sorted(f for f in os.listdir(data) if f.rsplit(".", 1)[-1] in ("mp4", "avi", "mov", "mkv"))
    rows, hits = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            truth = json.load(open(os.path.join(data, name.rsplit(".", 1)[0] + ".json")))["hr_bpm"]
            a = tiles(os.path.join(data, name))
            t = np.arange(len(a)) / FS
            for variant, sig in variants(a):
                ppg = sig.ndim == 1
                csv = os.path.join(tmp, "v.csv")
                np.savetxt(csv, np.c_[t, sig], delimiter=",", comments="", fmt="%.6f",
                           header="time_s,ppg" if ppg else "time_s,r,g,b")
                bpm = run(vitals, csv, ppg)
                rows.setdefault(variant, []).append(bpm)
                hits[variant] = hits.get(variant, 0) + (bpm is not None and abs(bpm - truth) <= 5)
            rows.setdefault("truth", []).append(truth)
            print(f"{name} done", file=sys.stderr)
    print("variant      " + " ".join(f"{n.split('.')[0][-6:]:>7}" for n in names) + "  within 5")
    for variant, values in rows.items():
        cells = " ".join(f"{v:7.1f}" if v is not None else "   none" for v in values)
        print(f"{variant:<12} {cells}  {hits.get(variant, '')}")


if __name__ == "__main__":
    main()
