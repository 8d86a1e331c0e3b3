// The referee on a web page.  MicroPython (WebAssembly) runs the firmware's
// own device: web/board.py wires it to virtual pins, OLED and buzzer.  This
// file is only the board's edge: touches and keys become button edges at
// their event timestamps, the OLED's display RAM is drawn on canvases, the
// buzzer's tones play on WebAudio, the flash files live in localStorage.
//
// Page options (after #, like a query): game=<a game id of speedref/games.py>
// starts that game with its defaults; pads=2|3|4; flat=0|1 (lying flat
// between the players); hold=MS (how far the board runs behind the page's
// clock, see HOLD_MS); uid=ID (the records' id prefix); script=<base64url>
// replays an event script in simulated time (the speedref-sim --script
// format) and writes the log; heap=1 measures the heap in a replay; sw=0
// leaves the service worker out.  A bad option is ignored with a note.
import { loadMicroPython } from "./micropython.mjs";

const FLASH_KEY = "speedref-flash";
const SET_ASIDE_KEY = "speedref-flash.bad";  // a store the page could not use, kept as it was
const PREFS_KEY = "speedref-prefs";
const ON = [0xdf, 0xf3, 0xff];
const OFF = [0, 0, 0];

const $ = (s) => document.querySelector(s);
const logEl = $("#log");
const statusEl = $("#status");
const noteEl = $("#note");
let mp = null;
let board = null;
const logLines = [];
let lastRecord = null;
const marks = {};  // performance.now() at milestones, for the benchmark
window.speedref = { marks, logLines, ready: false };

function setStatus(s) { statusEl.textContent = s; }

// Notes for the person looking after the device: options ignored, stored
// files set aside, crashes.  Shown as text, never as markup.
const notes = [];
function note(s) {
  notes.push(s);
  noteEl.textContent = notes.join("; ");
  console.warn(s);
}
const shown = (v) => JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v);

// ---- page options -----------------------------------------------------------
// Each option's check; a value that fails it is ignored with a note and the
// option keeps its default.  game= is checked against the registry later.
const OPTIONS = {
  game: { ok: (v) => /^[a-z0-9_]{1,32}$/.test(v), want: "a game id" },
  pads: { ok: (v) => /^[234]$/.test(v), want: "2, 3 or 4" },
  flat: { ok: (v) => /^[01]$/.test(v), want: "0 or 1" },
  hold: { ok: (v) => /^[0-9]{1,4}$/.test(v) && Number(v) <= 1000, want: "whole milliseconds, 0 to 1000" },
  uid: { ok: (v) => /^[A-Za-z0-9_-]{1,32}$/.test(v), want: "1 to 32 letters, digits, - or _" },
  script: { ok: (v) => /^[A-Za-z0-9_-]+={0,2}$/.test(v), want: "a script in base64url" },
  heap: { ok: (v) => /^[01]$/.test(v), want: "0 or 1" },
  sw: { ok: (v) => /^[01]$/.test(v), want: "0 or 1" },
};
const params = new Map();
for (const [k, v] of new URLSearchParams(location.hash.slice(1))) {
  const opt = Object.hasOwn(OPTIONS, k) ? OPTIONS[k] : null;
  if (!opt) note("option " + shown(k) + " ignored: no such option");
  else if (!opt.ok(v)) note(k + "=" + shown(v) + " ignored: " + k + " is " + opt.want);
  else params.set(k, v);
}
function dropOption(k, why) {
  note(k + "=" + shown(params.get(k)) + " ignored: " + why);
  params.delete(k);
}

// The board runs this far behind the page's clock, so that a touch reaches
// it before the loop passes the touch's timestamp: touches are handed to
// the page some milliseconds after the panel saw them (docs/web.md).  An
// edge that arrives later still is taken at its own timestamp.
const HOLD_MS = params.has("hold") ? Number(params.get("hold")) : 40;

