// The referee on a web page.  MicroPython (WebAssembly) runs the firmware's
// own device: web/board.py wires it to virtual pins, OLED and buzzer.  This
// file is only the board's edge: touches and keys become button edges at
// their event timestamps, the OLED's display RAM is drawn on canvases, the
// buzzer's tones play on WebAudio, the flash files live in localStorage.
//
// Page options (after #, like a query): game=<a game id of speedref/games.py>
// starts that game with its defaults; pads=2|3|4; flat=1 (lying flat
// between the players); hold=MS (how far the board runs behind the page's
// clock, see HOLD_MS); script=<base64url> replays an event script in
// simulated time (the speedref-sim --script format) and writes the log.
import { loadMicroPython } from "./micropython.mjs";

const params = new URLSearchParams(location.hash.slice(1));
const FLASH_KEY = "speedref-flash";
const PREFS_KEY = "speedref-prefs";
// The board runs this far behind the page's clock, so that a touch reaches
// it before the loop passes the touch's timestamp: touches are handed to
// the page some milliseconds after the panel saw them (docs/web.md).  An
// edge that arrives later still is taken at its own timestamp.
const HOLD_MS = Number(params.get("hold") ?? 40);
const TOUCH_TIE_US = 17000;
const ON = [0xdf, 0xf3, 0xff];
const OFF = [0, 0, 0];

const $ = (s) => document.querySelector(s);
const logEl = $("#log");
const statusEl = $("#status");
let mp = null;
let board = null;
const logLines = [];
let lastRecord = null;
const marks = {};  // performance.now() at milestones, for the benchmark
window.speedref = { marks, logLines, ready: false };

function setStatus(s) { statusEl.textContent = s; }

