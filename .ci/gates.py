#!/usr/bin/env python3
"""Evaluation gates: runs `vitals eval ...` / `vitals bench` on ../shared/data, prints every measured
figure next to the issue's target and next to the floor CI enforces, and exits 1 when a figure falls
below its floor.

Floors hold what the toolkit has been measured to reach (so a change that makes it worse fails CI);
targets are the figures the issues ask for. Where a target is not met yet, the issue stays open and
the line says so: the floor is never set above what was measured, and never silently lowered.
"""
import json, os, subprocess, sys, time

VITALS = os.environ.get("VITALS", ".build/release/vitals")
DATA = os.environ.get("VITALS_DATA", "../shared/data")

def run_json(args):
    out = subprocess.run([VITALS] + args + ["--json"], capture_output=True, text=True)
    if out.returncode not in (0, 1) or not out.stdout.strip():
        raise RuntimeError(f"vitals {' '.join(args)} failed: {out.stderr.strip()[:400]}")
    return json.loads(out.stdout)

def get(doc, path):
    """Follows `path` into `doc`; "field=value" picks the list element whose field equals value,
    "field~text" the one whose field contains text."""
    for key in path:
        if isinstance(key, str) and "=" in key:
            field, value = key.split("=", 1)
            doc = next(x for x in doc if str(x.get(field)) == value)
        elif isinstance(key, str) and "~" in key:
            field, text = key.split("~", 1)
            doc = next(x for x in doc if text in str(x.get(field)))
        else:
            doc = doc[key]
    return doc