function b64urlDecode(s) {
  const b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
  const bytes = Uint8Array.from(b, (c) => c.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

// The last line of a Python traceback ("ZeroDivisionError: divide by zero").
function pyError(e) {
  const lines = String((e && e.message) || e).trim().split("\n");
  return lines[lines.length - 1];
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
  window.speedref.micropython = bundle.micropython;
  // A Python expression's value (as JSON) for tests and the benchmark.
  window.speedref.py = (expr) => {
    mp.runPython("import json\n_r = json.dumps(" + expr + ")");
    return JSON.parse(mp.globals.get("_r"));
  };
  wireDownloads();
  if (params.has("game") && !wb.game_known(params.get("game"))) dropOption("game", "no such game");
  if (params.has("script") && await replay(wb)) return;
  return live(wb);
}

// ---- replay: a script in simulated time ----------------------------------
// False (with a note) when the script cannot be read: then the page runs live.
async function replay(wb) {
  const game = params.get("game") || null;
  const measure = params.get("heap") === "1";
  let r;
  try {
    r = wb.Replay(b64urlDecode(params.get("script")), game, "/flash", params.get("uid") || "sim", measure);
  } catch (e) {
    dropOption("script", "not a script (" + pyError(e) + ")");
    return false;
  }
  document.body.classList.add("replay");
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
  return true;
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
// The browser keeps the flash as {file name inside /flash: its bytes in
// base64}.  A name is a plain file name (letters, digits, "_", "-", ".";
// not starting with "."), alone or in the records folder ("rec/", the
// storage module's one folder), so no name from storage ever leads outside
// the flash folder or puts a folder where the storage module writes a file.
// A store the page cannot use whole is set aside as it was (SET_ASIDE_KEY)
// and every good file in it is restored: the storage module then checks
// each file as on a board (a damaged one becomes <name>.bad, the backup used).
const NAME_PART = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;
const FOLDERS = ["rec"];
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function flashName(name) {
  const parts = name.split("/");
  if (parts.length === 2 && !FOLDERS.includes(parts[0])) return false;
  return parts.length <= 2 && parts.every((p) => NAME_PART.test(p)) && !FOLDERS.includes(parts[parts.length - 1]);
}

// The files of a stored flash: {files: [[name, bytes]], problems: [text]}.
function readStore(raw) {
  const out = { files: [], problems: [] };
  if (raw === null) return out;
  let obj;
  try { obj = JSON.parse(raw); } catch (e) { out.problems.push("not JSON"); return out; }
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) {
    out.problems.push("not an object of files");
    return out;
  }
  for (const [name, b64] of Object.entries(obj)) {
    if (!flashName(name)) out.problems.push(shown(name) + " is no file name in the flash folder");
    else if (typeof b64 !== "string" || !BASE64.test(b64)) out.problems.push(shown(name) + " is not base64");
    else out.files.push([name, Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))]);
  }
  return out;
}

function setAside(raw, problems, what) {
  try {
    localStorage.setItem(SET_ASIDE_KEY, raw);
    note(what + " set aside in localStorage \"" + SET_ASIDE_KEY + "\" (" + problems[0] +
         (problems.length > 1 ? " and " + (problems.length - 1) + " more" : "") + ")");
  } catch (e) {
    note(what + " could not be set aside (" + e.message + "): " + problems[0]);
  }
}

function restoreFlash(FS) {
  let raw = null;
  try { raw = localStorage.getItem(FLASH_KEY); } catch (e) { note("no browser storage: nothing is kept"); }
  const { files, problems } = readStore(raw);
  FS.mkdirTree("/flash/rec");
  for (const [name, bytes] of files) {
    const full = "/flash/" + name;
    try {
      FS.mkdirTree(full.slice(0, full.lastIndexOf("/")));
      FS.writeFile(full, bytes);
    } catch (e) {
      problems.push(shown(name) + ": " + (e.message || e.code || e));
    }
  }
  if (problems.length) setAside(raw, problems, "the stored flash (its good files restored) was");
}

// The flash files as the browser keeps them (the FLASH_KEY format).
function flashFiles(FS) {
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
  return out;
}

function saveFlash(FS) {
  try { localStorage.setItem(FLASH_KEY, JSON.stringify(flashFiles(FS))); }
  catch (e) { setStatus("could not save: " + e.message); }
}

