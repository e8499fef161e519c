// The Vitals live dashboard: reads the server's event stream (one JSON object per event, see
// DashboardMessage.swift) and draws it. No libraries, nothing fetched from elsewhere.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  windowS: 10, speed: 1, contactSensing: true,
  points: [],          // [t, v] of the waveform, time order
  beats: [],           // live beat times
  confirmed: [],       // confirmed beat times
  artifacts: new Set(),// confirmed beat times kept out of HRV
  lastT: null,         // newest waveform time (input seconds)
  anchor: null,        // input time at the right edge = performance.now() * speed / 1000 + anchor
  ended: false,
};

function fixed(x, digits) { return x === null || x === undefined ? "—" : x.toFixed(digits); }

function setLink(kind, text) {
  $("link-dot").className = "dot " + kind;
  $("link-text").textContent = text;
}

function forget(before) {
  const keep = (t) => t >= before;
  while (state.points.length && state.points[0][0] < before) state.points.shift();
  state.beats = state.beats.filter(keep);
  state.confirmed = state.confirmed.filter(keep);
}

function onWaveform(m) {
  const wall = performance.now() * state.speed / 1000;
  for (let i = 0; i < m.t.length; i++) {
    // A stream that starts again (the server restarted, a loop of a new session) begins anew.
    if (state.lastT !== null && m.t[i] < state.lastT - 1) { state.points = []; state.anchor = null; }
    state.points.push([m.t[i], m.v[i]]);
    state.lastT = m.t[i];
  }
  // The right edge follows the newest point smoothly: the anchor eases toward it rather than jumping
  // with each message's arrival.
  const target = state.lastT - wall;
  state.anchor = state.anchor === null || Math.abs(target - state.anchor) > 1
    ? target : state.anchor + 0.05 * (target - state.anchor);
  forget(state.lastT - state.windowS - 1);
}

function onRate(m) {
  const notes = {
    measuring: "measuring… (the first rate takes about 5 s)",
    declined: "declined: signal quality too low for a trustworthy rate",
    no_contact: "no finger on the lens",
  };
  $("bpm").textContent = m.status === "answered" ? Math.round(m.bpm) : "—";
  const c = m.confidence;
  $("confidence-bar").style.width = c === null ? "0" : Math.round(100 * c) + "%";
  $("confidence-bar").style.background = c >= 0.7 ? "var(--ok)" : c >= 0.3 ? "var(--warn)" : "var(--bad)";
  $("rate-note").textContent = m.status === "answered"
    ? "confidence " + fixed(c, 2) + (c >= 0.7 ? " (good)" : c >= 0.3 ? " (fair)" : " (low)")
    : notes[m.status] + (c !== null && m.status === "declined" ? " (confidence " + fixed(c, 2) + ")" : "");
}

function clearQuality(note) {
  $("quality").textContent = "—";
  $("quality").className = "";
  $("quality-note").textContent = note;
}

function onContact(m) {
  $("contact").textContent = m.on ? "On the lens" : "Lifted";
  $("contact").className = "value " + (m.on ? "good" : "poor");
  $("contact-note").textContent = (m.on ? "found at " : "lost at ") + fixed(m.t, 1) + " s";
  if (!m.on) clearQuality("no finger on the lens");
}

function onQuality(m) {
  const q = $("quality");
  q.textContent = fixed(m.index, 2);
  q.className = m.index >= 0.7 ? "good" : m.index >= 0.3 ? "fair" : "poor";
  const perfusion = m.perfusion_percent === null ? "—" : fixed(m.perfusion_percent, 2) + "\u00a0%";
  const beatChannel = m.beat_channel && m.beat_channel !== m.channel ? " (beats: " + m.beat_channel + ")" : "";
  $("quality-note").textContent = "channel " + m.channel + beatChannel + " · perfusion " + perfusion;
}

function onHRV(m) {
  $("rmssd").textContent = fixed(m.rmssd_ms, 1);
  $("sdnn").textContent = fixed(m.sdnn_ms, 1);
  state.artifacts = new Set(m.artifact_t);
  $("hrv-note").textContent = m.rmssd_ms === null
    ? "after " + m.needed + " clean intervals (" + m.accepted + " so far)"
    : m.accepted + " intervals of the last " + m.window_s + " s" + (m.rejected ? ", " + m.rejected + " kept out" : "");
}

function flashHeart() {
  const h = $("heart");
  h.classList.add("on");
  setTimeout(() => h.classList.remove("on"), 120);
}

const handlers = {
  hello(m) {
    state.windowS = m.window_s; state.speed = m.speed; state.contactSensing = m.contact_sensing;
    $("source").textContent = m.source + (m.speed !== 1 ? " · " + m.speed + "× speed" : "");
    $("wave-note").textContent = "· last " + m.window_s + " s, in units of its recent spread";
    if (!m.contact_sensing) {
      $("contact").textContent = "n/a";
      $("contact-note").textContent = "a PPG signal has no contact sensing";
    }
    state.ended = false;
    setLink("live", "live");
  },
  waveform: onWaveform,
  beat(m) { state.beats.push(m.t); flashHeart(); },
  confirmed_beat(m) { state.confirmed.push(m.t); },
  rate: onRate,
  contact: onContact,
  quality: onQuality,
  hrv: onHRV,
  gap(m) { $("rate-note").textContent = "no input from " + fixed(m.from, 1) + " to " + fixed(m.to, 1) + " s"; },
  end(m) { state.ended = true; setLink("ended", "input ended at " + fixed(m.t, 1) + " s"); },
};

