#!/usr/bin/env python3
"""The same load on SQLite, on PostgreSQL, and on two servers sharing PostgreSQL, in one run.

Builds nothing: takes the release binaries, built with PostgreSQL in, e.g.

    swift build -c release --traits PostgreSQL --product hitthat
    swift build -c release --traits PostgreSQL --product hitthat-load
    tools/load_compare.py                      # runs a, b and c; prints one table
    tools/load_compare.py --runs a,b --seconds 60

Starts a throwaway PostgreSQL (tools/postgres-test-server.sh; stopped at the end), then for each
run starts the server(s) on a fresh database, runs `hitthat-load` with the same options, reads the
servers' and PostgreSQL's CPU time from /proc before and after (and the load tool's, which shares
the cores: "cores busy" is all three over the run's length), and audits the database (`hitthat
audit`: the log replayed against what is saved):

  a  one server on SQLite
  b  one server on PostgreSQL
  c  two servers on PostgreSQL, clients spread over both (--failover), the second server killed
     with SIGKILL at --kill-at seconds and started again --down seconds later; the punches on
     their way from the kill until --settle seconds after the restart are reported apart.

Servers run with --password-rounds 1000 and no sign-in limit (a thousand clients sign in from one
address at the start; the default 600,000 PBKDF2 rounds would make the CPU figures those of the
sign-ins). PostgreSQL runs with fsync off (the test server's setting) and SQLite with the
default durability, process-crash: neither syncs a commit to the disk, both survive kill -9.

Writes everything (logs, each run's JSON, every push as CSV) under .build/load-compare/TIME/ and prints a table,
and each run's p99 by 5 s of the run: the slow pushes come in bursts.
"""

import argparse
import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICKS = os.sysconf("SC_CLK_TCK")


# MARK: - CPU time from /proc


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command's name (field 3 on), or None when gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def cpu_seconds(pid, children=False):
    """User and system CPU time of a process; with children, also of the children it has waited for."""
    fields = stat_fields(pid)
    if fields is None:
        return 0.0
    used = int(fields[11]) + int(fields[12])
    if children:
        used += int(fields[13]) + int(fields[14])
    return used / TICKS


def postgres_cpu_seconds(postmaster):
    """PostgreSQL's CPU time: the postmaster with the backends it reaped, and those still running."""
    total = cpu_seconds(postmaster, children=True)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_fields(entry)
            if fields is not None and fields[1] == str(postmaster):
                total += cpu_seconds(entry)
    return total


def load_average():
    """The machine's 1-minute load average: on a shared machine, how busy it was besides."""
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