// Remove flash files whose name `drop` picks (empty folders stay).
function dropFiles(FS, drop) {
  for (const name of Object.keys(flashFiles(FS))) if (drop(name)) FS.unlink("/flash/" + name);
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

// The newest record: this page's last finished game, else the newest kept on
// the flash (a record stored before a reload).
function newestRecord() {
  if (lastRecord) return lastRecord;
  return board ? JSON.parse(board.newest_record_json()) : null;
}

// Both downloads wait for a stored record: an empty records file would be
// a 0-byte download that speedref-results import refuses.
function showRecords() {
  const none = !newestRecord();
  $("#record").disabled = none;
  $("#records").disabled = none;
  $("#records").title = none ? "nothing stored yet: finish a game first" : "every stored record, as log lines";
}

function wireDownloads() {
  $("#record").onclick = () => {
    const rec = newestRecord();
    if (rec) download("speedref-" + (rec.id || "record") + ".json", JSON.stringify(rec, null, 1) + "\n",
      "application/json");
  };
  $("#logfile").onclick = () => download("speedref-log.jsonl", logLines.join("\n") + "\n",
    "application/x-ndjson");
  $("#records").onclick = () => {
    const text = board ? board.records_jsonl() : "";
    if (text) download("speedref-records.jsonl", text + "\n", "application/x-ndjson");
    else showRecords();   // nothing stored (any more): the button says so
  };
  const panel = $("#logpanel");
  const openLog = (open) => {
    panel.hidden = !open;
    $("#logbutton").setAttribute("aria-expanded", String(open));
    if (open) logEl.scrollTop = logEl.scrollHeight;
  };
  $("#logbutton").onclick = () => openLog(panel.hidden);
  $("#logclose").onclick = () => openLog(false);
}

// ---- names: the table's, the seats', the roster (docs/web.md, "Names") ------------
// The table's name and the roster live on the device's flash (settings.json,
// roster.json: in localStorage with the rest of it); the seats' names are this
// page's (prefs.seated), handed to the device at each boot.  Every name is
// checked by the device's own check (speedref/names.py, web/board.py
// set_names): a refusal is shown as text and nothing changes.
function seatFields() { return Array.from(document.querySelectorAll(".seatname")); }

function fillNames() {
  if (!board) return;
  const st = JSON.parse(board.names_json());
  $("#tablename").value = st.table === st.default ? "" : st.table;
  $("#tablename").placeholder = st.default;
  $("#rostertext").value = st.roster.join("\n");
  const seated = prefs.seated || [];
  seatFields().forEach((f, i) => { f.value = seated[i] || ""; });
}

function applySeated() {
  // the seats' names kept by this page, given to the device as it boots
  if (!board || !prefs.seated) return;
  const st = JSON.parse(board.names_json());
  const why = board.set_names(st.table === st.default ? "" : st.table, JSON.stringify(prefs.seated),
    st.roster.join("\n"));
  if (why) { note("the seats' names kept here were left out: " + why); prefs.seated = null; }
}

function wireNames() {
  const panel = $("#namespanel");
  const open = (o) => {
    panel.hidden = !o;
    $("#namesbutton").setAttribute("aria-expanded", String(o));
    $("#nameserr").textContent = "";
    if (o) fillNames();
  };
  // Enter in a one-line field saves, as in any form; in the roster box it
  // is a new line.
  for (const f of [$("#tablename"), ...seatFields()]) {
    f.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.isComposing) { e.preventDefault(); $("#namessave").click(); }
    });
  }
  $("#namesbutton").onclick = () => open(panel.hidden);
  $("#namesclose").onclick = () => open(false);
  $("#namessave").onclick = () => {
    if (!board) return;
    // composed (NFC), as the laptop's tools compose a name: the page's
    // MicroPython has no unicodedata and refuses a combining accent
    const nfc = (s) => s.normalize("NFC");
    const seated = seatFields().map((f) => nfc(f.value));
    const why = board.set_names(nfc($("#tablename").value), JSON.stringify(seated), nfc($("#rostertext").value));
    $("#nameserr").textContent = why || "saved";
    if (why) return;
    prefs.seated = seated.some((v) => v.trim()) ? seated.map((v) => v.trim()) : null;
    setLayout();  // keeps prefs
    fillNames();
    if (board.flash_changed()) saveFlash(mp.FS);
  };
}

