// The emulated Pico: rp2040js runs MicroPython's own rp2 firmware, and this
// process is the board's surroundings.  Python (emu/board.py) is the master
// of simulated time: it sends one JSON command a line on stdin, this process
// runs the RP2040 as far as asked and answers with JSON lines on stdout:
// what the board did meanwhile (USB CDC bytes, I2C transactions, PWM
// register changes, flash writes), then {"done": ..., "ns": <simulated ns>}.
//
// Host-side models kept here, each once:
//   - buttons: switches to GND set at exact simulated instants: pressed, the
//     host drives the pin low; let go, the pin floats to its pad's pull;
//   - I2C: every transaction addressed to the OLED is acknowledged and sent
//     to Python, which decodes it with the simulator's VirtualSSD1306; each
//     byte takes 9 SCL periods of the configured bus clock;
//   - PWM: register writes of the buzzer's slice, with their instant;
//   - flash: erase and program done on the emulated flash array, taking the
//     time a W25Q16JV takes, with the CPU held off meanwhile, so a power cut
//     can fall inside one;
//   - USB CDC: bytes both ways (emu/serve.py bridges them to a pty).
//
// With cfg.trace the order of what the board does is recorded, each at its
// CPU cycle since power-up (ns / 8): a write that changes an output pin of
// cfg.trace_pins ("gpio" events: the pad lights), the end of every I2C byte
// on the bus (an "i2c" event's "byte_cycles"), and the start and end of
// every flash erase and program (a "flash" event's "start_cycles" and
// "cycles").  Tests read this order instead of timing anything.
//
// rp2040js 1.4.1 defects handled here (docs/emulator.md, same numbers):
//   1. GPIO pads reset to 0x36 (input disabled) instead of 0x56, and no pull
//      resistors: pads set to 0x56, floating pins follow their pull bit.
//   2. UART raises its TX interrupt again each time it is cleared, so
//      MicroPython's UART handler never returns: raised only when a byte is
//      written.
//   3. Flash erase and program are not emulated (the bootrom's routines talk
//      to an SSI the emulator does not model): the bootrom's
//      flash_range_erase ("RE") and flash_range_program ("RP") are trapped.
//   4. PIO runs 1,000 steps per host event-loop turn, ignoring the clock
//      divider, [delay] cycles and the CPU's clock: each enabled state machine
//      is stepped here from the CPU's cycle count, honouring both.
//   5. USB: every OUT transfer the device arms is answered at once, empty
//      when the host has nothing to send: an interrupt storm, the CPU never
//      sleeps.  The answer waits until the host has bytes.
//   6. PIO FIFOs stay 4 words deep when SHIFTCTRL joins them: joined here.
//   7. I2C completes a byte at once: bus time modelled (above).
//   8. A watchdog reset does nothing: the chip is rebuilt around its flash.
//   9. Soft reset's SIO interpolator probes warn on stderr: dropped.
//  10. The ring oscillator is not modelled: its random bit reads 1 for ever,
//      so os.urandom is the same on every emulated board.  A random bit.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import readline from 'node:readline';
import { RP2040, USBCDC, ConsoleLogger, LogLevel, FIFO } from 'rp2040js';

const FLASH_BASE = 0x10000000;
const CYCLE_NS = 8; // 125 MHz
const PAD_RESET = 0x56;
// The PIO runs behind the CPU by up to this many cycles (4 us): its pushes
// and interrupts reach the CPU that much later, its samples are exact.
const PIO_CHUNK = 512;
// W25Q16JV datasheet, typical: 4 KB sector erase 45 ms, 256-byte page program 0.4 ms.
const ERASE_NS_PER_SECTOR = 45e6;
const PROGRAM_NS_PER_PAGE = 0.4e6;
const ROSC_RANDOMBIT = 0x1c; // ROSC register offset (RP2040 datasheet 2.17.8)

const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
// rp2040js warns on stderr when MicroPython's soft reset probes the SIO
// interpolators, which it does not model: harmless, and not the board's output.
const warn = console.warn;
console.warn = (...args) => {
  if (!String(args[0]).includes('invalid SIO address')) warn(...args);
};

function loadUF2(flash, data) {
  for (let i = 0; i + 512 <= data.length; i += 512) {
    const v = new DataView(data.buffer, data.byteOffset + i, 512);
    if (v.getUint32(0, true) !== 0x0a324655 || v.getUint32(4, true) !== 0x9e5d5157) {
      throw new Error('not a UF2 block at ' + i);
    }
    const addr = v.getUint32(12, true);
    const size = v.getUint32(16, true);
    flash.set(data.subarray(i + 32, i + 32 + size), addr - FLASH_BASE);
  }
}