# MARK: - Servers


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A `hitthat serve` on a port of its own, started again on the same port and database after a kill."""

    def __init__(self, binary, database, work, name):
        self.binary, self.database, self.name = binary, database, name
        self.port = free_port()
        self.log = open(os.path.join(work, f"{name}.log"), "ab")
        self.process = None
        # CPU time of the processes killed so far.
        self.spent = 0.0

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--database", self.database,
             "--password-rounds", "1000", "--account-burst", "100000", "--account-rate", "100000",
             "--log-level", "warning"],
            stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"load_compare: {self.name} exited {self.process.returncode}; see {self.log.name}")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1)
                return
            except OSError:
                time.sleep(0.05)
        sys.exit(f"load_compare: {self.name} did not come up; see {self.log.name}")

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}"

    def cpu(self):
        """CPU seconds of this server so far, over every process it has been."""
        return self.spent + (cpu_seconds(self.process.pid) if self.process else 0.0)

    def kill(self):
        self.spent += cpu_seconds(self.process.pid)
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process = None

    def stop(self):
        if self.process:
            self.spent += cpu_seconds(self.process.pid)
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


# MARK: - One run


def run(name, args, binaries, databases, work, postmaster, kill_at=None):
    print(f"load_compare: run {name}: {len(databases)} server(s) on {', '.join(d.split('?')[0] if d.startswith('postgres') else 'SQLite' for d in databases)}", file=sys.stderr)
    servers = [Server(binaries["hitthat"], database, work, f"{name}-server{i}") for i, database in enumerate(databases)]
    for server in servers:
        server.start()
    command = [binaries["hitthat-load"]]
    for server in servers:
        command += ["--server", server.url]
    command += ["--clients", str(args.clients), "--fighting", str(args.fighting), "--seconds", str(args.seconds),
                "--think-ms", str(args.think_ms), "--grace", str(args.grace), "--prefix", f"run{name}", "--json",
                "--pushes", os.path.join(work, f"{name}-pushes.csv")]
    if kill_at is not None:
        command += ["--failover", "--outage-start", str(kill_at),
                    "--outage-end", str(kill_at + args.down + args.settle)]
    cpu_before = [server.cpu() for server in servers]
    load_before = load_average()
    db_before = postgres_cpu_seconds(postmaster) if postmaster else None
    with open(os.path.join(work, f"{name}-load.json"), "wb") as out, \
            open(os.path.join(work, f"{name}-load.log"), "wb") as err:
        began = time.monotonic()
        load = subprocess.Popen(command, stdout=out, stderr=err)
        if kill_at is not None:
            time.sleep(max(0, began + kill_at - time.monotonic()))
            servers[-1].kill()
            print(f"load_compare: run {name}: {servers[-1].name} killed at {time.monotonic() - began:.1f} s", file=sys.stderr)
            time.sleep(args.down)
            servers[-1].start()
            print(f"load_compare: run {name}: {servers[-1].name} back at {time.monotonic() - began:.1f} s", file=sys.stderr)
        # Waited for by hand, for its CPU time: it shares the machine's cores with the servers.
        _, wait_status, usage = os.wait4(load.pid, 0)
        load.returncode = status = os.waitstatus_to_exitcode(wait_status)
        seconds = time.monotonic() - began
    load_cpu = usage.ru_utime + usage.ru_stime
    cpu = sum(server.cpu() - before for server, before in zip(servers, cpu_before))
    load_after = load_average()
    db_cpu = postgres_cpu_seconds(postmaster) - db_before if postmaster else None
    for server in servers:
        server.stop()
    audit = subprocess.run([binaries["hitthat"], "audit", "--database", databases[0], "--json"],
                           capture_output=True, text=True)
    with open(os.path.join(work, f"{name}-load.json")) as f:
        lines = f.read().strip().splitlines()
    if not lines:
        sys.exit(f"load_compare: run {name}: hitthat-load wrote no report (exit {status}); see {work}/{name}-load.log")
    report = json.loads(lines[-1])
    counts = report["counts"]
    messages = counts.get("messagesSent", 0) + counts.get("messagesReceived", 0)
    return {
        "run": name, "servers": len(servers),
        "database": "PostgreSQL" if databases[0].startswith("postgres") else "SQLite",
        "exit": status, "report": report, "serverCpuSeconds": cpu, "databaseCpuSeconds": db_cpu,
        "loadToolCpuSeconds": load_cpu, "seconds": seconds,
        "messages": messages, "auditConsistent": '"consistent":true' in audit.stdout,
        "loadAverage": [load_before, load_after],
    }


# MARK: - The table


def p99_by_window(pushes_csv, window=5):
    """The p99 push latency (ms) of the punches sent in each `window` seconds of a run, as text:
    the slow pushes come in bursts (the start, fights ending together, an outage), which one p99
    over the run does not show."""
    by_window = {}
    with open(pushes_csv) as f:
        for row in csv.DictReader(f):
            by_window.setdefault(int(float(row["sent_s"]) // window) * window, []).append(float(row["latency_ms"]))
    cells = []
    for start in sorted(by_window):
        latencies = sorted(by_window[start])
        cells.append(f"{start}s {latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]:.0f}")
    return ", ".join(cells)


def table(results):
    def ms(latency, key):
        value = (latency or {}).get(key)
        return "–" if value is None else f"{value:.1f}"

    def per_thousand(seconds, messages):
        return "–" if seconds is None or not messages else f"{1000 * seconds / messages * 1000:.0f}"

    rows = [["run", "servers", "database", "fights at once", "messages/s", "push p50 ms", "push p99 ms",
             "p99 across servers ms", "p99 in the outage ms", "server CPU ms / 1k msgs",
             "PostgreSQL CPU ms / 1k msgs", "load tool CPU ms / 1k msgs", "cores busy", "lost", "twice", "problems",
             "audit", "machine load"]]
    for r in results:
        report, counts = r["report"], r["report"]["counts"]
        outside = report.get("pushLatencyOutsideOutageMs") or report["pushLatencyMs"]
        rows.append([
            r["run"], str(r["servers"]), r["database"], str(report.get("fightsAtOnceMedian", "–")),
            f"{report['messagesPerSecond']:.0f}", ms(outside, "p50"), ms(outside, "p99"),
            ms(report.get("pushLatencyAcrossServersMs"), "p99") + f" ({(report.get('pushLatencyAcrossServersMs') or {}).get('count', 0)})",
            ms(report.get("pushLatencyDuringOutageMs"), "p99"),
            per_thousand(r["serverCpuSeconds"], r["messages"]), per_thousand(r["databaseCpuSeconds"], r["messages"]),
            per_thousand(r["loadToolCpuSeconds"], r["messages"]),
            f"{(r['serverCpuSeconds'] + (r['databaseCpuSeconds'] or 0) + r['loadToolCpuSeconds']) / r['seconds']:.2f} of {os.cpu_count()}",
            str(counts.get("eventsLost", 0)),
            str(counts.get("eventsPushedTwice", 0) + counts.get("eventsLoggedTwice", 0)),
            str(len(report["problems"])), "consistent" if r["auditConsistent"] else "FAILED",
            "{:.1f}→{:.1f}".format(*r["loadAverage"]),
        ])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "| " + " | ".join("-" * width for width in widths) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"),
                        help="the folder of the release hitthat and hitthat-load (built with --traits PostgreSQL)")
    parser.add_argument("--runs", default="a,b,c", help="which runs, of a, b and c")
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--fighting", type=int, default=500, help="clients that fight (two a fight); the rest stay idle")
    parser.add_argument("--seconds", type=float, default=90, help="seconds clients look for new fights")
    parser.add_argument("--think-ms", type=int, default=2000, help="mean pause before a punch (2000: 1-3 s, uniform)")
    parser.add_argument("--grace", type=float, default=90, help="seconds after --seconds to finish fights")
    parser.add_argument("--kill-at", type=float, default=40, help="run c: when the second server is killed")
    parser.add_argument("--down", type=float, default=5, help="run c: seconds it stays down")
    parser.add_argument("--settle", type=float, default=10, help="run c: seconds after the restart still counted as the outage")
    args = parser.parse_args()
    runs = args.runs.split(",")
    binaries = {name: os.path.join(args.bin, name) for name in ("hitthat", "hitthat-load")}
    for path in binaries.values():
        if not os.access(path, os.X_OK):
            sys.exit(f"load_compare: no {path}; build it first (swift build -c release --traits PostgreSQL --product NAME)")

    work = os.path.join(ROOT, ".build", "load-compare", time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(work)
    postgres_url = folder = postmaster = None
    if any(run_name in runs for run_name in ("b", "c")):
        postgres_url = subprocess.run([os.path.join(ROOT, "tools", "postgres-test-server.sh"), "start"],
                                      check=True, capture_output=True, text=True).stdout.strip()
        folder = postgres_url.split("host=", 1)[1]
        with open(os.path.join(folder, "data", "postmaster.pid")) as f:
            postmaster = int(f.readline())
    results = []
    try:
        for run_name in runs:
            if run_name == "a":
                results.append(run("a", args, binaries, [os.path.join(work, "a.sqlite")], work, None))
            elif run_name == "b":
                results.append(run("b", args, binaries, [postgres_url + "&schema=run_b"], work, postmaster))
            elif run_name == "c":
                shared = postgres_url + "&schema=run_c"
                results.append(run("c", args, binaries, [shared, shared], work, postmaster, kill_at=args.kill_at))
            else:
                sys.exit(f"load_compare: no run {run_name}; expected a, b or c")
            with open(os.path.join(work, "results.json"), "w") as f:
                json.dump(results, f, indent=1)
    finally:
        if folder:
            # Its log kept with the runs' (HITTHAT_POSTGRES_OPTIONS may have it log more).
            subprocess.run(["cp", os.path.join(folder, "server.log"), os.path.join(work, "postgres.log")])
            subprocess.run([os.path.join(ROOT, "tools", "postgres-test-server.sh"), "stop", folder])
    print(f"{args.clients} clients ({args.fighting} fighting), {args.seconds:.0f} s of matching, a punch every "
          f"{args.think_ms / 2000:.1f}–{args.think_ms * 1.5 / 1000:.1f} s; machine load is the 1-minute load average "
          f"at the start and end of each run ({os.cpu_count()} cores); in {work}")
    print(table(results))
    for r in results:
        print(f"  run {r['run']}, p99 ms of the punches sent in each 5 s: "
              f"{p99_by_window(os.path.join(work, r['run'] + '-pushes.csv'))}")
    for r in results:
        for problem in r["report"]["problems"][:5]:
            print(f"  run {r['run']}: {problem}")
    sys.exit(0 if all(r["exit"] == 0 and r["auditConsistent"] for r in results) else 1)


if __name__ == "__main__":
    main()
