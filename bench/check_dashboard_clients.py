#!/usr/bin/env python3
"""`vitals dashboard` against clients that misbehave: what it answers, whether it serves on, and how
fast SIGTERM ends it. Every check runs its own `vitals dashboard --port 0` (a simulated finger) and
talks to it on 127.0.0.1 only; every wait is bounded, and the program is killed at the end.

  heads   two clients send a 1-MiB header line at once, a third 20,000 short header lines; then a
          page is asked for and SIGTERM sent. Prints each client's answer and when it came.
  sweep   one header line of 4, 16 and 32 KiB, one at a time: when the answer came (FlyingFox's
          reader took time quadratic in the line's length).
  trickle a client sends a header line a second, another nothing: when each was answered or closed.
  files   under `ulimit -n 64`, a viewer on /events, then 100 clients connect: is the program still
          running, how many of them were refused (503), does the viewer still get events, is the
          page served once they leave, and the status after SIGTERM.
  stall   a viewer on /events stops reading (the finger at 100x fills its buffers): is it closed
          once a write has waited the default 30 s, and is a new viewer served.

Prints one JSON line per check and exits 1 when one fails what the README promises (431 for a
head over 32 KiB, 408 after 10 s, 503 past the connection limit, a stalled viewer closed, SIGTERM ends the program within
2 s with status 0). Usage: bench/check_dashboard_clients.py [VITALS] [--checks heads,sweep,...]
"""
import argparse, json, socket, subprocess, sys, threading, time

PAGE = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


class Dashboard:
    """`vitals dashboard --port 0`, optionally under `ulimit -n`, with the port it printed."""

    def __init__(self, vitals, files=None, arguments=()):
        command = [vitals, "dashboard", "--port", "0", *arguments]
        if files:
            command = ["sh", "-c", 'ulimit -n %d && exec "$0" "$@"' % files] + command
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        url = self.process.stdout.readline().decode().strip()
        self.port = int(url.rstrip("/").rsplit(":", 1)[1])

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=5)

    def running(self):
        return self.process.poll() is None

    def stop(self, within=10.0):
        """Sends SIGTERM: (seconds to end, status), or (None, None) if it had not ended `within`."""
        if not self.running():
            return 0.0, self.process.returncode
        start = time.monotonic()
        self.process.terminate()
        try:
            self.process.wait(within)
            return round(time.monotonic() - start, 3), self.process.returncode
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None, None

    def error(self):
        return self.process.stderr.read().decode().strip().splitlines()[-1:] if not self.running() else []


def answer(sock, timeout):
    """(first line of what came, seconds it took) within `timeout`; ("closed", s) at EOF."""
    start = time.monotonic()
    sock.settimeout(timeout)
    try:
        data = sock.recv(4096)
    except socket.timeout:
        return None, None
    except OSError as error:
        return error.strerror, round(time.monotonic() - start, 2)
    line = data.split(b"\r\n", 1)[0].decode(errors="replace") if data else "closed"
    return line, round(time.monotonic() - start, 2)


def send_and_answer(dashboard, head, timeout):
    """Sends `head` (while the server reads it) and waits for the answer, from the first byte sent."""
    sock = dashboard.connect()
    start = time.monotonic()
    result = {}

    def send():
        try:
            sock.settimeout(timeout)
            sock.sendall(head)
        except OSError:
            pass  # the server closed the connection before it had all

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    line, _ = answer(sock, timeout)
    result.update(answer=line, seconds=round(time.monotonic() - start, 2) if line else None)
    sock.close()
    return result


def parallel(calls):
    results = [None] * len(calls)
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, calls[i]()), daemon=True) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def check_heads(vitals):
    dashboard = Dashboard(vitals)
    long_line = b"GET / HTTP/1.1\r\nX-Long: " + b"a" * (1 << 20) + b"\r\n\r\n"
    many_lines = b"GET / HTTP/1.1\r\n" + b"".join(b"X-Field-%d: value\r\n" % i for i in range(20000)) + b"\r\n"
    clients = parallel([lambda: send_and_answer(dashboard, long_line, 10)] * 2 + [lambda: send_and_answer(dashboard, many_lines, 10)])
    page = send_and_answer(dashboard, PAGE, 5)
    seconds, status = dashboard.stop()
    ok = (all((c["answer"] or "").startswith("HTTP/1.1 431") for c in clients) and (page["answer"] or "").startswith("HTTP/1.1 200")
          and seconds is not None and seconds < 2 and status == 0)
    return dict(check="heads", ok=ok, one_mib_lines=clients[:2], twenty_thousand_lines=clients[2], page=page,
                sigterm_seconds=seconds, status=status)


