#!/usr/bin/env python3
"""Randomized fault test of the send queue, reproducible from its seed.

A message the client reported sent or queued reaches the peer exactly once,
in queue order per conversation; one reported failed never arrives; nothing
stays "sending". Each run starts a fresh tongban-server and three accounts
(alice sends to bob and carol) and plays a schedule drawn from the run's
seed, interleaving:

  server_stop / server_kill / server_start   SIGTERM, kill -9, restart (same port)
  send_queue / send_plain                    `tongban send [--queue]` from the CLI
  send_killed                                the CLI killed with -9 after a random delay
  sync                                       `tongban sync`
  tui_send / tui_send_killed / tui_kill      the full-screen client (in tmux): type a
                                             message and Enter; killed with -9 right
                                             after, or at some point

Sends go to bob, to carol and to a group of the three ("team"). The run then
brings the server back, runs `tongban sync` twice and checks every
invariant on the peers' and alice's stores.

  queue_fault.py --bin .build/debug --runs 8            seeds 1..8
  queue_fault.py --bin .build/debug --seed 1234         one seed
  queue_fault.py --bin .build/debug --regressions F     every line of F as well

A failing run prints its seed and schedule; add the seed (or the schedule)
to Tests/fault/queue_regressions.txt so it is run every time.
Talks to 127.0.0.1 only. Standard library only.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PASSWORD = "queue-fault-1"
CLI_TIMEOUT = 90


class RunFailed(Exception):
    pass


class Run:
    def __init__(self, bin_dir, seed, schedule, verbose):
        self.bin = bin_dir
        self.seed = seed
        self.schedule = schedule
        self.verbose = verbose
        self.work = tempfile.mkdtemp(prefix="tongban-queue.")
        self.server = None
        self.port = None
        self.session = f"tongban-qf-{os.getpid()}-{abs(seed)}"
        self.tui_running = False
        self.counter = 0
        # text -> (conversation peer, outcome): sent | queued | failed | unknown
        self.outcomes = {}
        self.order = {"bob": [], "carol": [], "team": []}
        self.log = []
        self.env = dict(os.environ, TONGBAN_LANG="en", LANG="C.UTF-8", TONGBAN_NO_BELL="1")

    # ------------------------------------------------------------ processes

    def note(self, line):
        self.log.append(line)
        if self.verbose:
            print("   ", line, flush=True)

    def start_server(self):
        log = os.path.join(self.work, "server.log")
        pattern = re.compile(r"tongban-server listening on http://127\.0\.0\.1:(\d+)")
        before = len(pattern.findall(open(log).read())) if os.path.exists(log) else 0
        port = str(self.port or 0)
        with open(log, "a") as f:
            self.server = subprocess.Popen(
                [os.path.join(self.bin, "tongban-server"), "--no-limits", "--port", port, "--data-dir",
                 os.path.join(self.work, "server"), "--log-level", "info"],
                stdout=subprocess.DEVNULL, stderr=f)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            found = pattern.findall(open(log).read())
            # A restart appends to the same log: wait for its own line.
            if len(found) > before:
                self.port = int(found[-1])
                return
            if self.server.poll() is not None:
                break
            time.sleep(0.05)
        raise RunFailed(f"the server did not start (port {port}): {open(log).read()[-800:]}")

    def stop_server(self, sig):
        if self.server is None:
            return
        self.server.send_signal(sig)
        try:
            self.server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        self.server = None

    def cli(self, who, *args, stdin=None):
        p = subprocess.run([os.path.join(self.bin, "tongban"), *args, "--data-dir", os.path.join(self.work, who)],
                           input=stdin, capture_output=True, text=True, timeout=CLI_TIMEOUT, env=self.env)
        if p.returncode < 0:
            raise RunFailed(f"tongban {' '.join(args)} died of signal {-p.returncode}: {p.stderr[-400:]}")
        return p

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------ the TUI

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", *args], capture_output=True, text=True, check=check)

    def screen(self):
        p = self.tmux("capture-pane", "-p", "-t", self.session, check=False)
        return p.stdout if p.returncode == 0 else ""

    def wait_screen(self, text, seconds=15):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in self.screen():
                return True
            if not self.tui_alive():
                return False
            time.sleep(0.05)
        return False

    def tui_alive(self):
        return self.tmux("has-session", "-t", self.session, check=False).returncode == 0

    def tui_pid(self):
        p = self.tmux("display-message", "-p", "-t", self.session, "#{pane_pid}", check=False)
        return int(p.stdout.strip()) if p.returncode == 0 and p.stdout.strip().isdigit() else None

    def start_tui(self):
        cmd = (f"TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 exec {os.path.join(self.bin, 'tongban')} start "
               f"--data-dir {os.path.join(self.work, 'alice')} 2>>{os.path.join(self.work, 'tui.err')}")
        self.tmux("new-session", "-d", "-s", self.session, "-x", "120", "-y", "40", cmd)
        self.tui_running = True
        # The list, then Bob's chat by list search.
        if not self.wait_screen("Bob 鲍勃"):
            raise RunFailed("the full-screen client never listed Bob:\n" + self.screen())
        self.tmux("send-keys", "-t", self.session, "/")
        self.tmux("send-keys", "-t", self.session, "-l", "Bob")
        self.tmux("send-keys", "-t", self.session, "Enter")
        if not self.wait_screen("hello bob"):
            raise RunFailed("the full-screen client did not open Bob's chat:\n" + self.screen())

    def kill_tui(self):
        pid = self.tui_pid()
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.tmux("kill-session", "-t", self.session, check=False)
        self.tui_running = False

    # ------------------------------------------------------------ steps

    def text(self, peer):
        self.counter += 1
        t = f"s{self.seed}-{peer}-{self.counter:03d}"
        self.order[peer].append(t)
        return t

    def outcome_of(self, p):
        out = p.stdout + p.stderr
        if p.returncode == 0 and "Sent (seq" in out:
            return "sent"
        if p.returncode == 0 and ("Queued" in out):
            return "queued"
        if p.returncode == 75:
            return "queued"
        if p.returncode == 1 and "Not sent" in out:
            return "failed"
        raise RunFailed(f"tongban send: unexpected exit {p.returncode}: {out[-400:]}")

    def step(self, name, arg):
        if name == "server_stop":
            self.stop_server(signal.SIGTERM)
        elif name == "server_kill":
            self.stop_server(signal.SIGKILL)
        elif name == "server_start":
            if self.server is None:
                self.start_server()
        elif name in ("send_queue", "send_plain"):
            t = self.text(arg)
            flags = ["--queue"] if name == "send_queue" else []
            p = self.cli("alice", "send", "--to", TARGETS[arg], *flags, t)
            self.outcomes[t] = (arg, self.outcome_of(p))
            self.note(f"{name} {t}: {self.outcomes[t][1]}")
        elif name == "send_killed":
            t = self.text(arg)
            proc = subprocess.Popen([os.path.join(self.bin, "tongban"), "send", "--queue", "--to", TARGETS[arg], t,
                                     "--data-dir", os.path.join(self.work, "alice")],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
            time.sleep(self.rng.uniform(0.0, 0.6))
            proc.kill()
            out, err = proc.communicate()
            if proc.returncode == -signal.SIGKILL:
                self.outcomes[t] = (arg, "unknown")
            else:
                self.outcomes[t] = (arg, self.outcome_of(subprocess.CompletedProcess([], proc.returncode, out, err)))
            self.note(f"{name} {t}: {self.outcomes[t][1]}")
        elif name == "sync":
            self.cli("alice", "sync")
        elif name in ("tui_send", "tui_send_killed"):
            if not self.tui_running:
                self.start_tui()
            t = self.text("bob")
            self.tmux("send-keys", "-t", self.session, "-l", t)
            self.tmux("send-keys", "-t", self.session, "Enter")
            if name == "tui_send_killed":
                time.sleep(self.rng.uniform(0.0, 0.3))
                self.kill_tui()
                self.outcomes[t] = ("bob", "unknown")
            else:
                # On screen means written to the store: queued, whatever the server does.
                if not self.wait_screen(t):
                    raise RunFailed(f"the full-screen client never showed {t}:\n" + self.screen())
                self.outcomes[t] = ("bob", "queued")
            self.note(f"{name} {t}: {self.outcomes[t][1]}")
        elif name == "tui_kill":
            if self.tui_running:
                self.kill_tui()
        else:
            raise RunFailed(f"unknown step {name}")

    # ------------------------------------------------------------ the run

    def play(self):
        self.rng = random.Random(self.seed * 7919 + 17)
        self.t0 = time.monotonic()
        self.start_server()
        for who, name in (("alice", "Alice 爱丽丝"), ("bob", "Bob 鲍勃"), ("carol", "Carol 卡罗尔")):
            p = self.cli(who, "register", "--server", self.url(), "--account", f"{who}", "--name", name,
                         "--password-stdin", stdin=PASSWORD + "\n")
            if p.returncode != 0:
                raise RunFailed(f"register {who}: {p.stdout}{p.stderr}")
        for peer in ("bob", "carol"):
            p = self.cli("alice", "send", "--to", peer, f"hello {peer}")
            if p.returncode != 0:
                raise RunFailed(f"first send to {peer}: {p.stdout}{p.stderr}")
        p = self.cli("alice", "group", "create", "小队", "--unique", TARGETS["team"], "--member", "bob", "--member", "carol")
        if p.returncode != 0:
            raise RunFailed(f"group create: {p.stdout}{p.stderr}")
        for name, arg in self.schedule:
            self.note(f"step {name} {arg or ''} at {time.monotonic() - self.t0:.1f} s".rstrip())
            self.step(name, arg)
        if self.tui_running:
            self.kill_tui()
        if self.server is None:
            self.start_server()
        self.cli("alice", "sync")
        self.cli("alice", "sync")
        return self.verify()

    def verify(self):
        problems = []
        box = self.cli("alice", "outbox", "--json")
        rows = json.loads(box.stdout or "[]")
        if rows:
            problems.append(f"alice's outbox is not empty after two syncs: {rows}")
        for peer in ("bob", "carol", "team"):
            mine = json.loads(self.cli("alice", "history", "--with", TARGETS[peer], "--json", "--offline",
                                       "--limit", "1000").stdout)
            stuck = [m["content"] for m in mine if m["status"] != "success"]
            if stuck:
                problems.append(f"alice still has unsent messages to {peer}: {stuck}")
            # The group is read by bob; each one-to-one chat by its peer.
            reader, chat = ("bob", TARGETS["team"]) if peer == "team" else (peer, "alice")
            got = json.loads(self.cli(reader, "history", "--with", chat, "--json", "--limit", "1000").stdout)
            texts = [m["content"] for m in got if m["content"].startswith(f"s{self.seed}-")]
            dupes = sorted({t for t in texts if texts.count(t) > 1})
            if dupes:
                problems.append(f"{peer} received these more than once: {dupes}")
            rank = {t: i for i, t in enumerate(self.order[peer])}
            unknown = [t for t in texts if t not in rank]
            if unknown:
                problems.append(f"{peer} received texts nobody sent: {unknown}")
            ranks = [rank[t] for t in texts if t in rank]
            if ranks != sorted(ranks):
                problems.append(f"{peer} received them out of queue order: {texts}")
            delivered = set(texts)
            for t in self.order[peer]:
                outcome = self.outcomes.get(t, (peer, "unknown"))[1]
                if outcome in ("sent", "queued") and t not in delivered:
                    problems.append(f"{t} was reported {outcome} but {peer} never received it")
                if outcome == "failed" and t in delivered:
                    problems.append(f"{t} was reported failed but {peer} received it")
        return problems

    def cleanup(self):
        if self.tui_running:
            self.kill_tui()
        if self.server is not None:
            self.stop_server(signal.SIGKILL)
        shutil.rmtree(self.work, ignore_errors=True)


# Where each conversation's messages go (`send --to`, `history --with`).
TARGETS = {"bob": "bob", "carol": "carol", "team": "qf_team"}

STEPS_UP = [("send_queue", 5), ("send_plain", 4), ("send_killed", 3), ("sync", 2), ("tui_send", 4),
            ("tui_send_killed", 1), ("tui_kill", 1), ("server_stop", 2), ("server_kill", 2)]
STEPS_DOWN = [("send_queue", 5), ("send_plain", 2), ("send_killed", 2), ("sync", 1), ("tui_send", 3),
              ("tui_kill", 1), ("server_start", 5)]


def schedule_for(seed, length):
    rng = random.Random(seed)
    up = True
    steps = []
    for _ in range(length):
        table = STEPS_UP if up else STEPS_DOWN
        name = rng.choices([n for n, _ in table], weights=[w for _, w in table])[0]
        arg = rng.choice(["bob", "carol", "team"]) if name in ("send_queue", "send_plain", "send_killed") else None
        if name in ("server_stop", "server_kill"):
            up = False
        if name == "server_start":
            up = True
        steps.append((name, arg))
    return steps


def parse_schedule(text):
    """`server_stop send_queue:bob*5 server_start sync sync` -> steps."""
    steps = []
    for word in text.split():
        count = 1
        if "*" in word:
            word, n = word.split("*")
            count = int(n)
        name, _, arg = word.partition(":")
        steps += [(name, arg or None)] * count
    return steps


def show(steps):
    return " ".join(n + (f":{a}" if a else "") for n, a in steps)


def run_one(bin_dir, seed, steps, verbose):
    run = Run(bin_dir, seed, steps, verbose)
    started = time.monotonic()
    try:
        problems = run.play()
    except RunFailed as e:
        problems = [str(e)]
    except subprocess.TimeoutExpired as e:
        problems = [f"a command hung: {e}"]
    except OSError as e:
        problems = [f"could not run a command: {e}"]
    finally:
        run.cleanup()
    took = time.monotonic() - started
    if problems:
        print(f"FAIL seed {seed} ({took:.1f} s): schedule: {show(steps)}")
        for line in run.log:
            print("    " + line)
        for p in problems:
            print("  - " + p)
        print(f"  reproduce: python3 Tests/fault/queue_fault.py --bin {bin_dir} --seed {seed} --verbose"
              if seed >= 0 else f"  reproduce: python3 Tests/fault/queue_fault.py --bin {bin_dir} --schedule '{show(steps)}'")
        return False
    counts = {}
    for _, o in run.outcomes.values():
        counts[o] = counts.get(o, 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"ok seed {seed} ({took:.1f} s, {len(steps)} steps: {summary})", flush=True)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=".build/debug")
    ap.add_argument("--runs", type=int, default=8, help="seeds FIRST..FIRST+RUNS-1")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--seed", type=int, help="one seed only")
    ap.add_argument("--schedule", help="one explicit schedule, e.g. 'server_stop send_queue:bob*5 server_start sync'")
    ap.add_argument("--steps", type=int, default=14, help="steps per random run")
    ap.add_argument("--regressions", help="a file of seeds and schedules to run as well")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    if shutil.which("tmux") is None:
        print("FAIL tmux is needed (make test installs it)")
        sys.exit(1)

    plan = []
    if a.regressions:
        with open(a.regressions) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                if line.isdigit():
                    plan.append((int(line), schedule_for(int(line), a.steps)))
                else:
                    plan.append((-(len(plan) + 1), parse_schedule(line)))
    if a.schedule:
        plan.append((-(len(plan) + 1), parse_schedule(a.schedule)))
    elif a.seed is not None:
        plan.append((a.seed, schedule_for(a.seed, a.steps)))
    else:
        plan += [(s, schedule_for(s, a.steps)) for s in range(a.first, a.first + a.runs)]

    passed = failed = 0
    for seed, steps in plan:
        if run_one(a.bin, seed, steps, a.verbose):
            passed += 1
        else:
            failed += 1
    print(f"queue-fault: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