// ---- live: the device on this page's clock --------------------------------------
let wbMod = null;  // web.board
let t0 = 0;
const pending = [];  // edges not yet handed to the board: {t, button, down}
const usOf = (ts) => Math.max(0, Math.round((ts - t0) * 1000));

// A crash in the device is what a board's main.py does with one: the error
// is logged and the device starts again from its flash (a game resumes from
// its save).  CRASH_LIMIT crashes in a row (no clean minute between) set the
// save and settings aside, as the files it boots and resumes from; as many
// again set the whole flash aside; after that the page gives up and says so.
const CRASH_LIMIT = 3;
const CLEAN_MS = 60000;
let crashes = 0;
let bootedAt = 0;

function boot(first) {
  board = null;
  // a touchscreen's tie window for "auto" (web/board.py TOUCH_TIE_US)
  const b = wbMod.Board("/flash", params.get("uid") || "web", wbMod.TOUCH_TIE_US, 0);
  t0 = performance.now();
  bootedAt = t0;
  pending.length = 0;
  b.boot_line();
  b.step();  // the loop's first pass shows the boot screen
  if (first && params.has("game")) b.start_game(params.get("game"));
  board = b;
  window.speedref.board = b;
  window.speedref.t0 = t0;
  mp.globals.set("board", b);
  applySeated();
  showRecords();
}

// Boot, restarting after each crash; throws when the page gives up.
function bootSafely(first) {
  for (;;) {
    try { return boot(first); } catch (e) { if (!crashed(e)) throw e; }
    first = false;
  }
}

// Log a crash and decide what the next boot starts from; false: give up.
function crashed(e) {
  board = null;
  const msg = pyError(e);
  addLine(JSON.stringify({ ev: "error", what: "crash", msg, traceback: String((e && e.message) || e) }));
  if (performance.now() - bootedAt > CLEAN_MS) crashes = 0;
  crashes += 1;
  if (crashes % CRASH_LIMIT) {
    note("the referee crashed (" + msg + ") and started again");
    return true;
  }
  const FS = mp.FS;
  const why = ["the referee crashed " + CRASH_LIMIT + " times in a row: " + msg];
  if (crashes === CRASH_LIMIT) {
    setAside(JSON.stringify(flashFiles(FS)), why, "the stored save and settings (the records kept) were");
    dropFiles(FS, (n) => /^(game|settings)\.json/.test(n));
  } else if (crashes === 2 * CRASH_LIMIT) {
    note("the whole stored flash left out (" + why[0] + ")");
    dropFiles(FS, () => true);
  } else {
    return false;
  }
  saveFlash(FS);
  return true;
}

function fail(e) {
  board = null;
  console.error(e);
  setStatus("error: " + pyError(e));
  logEl.append("error: " + ((e && (e.stack || e.message)) || e) + "\n");
  document.title = "error";
}

function pushEdge(ts, button, down) {
  pending.push({ t: usOf(ts), button, down });
  setTimeout(() => pump(performance.now()), HOLD_MS + 1);
}

function pump(now) {
  if (!board) return;
  try {
    pumpBoard(now);
  } catch (e) {
    try {
      if (!crashed(e)) throw e;
      bootSafely(false);
    } catch (e2) {
      fail(e2);
    }
  }
}

function pumpBoard(now) {
  const horizon = usOf(now - HOLD_MS);
  pending.sort((a, b) => a.t - b.t);  // stable: same-instant edges keep their order
  while (pending.length && pending[0].t <= horizon) {
    const e = pending.shift();
    board.edge(e.t, e.button, e.down);
  }
  board.run_until(horizon);
  // What the players wait for first, as on the board: the screen and the
  // tones; then the passes' log lines and their save (board.commit).
  const hex = board.new_screen();
  let drawn = 0;
  if (hex) {
    drawScreen(hex);
    drawn = performance.now();
    if (marks.menu === undefined) marks.menu = drawn;
  }
  playTones(board.take_tones());
  board.commit();
  const lines = board.take_lines();
  if (lines) {
    for (const line of lines.split("\n")) {
      const obj = addLine(line);
      if (obj && obj.ev === "slap" && drawn) marks.verdict = drawn;  // the verdict was on the canvas
    }
    logEl.scrollTop = logEl.scrollHeight;
  }
  const pads = board.game_started();  // a game started or resumed: its seats
  if (pads) { prefs.pads = pads; setLayout(); }
  if (board.flash_changed()) {
    saveFlash(mp.FS);
    showRecords();
  }
}

