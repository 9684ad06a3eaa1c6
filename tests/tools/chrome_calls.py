#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The calls of a Chrome Trace Event JSON file, checked as a viewer sees them.

    chrome_calls.py FILE|-            phase counts, calls counted once each:
                                      "calls=N M=.. i=.." (a B/E pair or an X
                                      event is one call; B, E and X are not
                                      listed)
    chrome_calls.py --names FILE|-    one line per call, in start order per
                                      thread: "tid ts_us dur_us name"
    chrome_calls.py --as-be FILE|-    the calls as B/E events, one a line
                                      ({"ph":"B","ts":US.NNN,"tid":T,"name":N},
                                      {"ph":"E","ts":US.NNN,"tid":T}), thread
                                      after thread, in time order

Fails (exit 1, one line on stderr) when the calls do not make a trace a
viewer can draw: an E without its B, a B never ended, an X with a negative
duration, timestamps of a thread's B/E going back, or two calls of a thread
that overlap without one holding the other.
"""
import collections
import json
import sys


def die(msg):
    sys.stderr.write("chrome_calls: %s\n" % msg)
    sys.exit(1)


def calls_of(events):
    """(tid, start, end, name, event) of every call; checks pairing and nesting."""
    open_b = collections.defaultdict(list)
    last_be = {}
    calls = []
    for e in events:
        ph = e.get("ph")
        if ph not in ("B", "E", "X"):
            continue
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            die("no integer pid/tid: %r" % e)
        if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            die("bad ts: %r" % e)
        t = (e["pid"], e["tid"])
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                die("X without a duration: %r" % e)
            calls.append((t, e["ts"], e["ts"] + e["dur"], e.get("name"), e))
            continue
        if t in last_be and e["ts"] < last_be[t]:
            die("B/E timestamps go back on %r: %r" % (t, e))
        last_be[t] = e["ts"]
        if ph == "B":
            open_b[t].append(e)
        else:
            if not open_b[t]:
                die("E without B: %r" % e)
            b = open_b[t].pop()
            calls.append((t, b["ts"], e["ts"], b.get("name"), b))
    left = {t: len(v) for t, v in open_b.items() if v}
    if left:
        die("B never ended: %r" % left)
    # nesting: in start order (longer first at one start), each call lies
    # inside the innermost call still open, or after it
    by_t = collections.defaultdict(list)
    for c in calls:
        by_t[c[0]].append(c)
    out = []
    for t, cs in by_t.items():
        # 1 ns of slack: timestamps are us with a 3-digit fraction, as doubles
        cs.sort(key=lambda c: (c[1], -c[2]))
        stack = []
        for c in cs:
            while stack and stack[-1][2] <= c[1] + 5e-4:
                stack.pop()
            if stack and c[2] > stack[-1][2] + 5e-4:
                die("calls overlap on %r: %r and %r" % (t, stack[-1][4], c[4]))
            stack.append(c)
        out.extend(cs)
    return out


def main():
    args = sys.argv[1:]
    mode = args[0] if args and args[0] in ("--names", "--as-be") else None
    if mode:
        args = args[1:]
    if len(args) != 1:
        die("usage: chrome_calls.py [--names|--as-be] FILE|-")
    f = sys.stdin if args[0] == "-" else open(args[0])
    try:
        events = json.load(f)["traceEvents"]
    except (ValueError, KeyError) as err:
        die("not Trace Event JSON: %s" % err)
    calls = calls_of(events)
    if mode == "--names":
        for t, start, end, name, _ in calls:
            print("%d %.3f %.3f %s" % (t[1], start, end - start, name))
        return
    if mode == "--as-be":
        def us(x):
            ns = round(x * 1000)
            return "%d.%03d" % (ns // 1000, ns % 1000)

        stack = []
        for i, (t, start, end, name, _) in enumerate(calls):
            while stack and (stack[-1][0] != t or stack[-1][2] <= start):
                c = stack.pop()
                print('{"ph":"E","ts":%s,"tid":%d}' % (us(c[2]), c[0][1]))
            print('{"ph":"B","ts":%s,"tid":%d,"name":%s}' % (us(start), t[1], json.dumps(name)))
            stack.append((t, start, end))
        while stack:
            c = stack.pop()
            print('{"ph":"E","ts":%s,"tid":%d}' % (us(c[2]), c[0][1]))
        return
    ph = collections.Counter(e["ph"] for e in events if e.get("ph") not in ("B", "E", "X"))
    ph["calls"] = len(calls)
    print(" ".join("%s=%d" % kv for kv in sorted(ph.items())))


main()