function joinFifos(sm) {
  // Defect 6: rp2040js keeps 4-word FIFOs whatever SHIFTCTRL says.  With
  // FJOIN_RX (bit 31) the RX FIFO takes the TX FIFO's storage: 8 words.
  const depth = sm.shiftCtrl & (1 << 31) ? 8 : 4;
  if (sm.rxFIFO.size !== depth) {
    const fifo = new FIFO(depth);
    while (!sm.rxFIFO.empty && !fifo.full) fifo.push(sm.rxFIFO.pull());
    sm.rxFIFO = fifo;
  }
}

function romFunction(mcu, code) {
  // The bootrom's function table: halfword pairs (code, address) from the
  // pointer at 0x14, ending with code 0 (RP2040 datasheet 2.8.3).
  const rom = new DataView(mcu.bootrom.buffer);
  let p = rom.getUint16(0x14, true);
  for (;;) {
    const c = rom.getUint16(p, true);
    if (c === 0) return -1;
    if (c === code) return rom.getUint16(p + 2, true);
    p += 4;
  }
}
const romCode = (s) => s.charCodeAt(0) | (s.charCodeAt(1) << 8);

class Bench {
  constructor(cfg) {
    this.cfg = cfg;
    this.bootrom = new Uint32Array(new Uint8Array(fs.readFileSync(cfg.bootrom)).buffer);
    const flash = new Uint8Array(16 * 1024 * 1024).fill(0xff);
    const image = fs.readFileSync(cfg.firmware);
    if (cfg.firmware.endsWith('.uf2')) loadUF2(flash, image);
    else flash.set(image, 0);
    if (cfg.flash) flash.set(fs.readFileSync(cfg.flash), cfg.flash_offset || 0);
    this.epoch = 0; // simulated ns at the last power-up or reset
    this.resets = 0;
    this.skipped = 0; // PIO cycles skipped in steady loops
    this.instructions = 0;
    this.exactPio = !!cfg.exact_pio;
    this.roscSeed = cfg.rosc_seed || 0; // 0: a fresh random seed at every power-up
    this.traceIrq = !!cfg.trace_irq;
    this.trace = !!cfg.trace;
    this.tracePins = (cfg.trace_pins || []).reduce((m, p) => m | (1 << p), 0);
    this.events = [];
    // Bytes the host has sent and the device has not taken: whole chunks and
    // a read offset into the first (shifting a byte array a byte at a time
    // costs its length each time: a 1 MB line took hours).
    this.cdcQueue = [];
    this.cdcHead = 0;
    this.powerUp(flash);
  }

  now() {
    return this.epoch + this.mcu.clock.nanos;
  }

  cycle() {
    // The CPU cycle since the last power-up or reset, from the clock: the
    // same count in an instruction, an alarm (I2C) or a stall (flash).
    return Math.round(this.mcu.clock.nanos / CYCLE_NS);
  }

  powerUp(flash) {
    // A new chip with this flash: power-up, or a reset (watchdog, machine.reset()).
    const mcu = (this.mcu = new RP2040());
    mcu.logger = new ConsoleLogger(LogLevel.Error);
    mcu.loadBootrom(this.bootrom);
    mcu.flash.set(flash);
    this.cycles = 0; // CPU cycles since power-up (the time base of PIO stepping)
    this.pendingFlash = null;
    this.resetRequested = false;
    this.fastMemory();
    mcu.peripherals[0x40058].onWatchdogTrigger = () => {
      this.resetRequested = true;
    };
    this.fixPads();
    this.fixRosc();
    this.fixUarts();
    this.trapFlash();
    this.takePio();
    this.modelI2C();
    this.watchPwm();
    if (this.trace) this.traceGpio();
    this.usb();
    mcu.core.PC = 0x10000000;
  }

  // -- speed: the memory accesses every instruction makes ---------------------------
  fastMemory() {
    // Not a defect, the emulator's own wall time: rp2040js looks every word
    // store up among the peripherals first (an object keyed by address
    // blocks, a dictionary lookup in V8), SRAM included, which is most of
    // the stores a MicroPython program makes.  A store to SRAM goes straight
    // to it (no peripheral lives at an SRAM address, so the answer is the
    // same), and the peripheral lookup is an array index.  The same bytes
    // are written and the same peripherals reached: only the lookup is
    // quicker (a console flood's wall time a byte, benchmarks/bench_console_flood.py).
    const mcu = this.mcu;
    const byBlock = new Array(1 << 18).fill(null); // filled: a dense array, not a dictionary
    for (const key of Object.keys(mcu.peripherals)) byBlock[Number(key) >>> 2] = mcu.peripherals[key];
    mcu.findPeripheral = (address) => byBlock[address >>> 14];
    const RAM = 0x20000000;
    const ramEnd = RAM + mcu.sram.length;
    const sramView = mcu.sramView;
    const write = mcu.writeUint32.bind(mcu);
    mcu.writeUint32 = (address, value) => {
      address = address >>> 0;
      if (address >= RAM && address + 3 < ramEnd) sramView.setUint32(address - RAM, value, true);
      else write(address, value);
    };
  }