# (label, command args, path into its JSON, "min" or "max", floor, issue target)
GATES = [
    ("MTHS answered fraction", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "answered_fraction"], "min", 0.855, 0.85),
    ("MTHS within 5 bpm of answered", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "within_5_fraction"], "min", 0.85, 0.85),
    ("MTHS median abs error (bpm)", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "median_ae_bpm"], "max", 2.0, 2.0),
    ("MTHS MAE (bpm)", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "mae_bpm"], "max", 4.0, 4.0),
    # Issue 2 asks for >= 90 % of subjects (36 of these 40; held-back sets are larger): the fraction.
    ("MTHS subjects within 5 bpm (fraction)", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "subjects_within_5_fraction"], "min", 0.9, 0.9),
    ("MTHS half/double windows", ["eval", "fingertip", f"{DATA}/fingertip-mths"], ["overall", "half_double_fraction"], "max", 0.025, 0.02),
    ("a103l beat sensitivity", ["eval", "beats", f"{DATA}/ppg-ecg"], ["recordings", "name=a103l", "sensitivity"], "min", 0.95, 0.97),
    # 0.96 until 2026-11-25 (96.9 %); the beat band's spike limiter and the lower reward cap: 97.3 %.
    ("a103l beat PPV", ["eval", "beats", f"{DATA}/ppg-ecg"], ["recordings", "name=a103l", "ppv"], "min", 0.97, 0.97),
    ("a103l IBI median error (ms)", ["eval", "beats", f"{DATA}/ppg-ecg"], ["recordings", "name=a103l", "ibi_median_error_ms"], "max", 5.0, 5.0),
    # Every pair of consecutive matched beats (the definition; 4.8 / 12.3 ms). Before
    # 2026-11-23 the figure left out the intervals HRV rejects (4.2 / 9.9 ms, still printed apart as
    # ibi_hrv_*), and the p90 floor was 11.
    ("a103l IBI p90 error (ms)", ["eval", "beats", f"{DATA}/ppg-ecg"], ["recordings", "name=a103l", "ibi_p90_error_ms"], "max", 13.5, 15.0),
    # Simulated finger (issue 2), 40-200 bpm at 30 fps with jitter, drops, drift and motion spikes; needs no data.
    ("simulated max |rate error| (bpm)", ["eval", "simulated"], ["overall", "max_abs_rate_error_bpm"], "max", 1.0, 1.0),
    ("simulated rates declined (of 17)", ["eval", "simulated"], ["overall", "declined"], "max", 1, 0),
    ("simulated half/double-rate reports", ["eval", "simulated"], ["overall", "half_double_reports"], "max", 0, 0),
    ("simulated max contact latency (s)", ["eval", "simulated"], ["overall", "max_contact_latency_s"], "max", 0.5, 0.5),
    ("simulated max first-rate delay (s)", ["eval", "simulated"], ["overall", "max_first_rate_delay_s"], "max", 6.0, 6.0),
    ("simulated cases missing a first rate", ["eval", "simulated"], ["overall", "cases_missing_a_first_rate"], "max", 0, 0),
    ("simulated wrong first rates", ["eval", "simulated"], ["overall", "first_rates_wrong"], "max", 0, 0),
    ("simulated max beat latency (ms)", ["eval", "simulated"], ["overall", "max_beat_latency_ms"], "max", 245, 250),
    # The latency figure means something only if the beats are seen: our own bar (not the issue's) is
    # >= 95 % seen and <= 5 % spurious at every rate. A 40-bpm recording has 30 beats, and a motion
    # spike on one costs 3 %, so the share seen is also pooled per rate over five recording sets
    # (seeds 0-4). Set 0's floors were 0.90 seen and 0.07 spurious from 2026-11-23 (its 40-bpm
    # recording saw 27 of 30 and showed 2 false beats, all at motion spikes) until 2026-11-25, when
    # the beat band's spike limiter, the beat tracker's lower reward cap and its live beats' check
    # against the last beat shown brought it to 29 of 30 and 1 (set 0: 96.7 % seen at worst, 3.3 %
    # spurious; pooled 98.7 % and 0.7 %), so the floors are the bar itself (pooled: 0.98).
    ("simulated min fraction of beats seen live", ["eval", "simulated"], ["overall", "min_beats_seen_fraction"], "min", 0.95, 0.95),
    ("simulated min fraction of beats seen live, 5 sets pooled", ["eval", "simulated", "--sets", "5"], ["overall", "min_pooled_beats_seen_fraction"], "min", 0.98, 0.95),
    ("simulated max fraction of spurious live beats", ["eval", "simulated"], ["overall", "max_spurious_beats_fraction"], "max", 0.05, 0.05),
    ("simulated max fraction of spurious live beats, 5 sets pooled", ["eval", "simulated", "--sets", "5"], ["overall", "max_pooled_spurious_beats_fraction"], "max", 0.05, 0.05),
    # The same simulator on four more recording sets (seeds 1-4) than the one above: the gates that
    # hold on seed 0 do not all hold there (RMSSD is more than 5 % off at three of 85 rates: +5.3 %
    # at 100 bpm, -5.6 % at 50, -5.3 % at 200, measured 2026-11-25). The first-rate floors
    # were 10.5 s and 1 wrong until 2026-11-23 (seed 2's 150-bpm finger: a motion spike in its first
    # second set the first rate, 77 bpm at 10.3 s); with the spike's flanks dropped from the first
    # window all 170 first rates are right by 5.4 s, so the floors are the issue's own.
    ("simulated max |rate error|, 5 sets (bpm)", ["eval", "simulated", "--sets", "5"], ["overall", "max_abs_rate_error_bpm"], "max", 1.0, 1.0),
    ("simulated half/double-rate reports, 5 sets", ["eval", "simulated", "--sets", "5"], ["overall", "half_double_reports"], "max", 0, 0),
    ("simulated max contact latency, 5 sets (s)", ["eval", "simulated", "--sets", "5"], ["overall", "max_contact_latency_s"], "max", 0.5, 0.5),
    ("simulated max first-rate delay, 5 sets (s)", ["eval", "simulated", "--sets", "5"], ["overall", "max_first_rate_delay_s"], "max", 6.0, 6.0),
    ("simulated wrong first rates, 5 sets (of 170)", ["eval", "simulated", "--sets", "5"], ["overall", "first_rates_wrong"], "max", 0, 0),
    ("simulated cases with RMSSD within 5 %, 5 sets (fraction)", ["eval", "simulated", "--sets", "5"], ["overall", "rmssd_within_5_percent_fraction"], "min", 0.95, 1.0),
    ("simulated repeated confirmed beats, 5 sets", ["eval", "simulated", "--sets", "5"], ["overall", "repeated_confirmed_beats"], "max", 0, 0),
    ("simulated max |RMSSD error|", ["eval", "simulated"], ["overall", "max_abs_rmssd_error_fraction"], "max", 0.05, 0.05),
    ("simulated rates with RMSSD within 5 % (of 17)", ["eval", "simulated"], ["overall", "rates_rmssd_within_5_percent"], "min", 17, 17),
    ("simulated repeated confirmed beats", ["eval", "simulated"], ["overall", "repeated_confirmed_beats"], "max", 0, 0),
    # Issue 3 asks for 6 of 7 (held-back videos are measured the same way): the fraction.
    ("fingertip videos within 5 bpm (fraction)", ["eval", "video", f"{DATA}/fingertip-video"], ["overall", "within_5_fraction"], "min", 0.571, 0.857),
    ("live pipeline per frame (ns)", ["bench", "--filter", "pulse-stream"], ["benchmarks", "name=pulse-stream-per-frame-30fps", "ns_per_op"], "max", 2000, 2000),
    # Thread CPU time; measured 9.6-10.3 M samples/s after the batch work (issue 2) on a quiet machine,
    # 6.6 M while other processes shared the 2 cores (the VM's CPU time then includes stolen time).
    # After the speed work (branch speed): 11.60-11.69 M at load ~1 against 9.91-10.03 M for main
    # 57b4863 in the same session; the floor keeps the same allowance for shared cores: 6.9 M.
    ("PPG batch 1 h at 100 Hz (samples/s)", ["bench", "--filter", "ppg-batch"], ["benchmarks", "name=ppg-batch-1h-100hz", "samples_per_s"], "min", 6.9e6, 50e6),
    # A day of 100 Hz PPG streamed a second at a time: resident memory after 24 h minus after 1 h
    # (measured 136-256 KiB, flat after the first hours; a per-sample history would add >= 66 MB).
    # The same day's speed: the issue asks the 24-hour recording to run at the batch rate.
    ("PPG stream 24 h at 100 Hz (samples/s)", ["bench", "--filter", "ppg-stream"], ["benchmarks", "name=ppg-stream-24h-100hz", "samples_per_s"], "min", 6.9e6, 50e6),
    ("PPG stream 24 h: resident growth (KiB)", ["bench", "--filter", "ppg-stream"], ["benchmarks", "name=ppg-stream-24h-100hz", "resident_growth_kib"], "max", 1024, 1024),
    # Wrist PPG while running (IEEE SPC 2015, ECG truth), with the accelerometer as motion reference.
    # No issue asks for it (target "-"): the floors keep what was measured. Every window's best guess
    # (as SPC 2015 methods are scored; TROIKA, the set's reference method, reports 2.34 bpm on its 12
    # training recordings): mean of recordings' MAE 1.81 bpm. The answered windows (96 %; those below
    # the confidence floor or reading outside the rate range are declined): 98.6 % within 10 bpm.
    ("wrist PPG: mean of recordings' MAE, every window (bpm)", ["eval", "wrist", f"{DATA}/wrist-ppg-spc2015"], ["overall", "with_motion_every_window", "mean_of_recording_mae_bpm"], "max", 2.2, None),
    ("wrist PPG: windows answered", ["eval", "wrist", f"{DATA}/wrist-ppg-spc2015"], ["overall", "with_motion", "answered"], "min", 0.94, None),
    ("wrist PPG: answered windows within 10 bpm", ["eval", "wrist", f"{DATA}/wrist-ppg-spc2015"], ["overall", "with_motion", "within_10_bpm"], "min", 0.975, None),
    # Remote pulse (no issue yet): the skin patches show no pulse that can be told from noise (README),
    # so what is gated is that no answer is far off: a video answered more than 10 bpm from its truth.
    ("skin patches: answered videos > 10 bpm off", ["eval", "skin", f"{DATA}/rppg-skin"],
     lambda d: sum(1 for v in d["videos"] if v["error_bpm"] is not None and abs(v["error_bpm"]) > 10), "max", 0, None),
    # Issue 4: motion. Reps on Exermote, strokes on tennis-ace, attitude filter vs Core Motion, speed.
    ("reps within 1 of truth (all sets)", ["eval", "reps", f"{DATA}/reps-exermote"], ["summaries", "group=all", "within_one"], "min", 0.95, 0.95),
    ("reps exact (all sets)", ["eval", "reps", f"{DATA}/reps-exermote"], ["summaries", "group=all", "exact"], "min", 0.65, 0.65),
    ("reps stray sets per session (max)", ["eval", "reps", f"{DATA}/reps-exermote"], ["summaries", "group=all", "max_stray_per_session"], "max", 1, 1),
    ("forehand file: called forehand", ["eval", "swings", f"{DATA}/tennis-ace"], ["files", "type=forehand", "strokes", "correct_fraction"], "min", 0.95, 0.95),
    ("backhand file: called backhand", ["eval", "swings", f"{DATA}/tennis-ace"], ["files", "type=backhand", "strokes", "correct_fraction"], "min", 0.95, 0.95),
    ("serve file: called serve", ["eval", "swings", f"{DATA}/tennis-ace"], ["files", "type=serve", "strokes", "correct_fraction"], "min", 0.85, 0.80),
    ("forehand file: events / strokes - 1", ["eval", "swings", f"{DATA}/tennis-ace"], ["files", "type=forehand", "strokes", "count_ratio"], "near1", 0.10, 0.10),
    ("backhand file: events / strokes - 1", ["eval", "swings", f"{DATA}/tennis-ace"], ["files", "type=backhand", "strokes", "count_ratio"], "near1", 0.10, 0.10),
    ("serve file: events / strokes - 1", ["eval", "swings", f"{DATA}/tennis-ace"], ["files", "type=serve", "strokes", "count_ratio"], "near1", 0.10, 0.10),
    ("idle file: events per minute", ["eval", "swings", f"{DATA}/tennis-ace"], ["files", "type=idle", "strokes", "events_per_minute"], "max", 1.6, 2.0),
    ("SwingWatch parity (forehand file)", ["eval", "swings", f"{DATA}/tennis-ace"], ["files", "type=forehand", "parity"], "min", 1, 1),
    ("attitude: gravity median error (deg)", ["eval", "attitude", f"{DATA}/reps-exermote"], ["median_deg"], "max", 2.45, 2.0),
    ("SwingWatch detector (samples/s)", ["bench", "--filter", "motion"], ["benchmarks", "name=motion-swingwatch", "samples_per_s"], "min", 20e6, 20e6),
    ("stroke detector (samples/s)", ["bench", "--filter", "motion"], ["benchmarks", "name=motion-strokes", "samples_per_s"], "min", 20e6, 20e6),
    ("rep counter (samples/s)", ["bench", "--filter", "motion"], ["benchmarks", "name=motion-reps", "samples_per_s"], "min", 20e6, 20e6),
    ("impact detector (samples/s)", ["bench", "--filter", "motion"], ["benchmarks", "name=motion-impacts", "samples_per_s"], "min", 20e6, 20e6),
    ("pose stability (samples/s)", ["bench", "--filter", "motion"], ["benchmarks", "name=motion-pose-stability", "samples_per_s"], "min", 20e6, 20e6),
    ("tremor detector (samples/s)", ["bench", "--filter", "motion"], ["benchmarks", "name=motion-tremor", "samples_per_s"], "min", 20e6, 20e6),
    # Issue 5: pedometer. Oxford step counts, IPOL step timing and pause/resume events, speed (CPU time).
    ("Oxford mean |count error| %", ["eval", "steps", f"{DATA}/steps-oxford/optimisation"], ["mean_abs_error_percent"], "max", 1.0, 1.0),
    ("Oxford worst |count error| %", ["eval", "steps", f"{DATA}/steps-oxford/optimisation"], ["worst_abs_error_percent"], "max", 2.5, 2.5),
    ("Oxford recordings with a handling resume", ["eval", "steps", f"{DATA}/steps-oxford/optimisation"], ["recordings_with_handling_resume"], "max", 1, 1),
    ("IPOL step F1 (150 ms)", ["eval", "gait", f"{DATA}/gait-ipol"], ["f1"], "min", 0.93, 0.93),
    ("IPOL median timing error (s)", ["eval", "gait", f"{DATA}/gait-ipol"], ["median_timing_error_s"], "max", 0.06, 0.06),
    ("IPOL pause latency median (s)", ["eval", "gait", f"{DATA}/gait-ipol"], ["pause_median_s"], "max", 1.5, 1.5),
    ("IPOL pause latency p95 (s)", ["eval", "gait", f"{DATA}/gait-ipol"], ["pause_p95_s"], "max", 2.5, 2.5),
    ("IPOL resume latency median (s)", ["eval", "gait", f"{DATA}/gait-ipol"], ["resume_median_s"], "max", 1.5, 1.5),
    ("IPOL resume latency p95 (s)", ["eval", "gait", f"{DATA}/gait-ipol"], ["resume_p95_s"], "max", 2.0, 2.0),
    ("IPOL trials with a false pause", ["eval", "gait", f"{DATA}/gait-ipol"],
     lambda d: d["trials_with_false_pause"] / len(d["trials"]), "max", 0.02, 0.02),
    # The project's CI machine ran the frame and memcpy benchmarks 1.1-1.3x slower than this one
    # (2026-11-22), so a floor within 20 % of a time measured here fails there without a regression:
    # 400 Hz measures 13.2-13.7 ns here; its floor stays well inside the 50-ns target.
    ("pedometer CPU ns/sample at 400 Hz", ["bench", "--filter", "pedometer", "--rounds", "15"],
     ["benchmarks", "name=pedometer-detect-400Hz", "ns_per_op"], "max", 25, 50),
    # 100 Hz: 41 -> 37 ns here after the pedspeed work (same session, best of runs); at 1.3x that is
    # 48 ns, so the floor is the target itself.
    ("pedometer CPU ns/sample at 100 Hz", ["bench", "--filter", "pedometer", "--rounds", "15"],
     ["benchmarks", "name=pedometer-detect-100Hz", "ns_per_op"], "max", 50, 50),
]