def check_sweep(vitals):
    rows = []
    for size in (4096, 16384, 32768):
        dashboard = Dashboard(vitals)
        head = b"GET / HTTP/1.1\r\nX-Long: " + b"a" * size + b"\r\n\r\n"
        rows.append(dict(line_bytes=size, **send_and_answer(dashboard, head, 30)))
        dashboard.stop()
    ok = all(r["seconds"] is not None and r["seconds"] < 1 for r in rows) and rows[-1]["answer"].startswith("HTTP/1.1 431")
    return dict(check="sweep", ok=ok, lines=rows)


def check_trickle(vitals, limit=20):
    dashboard = Dashboard(vitals)
    trickler, idle = dashboard.connect(), dashboard.connect()
    start = time.monotonic()
    trickler.sendall(b"GET / HTTP/1.1\r\n")
    trickled = idled = None
    for i in range(limit):
        try:
            trickler.sendall(b"X-Field-%d: value\r\n" % i)
        except OSError:
            pass
        if trickled is None:
            line, _ = answer(trickler, 0.5)
            if line:
                trickled = dict(answer=line, seconds=round(time.monotonic() - start, 1))
        if idled is None:
            line, _ = answer(idle, 0.5)
            if line:
                idled = dict(answer=line, seconds=round(time.monotonic() - start, 1))
        if trickled and idled:
            break
    seconds, status = dashboard.stop()
    ok = (trickled is not None and trickled["answer"].startswith("HTTP/1.1 408") and idled is not None
          and idled["answer"] == "closed" and seconds is not None and seconds < 2 and status == 0)
    return dict(check="trickle", ok=ok, trickler=trickled or "open after %d s" % limit,
                idle=idled or "open after %d s" % limit, sigterm_seconds=seconds, status=status)


def check_files(vitals, files=64, clients=100):
    dashboard = Dashboard(vitals, files=files)
    viewer = dashboard.connect()
    viewer.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    viewer_answer, _ = answer(viewer, 5)
    crowd = []
    for _ in range(clients):
        try:
            crowd.append(dashboard.connect())
        except OSError:
            break
    answers = [answer(c, 0.2)[0] for c in crowd]
    running = dashboard.running()
    viewer.setblocking(False)
    try:
        while viewer.recv(65536):  # what came so far
            pass
    except (BlockingIOError, OSError):
        pass
    viewer.setblocking(True)
    later, _ = answer(viewer, 5)
    for c in crowd:
        c.close()
    page = None
    for _ in range(10):
        time.sleep(0.5)
        try:
            page = send_and_answer(dashboard, PAGE, 2)
        except OSError as error:
            page = dict(answer=error.strerror)
        if (page["answer"] or "").startswith("HTTP/1.1 200"):
            break
    error = dashboard.error()
    seconds, status = dashboard.stop()
    refused = sum(1 for a in answers if (a or "").startswith("HTTP/1.1 503"))
    ok = (running and refused > 0 and later not in (None, "closed") and (page["answer"] or "").startswith("HTTP/1.1 200")
          and status == 0)
    return dict(check="files", ok=ok, ulimit_n=files, viewer=viewer_answer, connected=len(crowd), refused_503=refused,
                closed=sum(1 for a in answers if a == "closed"), running_after=running,
                viewer_gets_events_after=later not in (None, "closed"), page_after=page["answer"], stderr=error,
                sigterm_seconds=seconds, status=status)


def check_stall(vitals, timeout=30):
    """A viewer that stops reading, under the default write timeout, with the finger at 100x."""
    dashboard = Dashboard(vitals, arguments=("--speed", "100"))
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    stalled.connect(("127.0.0.1", dashboard.port))
    stalled.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    time.sleep(timeout + 5)  # the buffers fill within a few seconds, then a write waits
    start, drained, closed = time.monotonic(), 0, False
    stalled.settimeout(1)
    while time.monotonic() - start < 10:
        try:
            data = stalled.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
        if not data:
            closed = True
            break
        drained += len(data)
    viewer = dashboard.connect()
    viewer.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    fresh, _ = answer(viewer, 5)
    seconds, status = dashboard.stop()
    ok = closed and (fresh or "").startswith("HTTP/1.1 200") and status == 0
    return dict(check="stall", ok=ok, stalled_viewer_closed=closed, bytes_it_held=drained, new_viewer=fresh,
                sigterm_seconds=seconds, status=status)


CHECKS = dict(heads=check_heads, sweep=check_sweep, trickle=check_trickle, files=check_files, stall=check_stall)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vitals", nargs="?", default=".build/debug/vitals")
    ap.add_argument("--checks", default=",".join(CHECKS))
    args = ap.parse_args()
    failed = False
    for name in args.checks.split(","):
        result = CHECKS[name](args.vitals)
        failed |= not result["ok"]
        print(json.dumps(result), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