function b64urlDecode(s) {
  const b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
  const bytes = Uint8Array.from(b, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

async function start() {
  marks.start = performance.now();
  const bundle = await (await fetch("py-bundle.json")).json();
  mp = await loadMicroPython({
    stdout: (s) => console.log(s),
    stderr: (s) => console.error(s),
  });
  const FS = mp.FS;
  for (const [path, text] of Object.entries(bundle.files)) {
    const full = "/lib/" + path;
    FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
    FS.writeFile(full, text);
  }
  marks.runtime = performance.now();
  const wb = mp.pyimport("web.board");
  window.speedref.mp = mp;
  // A Python expression's value (as JSON) for tests and the benchmark.
  window.speedref.py = (expr) => {
    mp.runPython("import json\n_r = json.dumps(" + expr + ")");
    return JSON.parse(mp.globals.get("_r"));
  };
  wireDownloads();
  if (params.has("script")) return replay(wb);
  return live(wb);
}

// ---- replay: a script in simulated time ----------------------------------
async function replay(wb) {
  document.body.classList.add("replay");
  const text = b64urlDecode(params.get("script"));
  const game = params.get("game") || null;
  const measure = params.get("heap") === "1";
  const r = wb.Replay(text, game, "/flash", params.get("uid") || "sim", measure);
  const b = r.board;
  mp.globals.set("board", b);
  let done = false;
  while (!done) {
    done = r.run(50);
    const s = b.take_lines();
    if (s) for (const line of s.split("\n")) addLine(line);
    await new Promise((res) => setTimeout(res, 0));
  }
  drawScreen(b.screen_hex());
  if (measure) window.speedref.heap = { base: r.base, script: r.script, peak: r.peak };
  window.speedref.ready = true;
  document.title = "done";
}

function addLine(line) {
  logLines.push(line);
  logEl.append(line + "\n");
  let obj = null;
  try { obj = JSON.parse(line); } catch (e) { return null; }
  if (obj && obj.ev === "game_end" && obj.record) {
    lastRecord = obj.record;  // what speedref-score reads
    $("#record").disabled = false;
  }
  return obj;
}

// ---- the OLED -------------------------------------------------------------
const canvases = [...document.querySelectorAll("canvas.oled")];
const image = new ImageData(128, 64);

function drawScreen(hex) {
  const px = image.data;
  for (let col = 0; col < 128; col++) {
    for (let page = 0; page < 8; page++) {
      const i = (page * 128 + col) * 2;
      const byte = parseInt(hex.slice(i, i + 2), 16);
      for (let bit = 0; bit < 8; bit++) {
        const o = ((page * 8 + bit) * 128 + col) * 4;
        const c = (byte >> bit) & 1 ? ON : OFF;
        px[o] = c[0]; px[o + 1] = c[1]; px[o + 2] = c[2]; px[o + 3] = 255;
      }
    }
  }
  for (const cv of canvases) cv.getContext("2d").putImageData(image, 0, 0);
}

// ---- the buzzer -------------------------------------------------------------
let audio = null;
const sounding = new Map();  // tone start (board us) -> oscillator

function wakeAudio() {
  if (!audio) {
    try { audio = new AudioContext(); } catch (e) { audio = null; }
  }
  if (audio && audio.state === "suspended") audio.resume();
}

function playTones(text) {
  if (!text) return;
  for (const row of text.split("\n")) {
    const [start, freq, len] = row.split(",").map(Number);
    let osc = sounding.get(start);
    if (osc === undefined && audio && audio.state === "running") {
      osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "square";
      osc.frequency.value = freq;
      gain.gain.value = 0.06;
      osc.connect(gain).connect(audio.destination);
      osc.start();
      sounding.set(start, osc);
    }
    if (len >= 0) {
      if (osc) osc.stop(audio.currentTime + 0.001);
      sounding.delete(start);
    }
  }
}

// ---- the flash ---------------------------------------------------------------
function restoreFlash(FS) {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(FLASH_KEY) || "{}"); } catch (e) { saved = {}; }
  FS.mkdirTree("/flash/rec");
  for (const [path, b64] of Object.entries(saved)) {
    const full = "/flash/" + path;
    FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
    FS.writeFile(full, Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  }
}

function saveFlash(FS) {
  const out = {};
  const walk = (dir, rel) => {
    for (const name of FS.readdir(dir)) {
      if (name === "." || name === "..") continue;
      const full = dir + "/" + name;
      const r = rel ? rel + "/" + name : name;
      if (FS.isDir(FS.stat(full).mode)) walk(full, r);
      else {
        const bytes = FS.readFile(full);
        let s = "";
        for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
        out[r] = btoa(s);
      }
    }
  };
  walk("/flash", "");
  try { localStorage.setItem(FLASH_KEY, JSON.stringify(out)); }
  catch (e) { setStatus("could not save: " + e.message); }
}

// ---- downloads -----------------------------------------------------------------
function download(name, text, type) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function wireDownloads() {
  $("#record").onclick = () => lastRecord && download(
    "speedref-" + (lastRecord.id || "record") + ".json", JSON.stringify(lastRecord, null, 1) + "\n",
    "application/json");
  $("#logfile").onclick = () => download("speedref-log.jsonl", logLines.join("\n") + "\n",
    "application/x-ndjson");
}

// ---- live: the device on this page's clock --------------------------------------
let t0 = 0;
const pending = [];  // edges not yet handed to the board: {t, button, down}
const usOf = (ts) => Math.max(0, Math.round((ts - t0) * 1000));

function pushEdge(ts, button, down) {
  pending.push({ t: usOf(ts), button, down });
  setTimeout(() => pump(performance.now()), HOLD_MS + 1);
}

function pump(now) {
  if (!board) return;
  const horizon = usOf(now - HOLD_MS);
  pending.sort((a, b) => a.t - b.t);  // stable: same-instant edges keep their order
  while (pending.length && pending[0].t <= horizon) {
    const e = pending.shift();
    board.edge(e.t, e.button, e.down);
  }
  board.run_until(horizon);
  const lines = board.take_lines();
  let verdict = false;
  if (lines) {
    for (const line of lines.split("\n")) {
      const obj = addLine(line);
      if (obj && obj.ev === "slap") verdict = true;
    }
    logEl.scrollTop = logEl.scrollHeight;
  }
  const hex = board.new_screen();
  if (hex) {
    drawScreen(hex);
    if (marks.menu === undefined) marks.menu = performance.now();
    if (verdict) marks.verdict = performance.now();  // the verdict is on the canvas
  }
  playTones(board.take_tones());
  if (board.flash_changed()) saveFlash(mp.FS);
}

function frame(now) {
  pump(performance.now());
  requestAnimationFrame(frame);
}

const KEY_TAP = { "1": 0, z: 0, "2": 1, m: 1, "3": 2, "4": 3, ArrowUp: 4, k: 4, ArrowDown: 5, j: 5,
  Enter: 6, " ": 6, o: 6, Backspace: 7, Escape: 7, b: 7 };
const KEY_HOLD = { Z: 0, "!": 0, M: 1, "@": 1, "#": 2, $: 3, O: 6 };

function wireInputs() {
  const held = new Array(8).fill(0);     // pointers (and tap keys) on each button
  const toggled = new Array(8).fill(false);
  const buttons = [...document.querySelectorAll("[data-button]")];
  const show = (b) => {
    for (const el of buttons) {
      if (Number(el.dataset.button) === b) el.classList.toggle("down", held[b] > 0 || toggled[b]);
    }
  };
  const press = (b, ts) => {
    if (held[b]++ === 0 && !toggled[b]) pushEdge(ts, b, true);
    show(b);
  };
  const lift = (b, ts) => {
    if (held[b] === 0) return;
    if (--held[b] === 0 && !toggled[b]) pushEdge(ts, b, false);
    show(b);
  };
  const pointerButton = new Map();  // pointerId -> button
  for (const el of buttons) {
    const b = Number(el.dataset.button);
    el.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      wakeAudio();
      if (pointerButton.has(e.pointerId)) return;
      pointerButton.set(e.pointerId, b);
      press(b, e.timeStamp);
    });
    el.addEventListener("contextmenu", (e) => e.preventDefault());
  }
  const up = (e) => {
    const b = pointerButton.get(e.pointerId);
    if (b === undefined) return;
    pointerButton.delete(e.pointerId);
    lift(b, e.timeStamp);
  };
  window.addEventListener("pointerup", up);
  window.addEventListener("pointercancel", up);

  const keyButton = new Map();  // e.code -> button, for tap keys held down
  window.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT") return;
    wakeAudio();
    if (e.repeat) { if (e.key in KEY_TAP || e.key in KEY_HOLD) e.preventDefault(); return; }
    if (e.key in KEY_HOLD) {
      const b = KEY_HOLD[e.key];
      e.preventDefault();
      toggled[b] = !toggled[b];
      if (held[b] === 0) pushEdge(e.timeStamp, b, toggled[b]);
      show(b);
    } else if (e.key in KEY_TAP && !keyButton.has(e.code)) {
      const b = KEY_TAP[e.key];
      e.preventDefault();
      if (toggled[b]) {  // the tap key lifts a held button
        toggled[b] = false;
        if (held[b] === 0) pushEdge(e.timeStamp, b, false);
        show(b);
        return;
      }
      keyButton.set(e.code, b);
      press(b, e.timeStamp);
    }
  });
  window.addEventListener("keyup", (e) => {
    const b = keyButton.get(e.code);
    if (b === undefined) return;
    keyButton.delete(e.code);
    lift(b, e.timeStamp);
  });
}