# A speed figure below its floor is measured again, up to this many times in all, SPEED_PAUSE
# seconds apart, and the best run counts: on a shared virtual machine a busy host slows a run by up
# to 2x for minutes at a time (seen 2026-11-22: pedometer 40 -> 58-78 ns per sample with nothing
# else running in the VM, PPG batch 11.6 -> 7.5 M samples/s), and the benchmarks' own
# best-of-rounds cannot outlast that. Accuracy figures are deterministic and run once.
SPEED_ATTEMPTS = 5
SPEED_PAUSE = 20

def measure(args, path, cache):
    key = tuple(args)
    if key not in cache:
        cache[key] = run_json(args)
    return float(path(cache[key]) if callable(path) else get(cache[key], path))

def meets(value, limit, kind):
    """Whether `value` is on the good side of `limit` for a "min" or "max" figure."""
    return value >= limit if kind == "min" else value <= limit

def main():
    cache, failed = {}, []
    print(f"{'figure':42} {'measured':>12} {'floor':>10} {'target':>10}  status")
    for label, args, path, kind, floor, target in GATES:
        try:
            value = measure(args, path, cache)
            if args[0] == "bench" and kind != "near1":
                for _ in range(SPEED_ATTEMPTS - 1):
                    if meets(value, floor, kind):
                        break
                    cache.pop(tuple(args))
                    time.sleep(SPEED_PAUSE)
                    again = measure(args, path, cache)
                    value = max(value, again) if kind == "min" else min(value, again)
        except Exception as e:  # a command that fails is a failed gate, with its reason
            print(f"{label:42} {'error':>12} {floor:>10} {target if target is not None else '-':>10}  FAIL ({e})")
            failed.append(label)
            continue
        if kind == "near1":  # a ratio that should be 1: gate its distance from 1
            value, kind = abs(value - 1), "max"
        ok_floor = meets(value, floor, kind)
        if target is None:  # a figure no issue sets a target for: only its floor is gated
            status = "no issue target (floor holds)" if ok_floor else "FAIL: below floor"
            target = "-"
        else:
            status = "target met" if meets(value, target, kind) else ("below target (floor holds)" if ok_floor else "FAIL: below floor")
        print(f"{label:42} {value:12.4g} {floor:>10} {target:>10}  {status}")
        if not ok_floor:
            failed.append(label)
    if failed:
        print(f"\n{len(failed)} gate(s) below their floor: " + "; ".join(failed))
        sys.exit(1)
    print("\nall floors hold")

if __name__ == "__main__":
    main()
