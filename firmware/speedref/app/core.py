# The referee app: one pure state machine the device loop (and the simulator)
# drives with button edges and ticks.  It owns the frame buffer and a small
# queue of buzzer cues; it never sleeps, blocks, reads a clock or touches
# hardware, so the same code runs on the board, in the simulator and in tests.
#
# Whatever is on screen is a "screen" object with press/release/tick/draw
# (and back for BACK).  A running game is a "flow" (see docs/app.md): the app
# takes BACK away from it and shows the pause menu (continue, undo, abandon),
# so every flow gets undo and abandon the same way and no screen is a dead end.
import framebuf
from .. import forget, collect
from ..ticks import ticks_diff
from ..engine.errors import RuleError, is_int
from . import ui
# The buttons, the buzzer cues and the Screen base are ui.py's, which the
# menu imports too (so the menu never imports this module, and the arrows go
# one way: core -> menu -> ui).  A flow takes them from here with Flow.
from .ui import UP, DOWN, OK, BACK, CLICK, COUNT, GO, FOUL, CALL, WIN, ERROR, Screen  # noqa: F401
from ..tunables import LONG_OK_US, LIGHT_US, BLINK_US, TIE_DEFAULT_US
from ..storage import ROOM, RECORD_ROOM, SpoolFull

from micropython import const

# Holding OK LONG_OK_US (speedref/tunables.py) is BACK, for boards without a
# BACK button.  OK itself therefore acts when it is released (navigation
# only; pads act on press).

_SOUND_SLOTS = const(4)
_LINES = const(8)  # log lines a pass may queue (slots made once: nothing grows in a game)
_ENOSPC = const(28)  # errno: no space left on the flash

# Pad lights (one LED per pad, bit p of App.lights = pad p).  A verdict
# lights its winner's pad (both on a tie) steadily, a false start blinks the
# jumper's pad; either cue lasts LIGHT_US.  BLINK_US is half a blink.
_BLINK = const(0x100)
_FRESH = const(0x200)

# The tie window a game gets when its setting is "auto" and no board says
# otherwise is TIE_DEFAULT_US: on a board, speedref/wiring.build passes the
# default of the capture path it runs (docs/timing.md).