  // -- defect 10: the ROSC's random bit -------------------------------------------
  fixRosc() {
    // rp2040js leaves the ring oscillator unimplemented: every register reads
    // all ones, so its RANDOMBIT is always 1 and os.urandom (the pico-sdk's
    // pico_rand, which also mixes the timer and the board id, both the same at
    // every emulated power-up) gives the same bytes on every emulated board.
    // On silicon that bit is the oscillator's jitter: here it is a random bit,
    // from a seeded generator when cfg.rosc_seed is given (a run to repeat).
    const rosc = this.mcu.peripherals[0x40060];
    let state = this.roscSeed >>> 0 || (randomBytes(4).readUInt32LE(0) | 1);
    const bit = () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return state & 1;
    };
    const read = rosc.readUint32.bind(rosc);
    rosc.readUint32 = (offset) => (offset === ROSC_RANDOMBIT ? bit() : read(offset));
  }

  reset() {
    const flash = this.mcu.flash;
    this.epoch += this.mcu.clock.nanos;
    this.resets++;
    this.events.push({ ev: 'reset', ns: this.epoch });
    this.powerUp(flash);
  }

  // -- defect 1: pad reset value; buttons that float to their pull ------------
  fixPads() {
    const mcu = this.mcu;
    for (const pin of mcu.gpio) {
      pin.padValue = PAD_RESET;
      pin.checkForUpdates();
    }
    // A button is a switch to GND: pressed, it drives its pin low; let go,
    // nothing drives the pin and it reads what its pad's pull gives (the
    // firmware's PULL_UP).  rp2040js has no pulls, so floating pins follow
    // the pad register here, re-read after every write to it.
    if (!this.driven) this.driven = new Map(); // pin -> level the host drives
    const pads = mcu.peripherals[0x4001c];
    const write = pads.writeUint32.bind(pads);
    pads.writeUint32 = (offset, value) => {
      write(offset, value);
      this.settleFloating();
    };
    this.settleFloating();
  }

  settleFloating() {
    for (const pin of this.mcu.gpio) {
      let level;
      if (this.driven.has(pin.index)) level = this.driven.get(pin.index);
      else if (pin.pullupEnabled) level = true;
      else if (pin.pulldownEnabled) level = false;
      else continue; // floating with no pull: keeps what it read
      // setInputValue flags an edge even when the level is the same: only
      // call it on a real change.
      if (pin.rawInputValue !== level) pin.setInputValue(level);
    }
  }

  // -- defect 2: UART TX interrupt storm --------------------------------------
  fixUarts() {
    const TXINTR = 1 << 5;
    for (const uart of this.mcu.uart) {
      uart.checkInterrupts = function () {
        this.rp2040.setInterrupt(this.irq, !!(this.interruptStatus & this.interruptMask));
      };
      const write = uart.writeUint32.bind(uart);
      uart.writeUint32 = (offset, value) => {
        write(offset, value);
        if (offset === 0) {
          uart.interruptStatus |= TXINTR; // a byte went out: the FIFO has room again
          uart.checkInterrupts();
        }
      };
    }
  }

  // -- defect 3: flash erase and program ---------------------------------------
  trapFlash() {
    const mcu = this.mcu;
    this.romErase = romFunction(mcu, romCode('RE')) & ~1; // Thumb bit off: compared with the PC
    this.romProgram = romFunction(mcu, romCode('RP')) & ~1;
    this.flashOps = 0;
  }

  flashTrap() {
    // Called with the CPU about to run a bootrom flash routine: do its work
    // on the flash array, take its time, and return to the caller.
    const core = this.mcu.core;
    const r = core.registers;
    let ns;
    let op;
    if (core.PC === this.romErase) {
      const offset = r[0] >>> 0;
      const count = r[1] >>> 0;
      op = { op: 'erase', offset, count };
      ns = Math.ceil(count / 4096) * ERASE_NS_PER_SECTOR;
    } else {
      const offset = r[0] >>> 0;
      const src = r[1] >>> 0;
      const count = r[2] >>> 0;
      const data = new Uint8Array(count);
      for (let i = 0; i < count; i++) data[i] = this.mcu.readUint8(src + i);
      op = { op: 'program', offset, count, data };
      ns = Math.ceil(count / 256) * PROGRAM_NS_PER_PAGE;
    }
    this.flashOps++;
    op.startCycles = this.cycle();
    op.startNs = this.now();
    this.pendingFlash = op;
    this.flashStart = this.mcu.clock.nanos;
    this.flashEnd = this.mcu.clock.nanos + ns;
    core.PC = core.registers[14] & ~1; // return to the caller (LR, Thumb bit dropped)
  }

  finishFlash(fraction = 1) {
    // Apply a flash operation, or the first `fraction` of it at a power cut:
    // an erase sets bytes to 0xFF front to back, a program can only clear bits.
    const op = this.pendingFlash;
    this.pendingFlash = null;
    const flash = this.mcu.flash;
    const n = Math.floor(op.count * fraction);
    if (op.op === 'erase') flash.fill(0xff, op.offset, op.offset + n);
    else for (let i = 0; i < n; i++) flash[op.offset + i] &= op.data[i];
    const ev = { ev: 'flash', op: op.op, offset: op.offset, count: op.count, applied: n, ns: this.now() };
    if (this.trace) Object.assign(ev, { start_cycles: op.startCycles, start_ns: op.startNs, cycles: this.cycle() });
    this.events.push(ev);
  }

  // -- defect 4: PIO stepped from the CPU's cycle count ------------------------
  takePio() {
    this.machines = [];
    for (const pio of this.mcu.pio) {
      pio.run = () => {}; // no free-running PIO on the host's event loop
      for (const sm of pio.machines) {
        sm.nextAt = 0;
        this.machines.push(sm);
      }
      // The state machines run behind the CPU by up to PIO_CHUNK cycles
      // (pioTo); the CPU never sees that: every PIO register access first
      // brings them up to its own cycle.
      const read = pio.readUint32.bind(pio);
      pio.readUint32 = (offset) => {
        this.pioTo(this.cycles);
        return read(offset);
      };
      // A state machine starts at the CPU cycle that enables it.
      const write = pio.writeUint32.bind(pio);
      pio.writeUint32 = (offset, value) => {
        this.pioTo(this.cycles);
        const was = pio.machines.map((sm) => sm.enabled);
        write(offset, value);
        pio.machines.forEach((sm, i) => {
          if (sm.enabled && !was[i]) sm.nextAt = this.cycles;
          joinFifos(sm);
        });
        this.pioActive = this.anyPio();
      };
    }
    this.pioAt = this.cycles;
  }

  pioTo(target) {
    // Every enabled state machine runs up to CPU cycle `target`; a steady
    // loop is skipped once proven (probeStep, trySkip).
    if (target <= this.pioAt) return;
    if (!this.anyPio()) {
      this.pioAt = target;
      return;
    }
    this.pioAt = this.stepPio(target, false);
  }

  stepPio(upTo, wake) {
    // Every enabled state machine runs its instructions up to CPU cycle upTo
    // (a steady loop skipped once proven: probeStep, trySkip); with `wake`,
    // only until the step after which the sleeping CPU is awake.  Returns
    // the CPU cycle they have reached.
    if (!this.exactPio && upTo - this.pioAt >= 256) {
      for (const sm of this.machines) {
        if (sm.enabled && !sm.probe && !(sm.noProbeUntil > this.pioAt)) sm.probe = { head: -1 };
      }
    }
    this.skipTarget = upTo;
    const core = this.mcu.core;
    let reached = upTo;
    for (const pio of this.mcu.pio) {
      let ran = false;
      for (const sm of pio.machines) {
        if (!sm.enabled) {
          sm.nextAt = upTo;
          sm.probe = null;
          continue;
        }
        const div = (sm.clockDivInt || 65536) + sm.clockDivFrac / 256;
        while (sm.nextAt <= upTo) {
          const before = sm.cycles;
          sm.step();
          const used = Math.max(1, sm.cycles - before);
          sm.nextAt += used * div;
          ran = true;
          if (sm.probe) this.probeStep(sm, pio);
          if (wake && !core.waiting) {
            reached = Math.min(upTo, Math.ceil(sm.nextAt));
            break;
          }
        }
      }
      if (ran) pio.checkChangedPins();
    }
    return reached;
  }

  // -- steady loops: skipping idle time a state machine spends counting -----------
  // While the CPU sleeps, a capture program spends millions of cycles in a
  // loop that only counts down.  Stepping each of those cycles is what makes
  // an idle board slow to emulate, so a loop is skipped ahead when it is
  // proven steady: the same instruction trace and period twice in a row, no
  // FIFO, IRQ or pin change, and every register either unchanged or falling
  // by one common step.  The skip stops short of any register (or its
  // complement) reaching zero or the value of an unchanged register, the
  // only places a JMP condition could change.  SPEEDREF_EMU_EXACT_PIO=1 turns
  // skipping off; tests compare both ways.
  probeStep(sm, pio) {
    const p = sm.probe;
    if (p.head < 0) {
      p.head = sm.pc;
      p.snaps = [this.snap(sm, pio, 0, 0)];
      p.trace = 0;
      p.n = 0;
      return;
    }
    p.trace = (Math.imul(p.trace, 31) + sm.pc) | 0;
    if (++p.n > 256) {
      sm.probe = null; // no short loop here
      sm.noProbeUntil = sm.nextAt + 100000;
      return;
    }
    if (sm.pc === p.head) {
      p.snaps.push(this.snap(sm, pio, p.trace, p.n));
      p.trace = 0;
      p.n = 0;
      if (p.snaps.length === 3) this.trySkip(sm, this.skipTarget); // at the head: skip from here
    }
  }

  snap(sm, pio, trace, n) {
    return { at: sm.nextAt, trace, n, x: sm.x >>> 0, y: sm.y >>> 0, osr: sm.outputShiftReg >>> 0, isr: sm.inputShiftReg >>> 0,
      ic: sm.inputShiftCount, oc: sm.outputShiftCount, rx: sm.rxFIFO.itemCount, tx: sm.txFIFO.itemCount,
      irq: pio.irq, pins: pio.pinValues, dirs: pio.pinDirections, waiting: !!sm.waiting };
  }

  trySkip(sm, endCycles) {
    const p = sm.probe;
    sm.probe = null;
    const [a, b, c] = p.snaps;
    if (b.trace !== c.trace || b.n !== c.n || b.at - a.at !== c.at - b.at) return;
    for (const k of ['ic', 'oc', 'rx', 'tx', 'irq', 'pins', 'dirs']) {
      if (a[k] !== b[k] || b[k] !== c[k]) return;
    }
    if (a.waiting || b.waiting || c.waiting) return;
    const regs = ['x', 'y', 'osr', 'isr'];
    let step = 0;
    const falling = [];
    const still = [0];
    for (const r of regs) {
      const d1 = (b[r] - a[r]) | 0;
      const d2 = (c[r] - b[r]) | 0;
      if (d1 !== d2 || d1 > 0) return;
      if (d1 === 0) still.push(c[r]);
      else {
        if (step && d1 !== step) return;
        step = d1;
        falling.push(c[r]);
      }
    }
    if (!step) return; // nothing counts: a real idle loop would have been
    const period = c.at - b.at;
    const d = -step;
    let k = Math.floor((endCycles - c.at) / period) - 1;
    for (const v of falling) {
      for (const w of still) {
        if (v > w) k = Math.min(k, Math.floor((v - w - 1) / d)); // v must stay above w
        const nv = (~v) >>> 0; // its complement rises
        if (nv < w) k = Math.min(k, Math.floor((w - nv - 1) / d));
      }
    }
    if (k < 2) return;
    const back = (v) => (v - k * d) >>> 0;
    if (sm.x >>> 0 !== c.x || sm.y >>> 0 !== c.y) return; // moved on since the snapshot
    if (((b.x - a.x) | 0) !== 0) sm.x = back(sm.x);
    if (((b.y - a.y) | 0) !== 0) sm.y = back(sm.y);
    if (((b.osr - a.osr) | 0) !== 0) sm.outputShiftReg = back(sm.outputShiftReg);
    if (((b.isr - a.isr) | 0) !== 0) sm.inputShiftReg = back(sm.inputShiftReg);
    sm.nextAt += k * period;
    this.skipped += k * period;
  }

  anyPio() {
    for (const sm of this.machines) if (sm.enabled) return true;
    return false;
  }

  // -- I2C: the OLED, with bus time ---------------------------------------------
  modelI2C() {
    const mcu = this.mcu;
    mcu.i2c.forEach((i2c, bus) => {
      let tx = null;
      const byteNs = () => {
        // SCL period = HCNT + LCNT system clock cycles (fast mode registers,
        // as MicroPython sets them for 400 kHz); 9 clocks a byte with the ACK.
        const period = (i2c.fsClockHighPeriod + i2c.fsClockLowPeriod) || 312;
        return 9 * period * CYCLE_NS;
      };
      const later = (fn) => {
        const alarm = mcu.clock.createAlarm(fn);
        alarm.schedule(byteNs());
      };
      i2c.onStart = () => later(() => i2c.completeStart());
      i2c.onConnect = (addr, mode) => {
        const ack = (this.cfg.i2c_devices || [0x3c]).includes(addr);
        if (ack) tx = { addr, bytes: [], cycles: [] };
        later(() => i2c.completeConnect(ack));
      };
      i2c.onWriteByte = (b) => {
        if (tx) tx.bytes.push(b);
        const t = tx;
        later(() => {
          if (t && this.trace) t.cycles.push(this.cycle()); // the byte is on the bus now
          i2c.completeWrite(true);
        });
      };
      i2c.onReadByte = () => later(() => i2c.completeRead(0xff));
      i2c.onStop = () => {
        if (tx && tx.bytes.length) {
          const ev = { ev: 'i2c', bus, addr: tx.addr, data: Buffer.from(tx.bytes).toString('hex'), ns: this.now() };
          if (this.trace) Object.assign(ev, { byte_cycles: tx.cycles, cycles: this.cycle() });
          this.events.push(ev);
        }
        tx = null;
        i2c.completeStop();
      };
    });
  }

  // -- PWM: the buzzer ----------------------------------------------------------
  watchPwm() {
    const pwm = this.mcu.pwm;
    const write = pwm.writeUint32.bind(pwm);
    pwm.writeUint32 = (offset, value) => {
      write(offset, value);
      const slice = Math.floor(offset / 0x14);
      if (slice < 8) {
        const ch = pwm.channels[slice];
        this.events.push({ ev: 'pwm', slice, csr: ch.csr, div: ch.div, cc: ch.cc >>> 0, top: ch.top, ns: this.now() });
      } else {
        this.events.push({ ev: 'pwm_en', en: pwm.readUint32(0xa0), ns: this.now() });
      }
    };
  }

  // -- the pad lights: output pin writes, traced ---------------------------------
  traceGpio() {
    const sio = this.mcu.sio;
    const write = sio.writeUint32.bind(sio);
    sio.writeUint32 = (offset, value) => {
      const was = sio.gpioValue & this.tracePins;
      write(offset, value);
      const now = sio.gpioValue & this.tracePins;
      if (now !== was) this.events.push({ ev: 'gpio', out: now, cycles: this.cycle(), ns: this.now() });
    };
  }

  // -- USB CDC ------------------------------------------------------------------
  usb() {
    const cdc = (this.cdc = new USBCDC(this.mcu.usbCtrl));
    this.connected = false;
    cdc.onDeviceConnected = () => {
      this.connected = true;
    };
    cdc.onSerialData = (buf) => {
      this.events.push({ ev: 'cdc', data: Buffer.from(buf).toString('base64') });
      this.newCdc = true;
    };
    // Defect 5: rp2040js answers every OUT transfer the device arms at once,
    // with zero bytes when the host has nothing to send, so the firmware's
    // USB interrupt runs back to back and the CPU never sleeps.  A real host
    // sends a packet only when it has data: hold the request until then.
    const usb = this.mcu.usbCtrl;
    this.pendingRead = null;
    usb.onEndpointRead = (endpoint, size) => {
      if (endpoint !== cdc.outEndpoint) return;
      if (cdc.txFIFO.empty) this.pendingRead = size;
      else this.answerRead(endpoint, size);
    };
  }

  answerRead(endpoint, size) {
    const cdc = this.cdc;
    const buffer = new Uint8Array(Math.min(size, cdc.txFIFO.itemCount));
    for (let i = 0; i < buffer.length; i++) buffer[i] = cdc.txFIFO.pull();
    this.mcu.usbCtrl.endpointReadDone(endpoint, buffer);
  }

  feedCdc() {
    // The device takes 64-byte packets from a 512-byte host buffer: keep it
    // topped up from the queue, never overfilled.
    const fifo = this.cdc.txFIFO;
    const q = this.cdcQueue;
    while (q.length && fifo.itemCount < 256) {
      fifo.push(q[0][this.cdcHead++]);
      if (this.cdcHead >= q[0].length) {
        q.shift();
        this.cdcHead = 0;
      }
    }
    if (this.pendingRead !== null && !fifo.empty) {
      const size = this.pendingRead;
      this.pendingRead = null;
      this.answerRead(this.cdc.outEndpoint, size);
    }
  }

  // -- running --------------------------------------------------------------------
  run(untilAbs, opts = {}) {
    let mcu = this.mcu;
    let core = mcu.core;
    let clock = mcu.clock;
    let untilNs = untilAbs - this.epoch;
    let erase = this.romErase;
    let program = this.romProgram;
    const cdcText = opts.until_text ? Buffer.from(opts.until_text) : null;
    let seen = Buffer.alloc(0);
    let n = 0;
    while (clock.nanos < untilNs) {
      if (this.resetRequested) {
        this.reset();
        mcu = this.mcu;
        core = mcu.core;
        clock = mcu.clock;
        untilNs = untilAbs - this.epoch;
        erase = this.romErase;
        program = this.romProgram;
        continue;
      }
      if (this.pendingFlash) {
        // The CPU is held off while the flash works; PIO and timers run on.
        const end = Math.min(this.flashEnd, untilNs);
        this.advanceIdle(end);
        if (clock.nanos >= this.flashEnd) this.finishFlash();
        continue;
      }
      if (core.PC === erase || core.PC === program) {
        this.flashTrap();
        continue;
      }
      if (core.waiting) {
        const next = clock.nanosToNextAlarm;
        const end = next > 0 ? Math.min(clock.nanos + next, untilNs) : untilNs;
        this.advanceIdle(end);
      } else if (!this.profile && !this.traceIrq) {
        n = this.runBusy(untilNs, erase, program, n, cdcText !== null);
        if ((n & 0x3ff) === 0) {
          this.pioActive = this.anyPio();
          this.feedCdc();
        }
        if (cdcText && this.newCdc) {
          this.newCdc = false;
          seen = Buffer.concat([seen, ...this.takeCdc()]);
          if (seen.includes(cdcText)) break;
        }
        continue;
      } else {
        if (this.profile && (this.instructions & 63) === 0) {
          const pc = core.PC;
          this.profile.set(pc, (this.profile.get(pc) || 0) + 1);
        }
        const ipsr = core.IPSR;
        const c = core.executeInstruction();
        this.instructions++;
        if (this.traceIrq) {
          if (core.IPSR !== ipsr) {
            this.events.push({ ev: 'irq', n: core.IPSR >= 16 ? core.IPSR - 16 : 'exc' + core.IPSR, ns: this.now(), pc: core.PC });
          }
          if (core.PRIMASK !== this.lastPrimask) {
            this.lastPrimask = core.PRIMASK;
            this.events.push({ ev: 'irq', n: core.PRIMASK ? 'off' : 'on', ns: this.now(), pc: core.PC });
          }
        }
        this.cycles += c;
        clock.tick(c * CYCLE_NS);
        if (this.pioActive && this.cycles - this.pioAt >= PIO_CHUNK) this.pioTo(this.cycles);
      }
      if ((++n & 0x3ff) === 0) {
        this.pioActive = this.anyPio();
        this.feedCdc();
      }
      if (cdcText && this.newCdc) {
        this.newCdc = false;
        seen = Buffer.concat([seen, ...this.takeCdc()]);
        if (seen.includes(cdcText)) break;
      }
    }
    this.feedCdc();
    this.pioActive = this.anyPio();
  }

  runBusy(untilNs, erase, program, n, watchCdc) {
    // The CPU runs: instructions back to back, with what the loop in run()
    // checks between them (a reset, a flash trap, sleep, the end of the run,
    // the CDC cadence, new CDC output) tested here, the counters local: a
    // third less wall time an instruction than going round run()'s loop.
    // (No pendingFlash test: only flashTrap, from run(), starts one.)
    // Returns run()'s loop count, stopped where run() must act.
    const core = this.mcu.core;
    const clock = this.mcu.clock;
    let instructions = this.instructions;
    let cycles = this.cycles;
    for (;;) {
      const c = core.executeInstruction();
      instructions++;
      cycles += c;
      this.cycles = cycles; // peripherals read it as the instruction's time
      clock.tick(c * CYCLE_NS);
      if (this.pioActive && cycles - this.pioAt >= PIO_CHUNK) this.pioTo(cycles);
      if ((++n & 0x3ff) === 0 || (watchCdc && this.newCdc) || this.resetRequested ||
          core.waiting || core.PC === erase || core.PC === program || clock.nanos >= untilNs) break;
    }
    this.instructions = instructions;
    return n;
  }

  takeCdc() {
    // CDC data from the event list, left in place for the caller's report.
    return this.events.filter((e) => e.ev === 'cdc' && !e.seen).map((e) => {
      e.seen = true;
      return Buffer.from(e.data, 'base64');
    });
  }

  advanceIdle(endNs) {
    // The CPU is asleep (WFI/WFE) or stalled: time moves to endNs, the PIO
    // state machines run through it, an interrupt they raise wakes the CPU.
    const clock = this.mcu.clock;
    const core = this.mcu.core;
    if (!this.anyPio()) {
      const d = endNs - clock.nanos;
      if (d > 0) {
        this.cycles += d / CYCLE_NS;
        clock.tick(d);
      }
      return;
    }
    const endCycles = this.cycles + Math.ceil((endNs - clock.nanos) / CYCLE_NS);
    this.pioTo(this.cycles);
    if (!this.pendingFlash && core.waiting && this.enabledMachines() === 1) {
      // One state machine and a sleeping CPU: it runs ahead in one go (its
      // steady loop skipped) and stops at the step after which the CPU is
      // awake (an interrupt it raised), so the CPU wakes on that cycle.
      const to = Math.max(this.cycles, this.pioUntilWake(endCycles));
      clock.tick((to - this.cycles) * CYCLE_NS);
      this.cycles = to;
      return;
    }
    const STEP = 256; // cycles at a time, so a PIO interrupt wakes the CPU promptly
    while (this.cycles < endCycles) {
      const to = Math.min(endCycles, this.cycles + STEP);
      clock.tick((to - this.cycles) * CYCLE_NS);
      this.cycles = to;
      this.pioTo(to);
      if (!this.pendingFlash && !core.waiting) break; // an interrupt woke it
    }
  }

  enabledMachines() {
    let n = 0;
    for (const sm of this.machines) if (sm.enabled) n++;
    return n;
  }

  pioUntilWake(target) {
    // pioTo(target) for a sleeping CPU, stopped early at the first step that
    // wakes it; returns the CPU cycle the state machines have reached.
    if (target <= this.pioAt) return this.pioAt;
    this.pioAt = this.stepPio(target, true);
    return this.pioAt;
  }

  // -- commands ---------------------------------------------------------------------
  command(cmd) {
    const mcu = this.mcu; // (a reset inside 'run' replaces it: read it again after)
    switch (cmd.op) {
      case 'run': {
        const until = cmd.until_ns !== undefined ? cmd.until_ns : this.now() + (cmd.for_ns || 0);
        this.run(until, cmd);
        break;
      }
      case 'gpio': {
        // Levels the host drives (0 or 1) or lets go of (null: the pin
        // floats to its pad's pull).
        this.pioTo(this.cycles); // the state machines sampled the old levels until now
        for (const [pin, level] of cmd.pins) {
          if (level === null) this.driven.delete(pin);
          else this.driven.set(pin, !!level);
        }
        this.settleFloating();
        break;
      }
      case 'cdc': {
        const data = Buffer.from(cmd.data, 'base64');
        if (data.length) this.cdcQueue.push(data);
        this.feedCdc();
        break;
      }
      case 'flash_read': {
        if (this.pendingFlash && cmd.cut) this.finishFlash(cmd.fraction !== undefined ? cmd.fraction : this.flashFraction());
        const data = Buffer.from(mcu.flash.subarray(cmd.offset, cmd.offset + cmd.size));
        out({ ev: 'flash_data', data: data.toString('base64') });
        break;
      }
      case 'flash_snapshot': {
        // The flash as a power cut now would leave it, without cutting: a
        // flash operation in progress is applied to a copy as far as it got.
        const copy = Buffer.from(mcu.flash.subarray(cmd.offset, cmd.offset + cmd.size));
        const op = this.pendingFlash;
        if (op) {
          const n = Math.floor(op.count * this.flashFraction());
          const at = op.offset - cmd.offset;
          for (let i = 0; i < n; i++) {
            const j = at + i;
            if (j < 0 || j >= copy.length) continue;
            copy[j] = op.op === 'erase' ? 0xff : copy[j] & op.data[i];
          }
        }
        out({ ev: 'flash_data', data: copy.toString('base64'), busy: op ? op.op : null });
        break;
      }
      case 'pio': {
        const sms = this.machines.map((sm, i) => ({ i, enabled: sm.enabled, pc: sm.pc, rx: sm.rxFIFO.itemCount }));
        out({ ev: 'pio', machines: sms });
        break;
      }
      case 'profile': {
        // PC samples (one every 64 instructions) since the last 'profile' op.
        const hist = this.profile ? [...this.profile.entries()] : [];
        this.profile = cmd.on ? new Map() : null;
        out({ ev: 'profile', samples: hist });
        break;
      }
      case 'ram_find': {
        // Where a byte string first occurs in SRAM (-1: nowhere): lets a
        // benchmark see the instant the firmware's frame buffer holds a frame.
        const at = Buffer.from(mcu.sram.buffer, mcu.sram.byteOffset, mcu.sram.length).indexOf(Buffer.from(cmd.data, 'base64'));
        out({ ev: 'ram', at, cycles: this.cycles });
        break;
      }
      case 'state': {
        out({ ev: 'state', ns: this.now(), epoch: this.epoch, resets: this.resets, cycles: this.cycles, flash_ops: this.flashOps, connected: this.connected,
          flash_busy: this.pendingFlash ? this.pendingFlash.op : null, flash_since: this.pendingFlash ? this.epoch + this.flashStart : null, pc: mcu.core.PC, pio_skipped: this.skipped, instructions: this.instructions });
        break;
      }
      default:
        out({ ev: 'error', msg: 'unknown op ' + cmd.op });
    }
    for (const e of this.events) {
      delete e.seen;
      out(e);
    }
    this.events = [];
    out({ done: cmd.op, ns: this.now() });
  }

  flashFraction() {
    const span = this.flashEnd - this.flashStart;
    return span > 0 ? Math.min(1, (this.mcu.clock.nanos - this.flashStart) / span) : 1;
  }
}

const cfg = JSON.parse(process.argv[2]);
const bench = new Bench(cfg);
out({ ready: true, rom_erase: bench.romErase, rom_program: bench.romProgram });
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) return;
  try {
    bench.command(JSON.parse(line));
  } catch (e) {
    out({ ev: 'error', msg: String(e && e.stack ? e.stack : e) });
    out({ done: 'error', ns: bench.now() });
  }
});
rl.on('close', () => process.exit(0));