function connect() {
  const source = new EventSource("events");
  source.onmessage = (e) => {
    const m = JSON.parse(e.data);
    const handle = handlers[m.type];
    if (handle) handle(m);
  };
  source.onerror = () => { if (!state.ended) setLink("down", "reconnecting…"); };
}

// ---- drawing ----
const canvas = $("wave");
const ctx = canvas.getContext("2d");
const css = getComputedStyle(document.documentElement);
const colour = (name) => css.getPropertyValue(name).trim();

function draw() {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
    canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio);
  }
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const left = 44, right = w - 8, top = 12, bottom = h - 58, track = h - 42, labels = h - 16;
  // The right edge is "now" in input time: it moves with the wall clock between messages, but not
  // past the newest point by more than a fifth of a second (a stalled stream stops scrolling).
  let edge = state.lastT === null ? state.windowS : state.lastT;
  if (state.anchor !== null && !state.ended) {
    edge = Math.min(performance.now() * state.speed / 1000 + state.anchor, state.lastT + 0.2 * state.speed);
  }
  const start = edge - state.windowS;
  const x = (t) => left + (t - start) / state.windowS * (right - left);
  const visible = state.points.filter((p) => p[0] >= start - 0.1);
  // Symmetric scale: the values are in units of the signal's recent spread, so a clean pulse stays
  // within about ±3; wider only when most of the window is (a spike or a lifted finger is clipped).
  const mags = visible.map((p) => Math.abs(p[1])).sort((a, b) => a - b);
  const scale = Math.max(4, mags.length ? 1.2 * mags[Math.floor(0.95 * (mags.length - 1))] : 0);
  const mid = (top + bottom) / 2;
  const y = (v) => mid - v / scale * (bottom - top) / 2;

  // Grid: a line a second, labelled every other second of input time; level lines at whole steps.
  ctx.font = "12px system-ui, sans-serif";
  ctx.fillStyle = colour("--dim");
  ctx.strokeStyle = colour("--line");
  ctx.lineWidth = 1;
  ctx.textAlign = "center";
  for (let s = Math.ceil(start); s <= edge; s++) {
    const px = Math.round(x(s)) + 0.5;
    ctx.beginPath(); ctx.moveTo(px, top); ctx.lineTo(px, bottom); ctx.stroke();
    if (s % 2 === 0) ctx.fillText(s + " s", px, labels);
  }
  ctx.textAlign = "right";
  const step = scale > 6 ? 4 : scale > 3 ? 2 : 1;
  for (let v = -Math.floor(scale / step) * step; v <= scale; v += step) {
    const py = Math.round(y(v)) + 0.5;
    ctx.beginPath(); ctx.moveTo(left, py); ctx.lineTo(right, py); ctx.stroke();
    ctx.fillText(v > 0 ? "+" + v : String(v), left - 8, py + 4);
  }

  ctx.save();
  ctx.beginPath(); ctx.rect(left, top, right - left, bottom - top); ctx.clip();
  // Live beats: a line through the waveform where each beat was reported.
  ctx.strokeStyle = colour("--pulse");
  ctx.globalAlpha = 0.55;
  ctx.lineWidth = 2;
  for (const t of state.beats) {
    if (t < start) continue;
    ctx.beginPath(); ctx.moveTo(x(t), top); ctx.lineTo(x(t), bottom); ctx.stroke();
  }
  ctx.globalAlpha = 1;
  // The waveform.
  ctx.strokeStyle = colour("--wave");
  ctx.lineWidth = 2;
  ctx.lineJoin = "round";
  ctx.beginPath();
  let previous = null;
  for (const p of visible) {
    // Lift the pen over a silence (a gap, a lifted finger).
    if (previous === null || p[0] - previous > 0.5) ctx.moveTo(x(p[0]), y(p[1])); else ctx.lineTo(x(p[0]), y(p[1]));
    previous = p[0];
  }
  ctx.stroke();
  ctx.restore();
  // Confirmed beats on their own track under the waveform (they come about 2.5 s later).
  for (const t of state.confirmed) {
    if (t < start || t > edge) continue;
    ctx.fillStyle = state.artifacts.has(t) ? colour("--warn") : colour("--ok");
    ctx.beginPath(); ctx.arc(x(t), track, 4.5, 0, 2 * Math.PI); ctx.fill();
  }
  ctx.fillStyle = colour("--dim");
  if (state.lastT === null) {
    ctx.textAlign = "center";
    ctx.fillText("waiting for the waveform…", (left + right) / 2, mid);
  }
  requestAnimationFrame(draw);
}

connect();
requestAnimationFrame(draw);