class App:
    def __init__(self, store, log, tie_us=TIE_DEFAULT_US):
        self.store = store
        self.log = log
        self.tie_default_us = tie_us
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        # The same bytes seen as one row of 8-bit pixels: its fill() is one
        # memset, where MONO_VLSB's sets 8,192 pixels one at a time (0.8 ms
        # on a Pico, in the middle of every verdict's redraw).
        self._blank = framebuf.FrameBuffer(self.buf, 1024, 1, framebuf.GS8)
        self.dirty = False
        # The pages of the next frame (bit p = page p, 8 rows each) with the
        # news of the event that drew it: the display sends them first.  A
        # screen's title text is on page 0 (its bar's last row, on page 1,
        # is the same on every screen), the bottom line (y 56) on page 7.
        self.news = 0
        # What an event produced besides the screen and the sound waits for
        # the end of the loop's pass (commit): the log lines, and the save,
        # which holds the CPU while the flash programs.  The pad lights, the
        # sound and the screen go out before them.
        self.out = [None] * _LINES  # the log lines waiting for the end of the pass, then None
        # the game save to write at the end of the pass: (flow, state), ()
        # for none but a collection of the heap (quiet), or None
        self.pending = None
        # The earliest instant a flow asked to be ticked at since the last
        # tick (a GO, the end of a called-off countdown), or None: the loop
        # may nap, but not past it (wake).
        self.due = None
        # No event has come since the last tick: then `due` holds every
        # instant a tick would act at (each timed rule asks for its own from
        # the tick), and a release before it needs no tick first.
        self._ticked = False
        self._sounds = [None] * _SOUND_SLOTS
        self._s_head = 0
        self._s_count = 0
        self._ok_t = 0
        self._ok_down = False
        self._ok_used = False  # the current OK hold already became BACK
        self._redraw = True
        self.flow = None       # the running game, or None
        self.game_seq = None   # the running game's number: its record's id (SP-24)
        # the running game has ended (its record made): no game is in play
        # then, and the loop may do what can wait (the uplink, device.py)
        self.over = False
        # What the pad LEDs show now (bit p = pad p), worked out every pass:
        # the device loop sets the pins from it.  Only a game on screen
        # lights pads: its lights() (who is ready) and the timed cue below.
        self.lights = 0
        self.lights_out = None  # the loop's function that sets the pins now, or None
        self._lf = None  # the running flow's lights method, or None
        self._lc = 0     # the cue: pad mask, + _BLINK, + _FRESH until a tick stamps it
        self._lt = 0     # when the cue began
        self._to_menu = False  # the menu comes back once this event is over
        self._start_next = None  # (game, t_us, opts) to start once this event is over
        self._mods = ()  # the running game's modules (games.game_modules)
        self.unstored = None  # a finished game's record the flash had no room for
        self.unstored_why = None  # the table's words for why (Unstored shows them)
        # the device's input decoder and capture (Device sets them): "Check
        # wiring" watches the one and turns the other's lockout off
        self.inputs = None
        self.capture = None
        self.board_name = None  # the board file's NAME (wiring.build sets it)
        # The players' names when the table has said them already (the
        # simulator's --names, the web page's name fields), seat order: a
        # game takes as many as it seats and the name picker is not shown.
        self.seated = None
        from . import menu
        self.settings = menu.merge_settings(self._load_settings())
        saved, problem = self._load_game()
        sp = getattr(store, "settings_problem", None)
        if sp:
            problem = sp if not problem else problem + "; " + sp
        self.screen = menu.Boot(self, saved, problem)
        self._flush()

    # ---- the device loop's interface -------------------------------------
    def press(self, button, t_us):
        self._ticked = False
        if button == OK:
            self._ok_t = t_us
            self._ok_down = True
            self._ok_used = False
            return
        if button == BACK:
            if self._ok_down:
                self._ok_used = True  # a decoder already turned a long OK into BACK
            self._back(t_us)
        elif 0 <= button < BACK:
            try:
                self.screen.press(button, t_us)
            except RuleError as e:
                self._refused(e)
        self._flush()

    def release(self, button, t_us):
        if button == OK:
            if self._ok_down and not self._ok_used:
                self._ok_down = False
                if ticks_diff(t_us, self._ok_t) >= LONG_OK_US:
                    # held long enough to be BACK, though no tick came while
                    # it was down: BACK all the same (SP-26)
                    self._back(t_us)
                else:
                    try:
                        self.screen.press(OK, t_us)
                    except RuleError as e:
                        self._refused(e)
            self._ok_down = False
        elif 0 <= button < OK:
            try:
                # What was due by now happens first: a pad held to its
                # threshold is a hold even when no tick came while it was
                # down (SP-26, SPIT-21, SR-32).  Nothing can be due when the
                # last tick came after every event and nothing it asked for
                # has come: the release goes straight to the flow (a slap to
                # win is decided at a release, SP-17).
                d = self.due
                if not self._ticked or (d is not None and ticks_diff(t_us, d) >= 0):
                    self.screen.tick(t_us)
                self.screen.release(button, t_us)
            except RuleError as e:
                self._refused(e)
        self._ticked = False
        self._flush()

    def tick(self, now_us):
        self.due = None  # asked for again by what is still timed (App.wake)
        if self._ok_down and not self._ok_used and ticks_diff(now_us, self._ok_t) >= LONG_OK_US:
            self._ok_used = True
            self._back(now_us)
        try:
            self.screen.tick(now_us)
        except RuleError as e:
            self._refused(e)
        self._flush()
        self._set_lights(now_us)
        self._ticked = True

    def render(self):
        """Draw the screen into buf if an event asked for it (then dirty).
        The loop calls it once a pass, after the pad lights and the sound
        are out: an event's state changes at once, its frame is drawn once,
        however many events and ticks the pass had.  A flow calls it itself
        once a verdict's state is set (a slap's winner, SP-17, SPIT-10): the
        frame is complete before the log line and the bookkeeping that wait
        for the pass's end; the loop's call then finds nothing to draw."""
        if self._redraw:
            self._redraw = False
            self._blank.fill(0)
            self.screen.draw(self.fb)
            self.dirty = True

    def commit(self):
        """The end of the loop's pass, once the lights, the sound and the
        screen are out: the log lines the pass made go out in order, then
        the pending save is written (a flash write holds the CPU for
        milliseconds; the verdict it saves is on the panel by then).  A
        power cut before the save ends resumes on the save before it, which
        the resume screen names (menu.Boot)."""
        self._send_lines()
        p = self.pending
        if p is None:
            return
        self.pending = None
        if p:
            f, state = p
            if state is None:
                state = f.save_state()
            d = {"v": 1, "game": f.GAME, "opts": f.opts, "state": state, "seq": self.game_seq}
            at = getattr(f, "resume_at", None)
            if at is not None:
                d["at"] = at()  # the resume screen says where the game goes on (menu.Boot)
            try:
                self.store.save_game(d)
            except (OSError, MemoryError) as e:
                # Flash full or the heap too fragmented for the JSON: the game
                # goes on, and the last good save stays (a .tmp is written first).
                collect()
                self.log.emit({"ev": "error", "what": "app", "msg": "save failed: %s" % e})
        # The save's garbage (its JSON, the file's cache) goes now, at the
        # end of a pass that was long anyway, not inside the next race; so
        # does the heap's at a quiet moment.
        collect()

    def _send_lines(self):
        out = self.out
        for i in range(_LINES):
            obj = out[i]
            if obj is None:
                return
            self.log.emit(obj)
            out[i] = None

    def quiet(self):
        """Nothing will be decided for a while (a race opens, a countdown
        starts: the players wait a second or more): the heap is collected
        at the end of this pass (commit), so no collection, 5 ms and more
        on a Pico, falls inside the pass that gives the verdict or GO."""
        if self.pending is None:
            self.pending = ()

    def pop_sound(self):
        if not self._s_count:
            return None
        s = self._sounds[self._s_head]
        self._sounds[self._s_head] = None
        self._s_head = (self._s_head + 1) % _SOUND_SLOTS
        self._s_count -= 1
        return s

    # ---- services for screens and flows -----------------------------------
    def sound(self, cue):
        """Queue a cue (one of the constants above); dropped if 4 are waiting."""
        if self._s_count < _SOUND_SLOTS:
            self._sounds[(self._s_head + self._s_count) % _SOUND_SLOTS] = cue
            self._s_count += 1

    def light(self, mask, blink=False):
        """A pad-light cue for LIGHT_US from the next tick: `mask` (bit p =
        pad p) steady (a verdict) or blinking (a false start).  The latest
        cue wins.  With lights_out set (the device loop's pin writer), the
        pads light at once: a verdict's lamp does not wait for what the
        flow does after deciding it (format, log, save, draw)."""
        self._lc = mask | _FRESH | (_BLINK if blink else 0)
        out = self.lights_out
        if out is not None:
            # lit at once; the tick at the end of the pass works out the
            # rest (the flow's own lights, an earlier cue's pads going off)
            self.lights |= mask & 0xFF
            out(self.lights)

    def redraw(self):
        """Ask for the current screen to be drawn again after this event."""
        self._redraw = True

    def show(self, screen):
        self.screen = screen
        self._redraw = True
        self._to_menu = False  # a screen shown after close() stays

    def emit(self, obj):
        """One JSON line on the USB log, sent at the end of the loop's pass
        (commit), in order."""
        out = self.out
        if out[_LINES - 1] is not None:
            self._send_lines()  # a pass with more lines than slots: the first go now
        i = 0
        while out[i] is not None:
            i += 1
        out[i] = obj

    def wake(self, t_us):
        """Tick the app at t_us (a countdown's next cue, a GO): the loop's
        next nap ends then at the latest, so a timed cue is on time however
        long the loop naps between events.  It holds until the next tick,
        which forgets it: what is still timed asks again from its tick."""
        d = self.due
        if d is None or ticks_diff(t_us, d) < 0:
            self.due = t_us

    def tie_window_us(self, tie_ms):
        """A game's tie window in us from its "tie_ms" option ("auto": the board's)."""
        return self.tie_default_us if tie_ms == "auto" else tie_ms * 1000

    def save(self, f, state=None):
        """Save flow `f`'s state (call at deal/hand boundaries only: every
        save is a flash write).  A resumed game gets `state` back, or, with
        no state given, what f.save_state() returns at the end of the pass
        (a flow whose save shows its last boundary at any moment: nothing is
        built while the players wait).  It is written at the end of the
        loop's pass (commit), after the lights and the screen the same event
        changed; a second save in that pass replaces the first (only the
        newest state is written)."""
        self.pending = (f, state)

    def finish(self, record):
        """The game is over: store its record, log it, forget the saved state.
        The flow keeps showing its final screen and calls close() on OK.
        The record is stored under the game's own number (SP-24): once its
        file is there the saved game counts as over, so a power cut before
        the save is cleared neither offers the game again nor stores it twice.
        A record the flash has no room for (and no older record left to
        make it) keeps the save, the finished game at its final screen, and
        close() shows Unstored, whose OK tries again (SP-24): a finished
        game is never given up for lack of room."""
        self.commit()  # a save still pending goes first: the record follows it on flash
        self.over = True
        from ..names import table_name
        record["table"] = table_name(self.settings, getattr(self.store, "install", None))
        opts = self.flow.opts if self.flow is not None else {}
        if "round" in opts:
            # a game of the match the club gave this table (speedref/match.py):
            # its record says which evening and round it belongs to, and the
            # table by the name the round gave it
            record["table"] = opts["table"]
            record["evening"] = opts["evening"]
            record["round"] = opts["round"]
        stored = self._store_record(record)
        # the record's log line needs one free block of about 2 KB (a Long
        # Speed Run) in a heap the game has fragmented: compact it first
        collect()
        self._send_lines()  # the lines before it go first
        self.log.emit({"ev": "game_end", "record": record})  # now, in the heap just compacted
        if stored:
            self._clear_game()
        else:
            self.unstored = record
        if "match_n" in opts:
            self._match_played(opts)  # its game is over: not offered again (its record stored, or waiting)

    def _match_played(self, opts):
        """The match this game was started from is no longer offered."""
        from .. import match
        try:
            match.played(self.store, opts)
        except (OSError, MemoryError) as e:
            collect()
            self.emit({"ev": "error", "what": "match", "msg": "match not marked played: %s" % e})

    def match_changed(self):
        """The match offered to this table has changed (speedref/match.py
        took one, or cleared it): the menu's first screen shows the new one
        in place of the game list, the old match or its seats' picker.  A
        game's screens, its final one too, are left alone: the menu shows
        it once the game is closed.  An OK held down as it comes acts on
        neither screen (OK acts when released: a press meant for the game
        list must not start the match)."""
        if self.flow is None and getattr(self.screen, "at_home", False):
            if self._ok_down:
                self._ok_used = True  # an OK pressed on the screen before acts on nothing
            from . import menu
            menu.home(self)

    def _store_record(self, record):
        """Store the finished game's record: room made first (the oldest
        records go, each logged), then written under the game's number (one
        given now to a game that got none: the flash was full as it began).
        A write the flash still refuses takes the oldest record left and
        tries again.  True once stored."""
        store = self.store
        try:
            if self.game_seq is None:
                self.game_seq = store.next_seq()
            self._make_room(RECORD_ROOM)
            while True:
                try:
                    store.add_record(record, self.game_seq)
                    return True
                except SpoolFull:
                    raise
                except OSError as e:
                    seq = store.oldest_record()
                    if e.args[0] != _ENOSPC or seq is None:
                        raise  # another failure takes no record with it
                    self._room(store.drop_record(seq))
        except SpoolFull as e:
            # The spool is full (storage.py): the newest game waits, saved,
            # and no game the club has not got is removed for it.
            self.unstored_why = "Wi-Fi: %s. This one stays saved. OK: try again" % e
            self.emit({"ev": "error", "what": "app", "msg": "record not stored: %s" % e})
            return False
        except (OSError, MemoryError) as e:
            collect()
            self.unstored_why = None
            self.emit({"ev": "error", "what": "app", "msg": "record not stored: %s" % e})
            return False

    def store_again(self):
        """Unstored's OK: the finished game's record, stored now if there is
        room; then the save is cleared and the menu comes back."""
        if not self._store_record(self.unstored):
            self.sound(ERROR)
            return
        self.unstored = None
        self._clear_game()
        self.show(Screen())
        self._to_menu = True

    def _make_room(self, need=ROOM):
        """Room on flash for the game's saves and record (storage.ROOM, or
        RECORD_ROOM at its end): the oldest records go first, each one
        logged."""
        try:
            gone = self.store.make_room(need)
        except (OSError, MemoryError):
            collect()
            return  # the writes say what they could not do
        for rid in gone:
            self._room(rid)

    def _room(self, rid):
        self.emit({"ev": "error", "what": "room", "id": rid,
                   "msg": "flash full: oldest record removed"})

    def close(self):
        """Leave the running flow (after finish or abandon) for the menu.
        The game's modules are forgotten now; the menu (forgotten while the
        game ran) is loaded again once the event that closed it is over
        (_flush).  Here the flow's own call may still be running, its code
        in use: a menu loaded now would sit around the game's code, in a
        heap that the game's code then leaves full of holes."""
        self.flow = None
        self._lf = None
        self._lc = 0
        for name in self._mods:
            forget(name)
        self._mods = ()
        forget("speedref.names")  # the players' names were checked at the start: loaded again when needed
        ui.let_go()  # and their accented letters' code and glyphs, if they had any
        forget("speedref.app.accents")
        forget("speedref.app.glyphs")
        if self.unstored is not None:
            self.show(Unstored(self))  # the table is told; the save stays
            return
        self.show(Screen())  # nothing, until the menu is back
        self._to_menu = True

    def abandon(self):
        f = self.flow
        if f is not None:
            self.discard(f.GAME)
        self.close()

    def discard(self, game):
        """The saved game of `game` is given up for good (abandoned, or
        refused at "Resume game?"): logged, and off the flash."""
        self.emit({"ev": "abandon", "game": game})
        self._clear_game()

    def message(self, text, then=None):
        """A screen with a short message; OK or BACK calls `then` (default: menu)."""
        self.show(Message(self, text, then or self.close))

    # ---- starting and resuming games ---------------------------------------
    def start(self, game, now_us, opts=None):
        """Start `game` (a game id of speedref/games.py) with `opts`
        (default: the remembered settings for it)."""
        if opts is None:
            opts = dict(self.settings[game])
        self._run(game, opts, now_us, None)
        # A new game's first save is written now (and what it logged sent):
        # starting a game is no moment anyone waits on.
        self.commit()

    def resume(self, saved, now_us):
        seq = saved.get("seq")
        if not isinstance(seq, int):
            # a save from before games were numbered: number it now, on flash
            # before anything can finish it (SP-24)
            seq = self._new_seq()
            if seq is not None:
                saved["seq"] = seq
                try:
                    self.store.save_game(saved)
                except (OSError, MemoryError):
                    collect()
        self._run(saved["game"], saved["opts"], now_us, saved["state"], seq)
        self.commit()

    def _new_seq(self):
        try:
            return self.store.new_game_seq()
        except (OSError, MemoryError) as e:
            collect()  # the record will get a number when it is stored
            self.emit({"ev": "error", "what": "app", "msg": "save failed: %s" % e})
            return None

    def _run(self, game, opts, now_us, state, seq=None):
        from .. import games
        collect()  # one compact heap before the game's modules load (fragmentation)
        try:
            cls = games.flow_class(game)
        except (games.MissingGame, games.UnknownGame):
            # a game this device does not carry; an ImportError from inside a
            # flow's own imports is a defect and is not hidden here
            self.message("%s is not on this device yet" % game)
            return
        seated = self.seated
        if seated is not None and state is None and "names" not in opts:
            n = opts.get("seats", games.get(game).seats[0])
            opts = dict(opts)
            opts["names"] = list(seated[:n])  # too few: the flow says so (names.for_game)
        self._make_room()  # before the new game's number and first save need it
        self.over = False
        self.game_seq = seq if state is not None else self._new_seq()
        try:
            self.flow = cls(self, opts, now_us, state)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
            # bad options (RuleError is a ValueError) or a save this version
            # cannot read: say so, don't crash, and don't offer it again
            # (kept as game.json.bad, as a damaged file is)
            self.flow = None
            if state is not None:
                try:
                    self.store.set_aside_game()
                except OSError:
                    pass
            self.emit({"ev": "error", "what": "app", "msg": "cannot start %s: %s" % (game, e)})
            self.message("Cannot start: %s" % e)
            return
        self._lf = getattr(self.flow, "lights", None)
        self._lc = 0
        self.show(self.flow)
        self._mods = games.game_modules(game)  # close() forgets them
        # The menu and the registry are not used while a game runs: their
        # code leaves the heap to the game's (close() loads them again).
        # Nor are the tunables: the game's modules copied them as they loaded.
        forget("speedref.app.menu")
        forget("speedref.app.match_menu")
        forget("speedref.match")
        forget("speedref.games")
        forget("speedref.tunables")

    # ---- internals -----------------------------------------------------------
    def _refused(self, e):
        # An engine rule refused an entry.  Flows check before they ask, so
        # this is a flow bug, but the referee must keep running: the engine
        # left its state unchanged; log it and buzz.
        self.emit({"ev": "error", "what": "app", "msg": str(e)})
        self.sound(ERROR)
        self._redraw = True

    def _back(self, t_us):
        f = self.flow
        if f is not None and self.screen is f:
            # What was due by now happens first (a GO at this very instant,
            # SP-25), then whatever was timed is cancelled (countdowns, races)
            try:
                f.tick(t_us)
            except RuleError as e:
                self._refused(e)
            if self.flow is not f or self.screen is not f:
                return
            f.interrupt(t_us)
            self.show(Pause(self))
        else:
            self.screen.back(t_us)

    def _set_lights(self, now_us):
        # small ints only: nothing is allocated on a pass
        f = self._lf
        if f is None or self.screen is not self.flow:
            # no game on screen: what the screen lights (0 but on "Check wiring")
            self.lights = self.screen.pad_lights if self.flow is None else 0
            return
        m = f()
        c = self._lc
        if c & _FRESH:
            c &= ~_FRESH
            self._lc = c
            self._lt = now_us
        if c:
            k = ticks_diff(now_us, self._lt)
            if k >= LIGHT_US:
                self._lc = 0
            elif not c & _BLINK or (k // BLINK_US) % 2 == 0:
                m |= c & 0xFF
            else:
                m &= ~c
        self.lights = m

    def start_after(self, game, t_us, opts):
        """Start `game` once this event is over (the name picker's last
        press): its screen and the roster are gone by then, and their
        modules too, so the game's code loads into the heap they held."""
        self.show(Screen())
        self._start_next = (game, t_us, opts)

    def _flush(self):
        nxt = self._start_next
        if nxt is not None:
            self._start_next = None
            forget("speedref.app.who")
            forget("speedref.roster")
            forget("speedref.match")
            forget("speedref.app.match_menu")
            forget("speedref.app.menu")  # _run lets it go too: before the game's code comes
            collect()
            self.start(nxt[0], nxt[1], nxt[2])
        if self._to_menu:
            collect()  # the closed game's code and state leave room for the menu's
            from . import menu
            menu.home(self)

    def _load_settings(self):
        try:
            return self.store.load_settings()
        except (OSError, ValueError):
            return {}

    def _load_game(self):
        from .menu import check_save
        try:
            self.store.sweep()  # a record write cut part-way (SP-24)
            saved, problem = self.store.load_game(lambda d: check_save(self, d))
            # SP-24: a saved game whose record is stored is over (the power
            # went between storing the record and clearing the save)
            if saved is not None and self.store.has_record(saved.get("seq")):
                self.store.clear_game()
                return None, problem
            return saved, problem
        except (OSError, ValueError) as e:
            return None, "save unreadable: %s" % e

    def _clear_game(self):
        self.pending = None  # a save not yet written would bring the game back
        try:
            self.store.clear_game()
        except OSError:
            pass


class Flow(Screen):
    """Base for a game's flow (docs/app.md): what every flow does the same
    way, written once.  A flow keeps its phase in `phase` and lists one
    drawing method per phase in its class's `_SCREENS`."""

    def draw(self, fb):
        self._SCREENS[self.phase](self, fb)

    def interrupt(self, now_us):
        pass  # the pause menu opened: a flow with nothing timed has nothing to stop

    def _to(self, phase):
        self.phase = phase
        self.app.redraw()

    def _saved_counts(self, v, n, rule):
        """A saved list of n counts (ints, 0 or more), copied: a save of
        another shape is refused here, not by a crash when it is counted on."""
        if type(v) is not list or len(v) != n:
            raise RuleError(rule, "saved counts unreadable: %r" % (v,))
        for x in v:
            if not is_int(x) or x < 0:
                raise RuleError(rule, "saved counts unreadable: %r" % (v,))
        return list(v)

    def _log_undo(self, what, n):
        # an undone deal, round or hand was logged when it ended: it no
        # longer counts
        self.app.emit({"ev": "undo", "game": self.GAME, "what": what, what: n})


class Message(Screen):
    def __init__(self, app, text, then):
        self.app = app
        self.lines = ui.wrap(text)
        self.then = then

    def press(self, b, t_us):
        if b == OK:
            self.then()

    def back(self, t_us):
        self.then()

    def draw(self, fb):
        y = 0
        for line in self.lines[:6]:
            ui.text(fb, line, 0, y, 1)
            y += 10
        ui.hint(fb, "OK: continue", centred=True)


class Unstored(Message):
    """The game is over but the flash had no room for its record, nor an
    older record to remove for it, or (a board on Wi-Fi) the spool of
    records the club has not acknowledged is full: the record went out on
    the USB log, the save is kept (a power cut resumes onto the final
    screen), and OK or BACK tries to store it again, once room has been
    made (the uplink runs meanwhile: an acknowledgement makes room)."""

    def __init__(self, app):
        Message.__init__(self, app, app.unstored_why or "Flash full: game not stored. It stays saved. OK: try again",
                         app.store_again)


class Pause(Screen):
    """BACK during a game: continue, undo the last entry, or abandon."""

    def __init__(self, app):
        self.app = app
        self.items = ["Continue"]
        if app.flow.can_undo():
            self.items.append("Undo last")
        self.items.append("Abandon game")
        self.cursor = 0
        self.confirm = False

    def press(self, b, t_us):
        app = self.app
        if b == UP or b == DOWN:
            n = len(self.items)
            self.cursor = (self.cursor + (1 if b == DOWN else n - 1)) % n
            self.confirm = False
            app.redraw()
        elif b == OK:
            item = self.items[self.cursor]
            if item == "Continue":
                self.back(t_us)
            elif item == "Undo last":
                app.show(app.flow)
                app.flow.undo(t_us)
                app.sound(CLICK)
            elif not self.confirm:
                self.confirm = True  # abandoning loses the game: ask twice
                app.redraw()
            else:
                app.abandon()

    def back(self, t_us):
        self.app.show(self.app.flow)

    def draw(self, fb):
        ui.title(fb, "Abandon? OK=yes" if self.confirm else "Paused")
        ui.menu_rows(fb, self.items, self.cursor, 0, 14)