function frame(now) {
  pump(performance.now());
  requestAnimationFrame(frame);
}

const KEY_TAP = { "1": 0, z: 0, "2": 1, m: 1, "3": 2, "4": 3, ArrowUp: 4, k: 4, ArrowDown: 5, j: 5,
  Enter: 6, " ": 6, o: 6, Backspace: 7, Escape: 7, b: 7 };
const KEY_HOLD = { Z: 0, "!": 0, M: 1, "@": 1, "#": 2, $: 3, O: 6 };

// Where a key is text: a text field, the roster box, a selector, anything
// editable, and the names panel as a whole (its buttons take Enter and
// Space as buttons do).
function typing(el) {
  if (!el || el === document.body) return false;
  if (el.isContentEditable) return true;
  if (["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)) return true;
  return Boolean(el.closest && el.closest("#namespanel"));
}

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
    // Keys typed into a field (a name, the roster) are text, never the
    // device's buttons: `Bob` is B, o, b, not BACK and OK; Enter in the
    // roster box is a new line.  A key already down on a button still
    // comes up (keyup below), so no pad is left held.
    if (typing(e.target)) return;
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

// The table's layout, kept between visits: pads 2|3|4, flat true|false, and
// the seats' names (null: each seat picks on the device).
// Anything else stored there is left out (the defaults are used).
const prefs = { pads: 2, flat: false, seated: null };

function loadPrefs() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(PREFS_KEY) || "{}"); } catch (e) { saved = null; }
  if (saved && [2, 3, 4].includes(saved.pads)) prefs.pads = saved.pads;
  if (saved && typeof saved.flat === "boolean") prefs.flat = saved.flat;
  // the seats' names: four strings at most (the device checks each as it boots)
  if (saved && Array.isArray(saved.seated) && saved.seated.length <= 4 &&
      saved.seated.every((v) => typeof v === "string" && v.length <= 40)) prefs.seated = saved.seated;
}

function setLayout() {
  const t = $("#table");
  t.className = (prefs.flat ? "flat" : "upright") + " pads-" + prefs.pads;
  $("#flat").setAttribute("aria-pressed", String(prefs.flat));
  $("#npads").value = String(prefs.pads);
  try { localStorage.setItem(PREFS_KEY, JSON.stringify(prefs)); } catch (e) { /* kept for this visit */ }
}

async function live(wb) {
  wbMod = wb;
  loadPrefs();
  if (params.has("pads")) prefs.pads = Number(params.get("pads"));
  if (params.has("flat")) prefs.flat = params.get("flat") === "1";
  setLayout();
  // The pads follow each game as it starts; the selector is for a table
  // that wants something else.
  $("#flat").onclick = () => { prefs.flat = !prefs.flat; setLayout(); };
  $("#npads").onchange = (e) => { prefs.pads = Number(e.target.value); setLayout(); };

  restoreFlash(mp.FS);
  bootSafely(true);
  wireInputs();
  wireNames();
  pump(performance.now());
  requestAnimationFrame(frame);
  setInterval(() => pump(performance.now()), 250);  // keeps time moving when frames stop
  addEventListener("pagehide", () => { if (board) saveFlash(mp.FS); });
  setStatus("MicroPython " + window.speedref.micropython + " (WebAssembly)");
  window.speedref.ready = true;
  window.speedref.hold = HOLD_MS;
  window.speedref.pending = pending;  // touches not yet handed to the board (tests)
  document.title = "speedref";
}

if ("serviceWorker" in navigator && !params.has("script") && params.get("sw") !== "0") {
  navigator.serviceWorker.register("sw.js").catch((e) => console.warn("no offline cache:", e));
}

start().catch(fail);