function loadPrefs() {
  try { return JSON.parse(localStorage.getItem(PREFS_KEY) || "{}"); } catch (e) { return {}; }
}

function setLayout(prefs) {
  const t = $("#table");
  t.className = (prefs.flat ? "flat" : "upright") + " pads-" + prefs.pads;
  $("#flat").setAttribute("aria-pressed", String(!!prefs.flat));
  $("#npads").value = String(prefs.pads);
  localStorage.setItem(PREFS_KEY, JSON.stringify(prefs));
}

async function live(wb) {
  const prefs = Object.assign({ pads: 2, flat: false }, loadPrefs());
  if (params.has("pads")) prefs.pads = Number(params.get("pads"));
  if (params.has("flat")) prefs.flat = params.get("flat") === "1";
  setLayout(prefs);
  $("#flat").onclick = () => { prefs.flat = !prefs.flat; setLayout(prefs); };
  $("#npads").onchange = (e) => { prefs.pads = Number(e.target.value); setLayout(prefs); };

  restoreFlash(mp.FS);
  board = wb.Board("/flash", params.get("uid") || "web", TOUCH_TIE_US, 0);
  window.speedref.board = board;
  mp.globals.set("board", board);
  t0 = performance.now();
  board.boot_line();
  board.step();  // the loop's first pass shows the boot screen
  const game = params.get("game");
  if (game) board.start_game(game);
  wireInputs();
  pump(performance.now());
  requestAnimationFrame(frame);
  setInterval(() => pump(performance.now()), 250);  // keeps time moving when frames stop
  addEventListener("pagehide", () => saveFlash(mp.FS));
  setStatus("MicroPython " + (mp.runPython("import sys; sys.version") || "") + " (WebAssembly)");
  window.speedref.ready = true;
  window.speedref.t0 = t0;
  window.speedref.hold = HOLD_MS;
  document.title = "speedref";
}

if ("serviceWorker" in navigator && !params.has("script") && params.get("sw") !== "0") {
  navigator.serviceWorker.register("sw.js").catch((e) => console.warn("no offline cache:", e));
}

start().catch((e) => {
  console.error(e);
  setStatus("error: " + e.message);
  logEl.append("error: " + (e.stack || e.message) + "\n");
  document.title = "error";
});
