#!/usr/bin/python3
"""hostctl.py - host agent: lets guest tests inject faults into ONE path of
the two-path QEMU LUN (images/run-guest.sh), through QMP.  Stdlib only.
Host-side self-test: scripts/hostctl-selftest.sh.

The guest talks on its second serial port (ttyS1, the unix socket --ctl):
    REQ <id> <command> [args...]\n      guest -> host
    ACK <id> OK [text]\n                 host -> guest
    ACK <id> ERR <reason>\n
Anything else on the line (echo, \r, partial lines, an earlier ACK) is
ignored.  A request whose id was already answered is answered again from a
cache, not executed twice.  Every request is answered within --req-timeout
seconds (QMP errors come back as ERR with QEMU's message; a QEMU that stops
answering gives "ERR ...: no QMP reply to X in N s").  Requests run one at a
time; QMP events are buffered by a reader thread.  The agent stops when QEMU
closes the sockets.

Block graph per path N (p<N> is the raw node the scsi-hd hd<N> uses; lun0 the
shared file node):   p<N> -> [blkdebug hc<N>d<gen>] -> [throttle hc<N>t<gen>] -> lun0
The blkdebug node sits directly under the raw node because the raw driver
raises the blkdebug events (read_aio, write_aio, flush_to_disk...) on its own
file child.  A change rebuilds the path's filter nodes under a new generation
number (blockdev-add bottom-up, blockdev-reopen of p<N> onto the new top,
blockdev-del of the old nodes), so rules accumulate and 'clear' goes back to
p<N> -> lun0.  A reopen drains (waits for in-flight requests of) both paths
for a moment - they share lun0 - and takes 1-5 ms on an idle QEMU.

Commands (path = 0 or 1):
  ping
  inject <path> <event> <errno> [sector=N] [once=on|off] [count=N] [iotype=T] [immediately=on|off]
        blkdebug inject-error rule.  iotype defaults to the event's own
        (read_aio: read, write_aio: write, flush_*: flush): an activated
        blkdebug rule applies to every later request its iotype matches, until
        the next event with rules.  count=N = N once-rules.  A rule that can
        fail flushes is always once-only (without once/count: count=100):
        blockdev-reopen flushes p<N> through the old filters first, so a
        persistent flush fault could never be taken out again ("Error flushing
        drive: Input/output error"); the agent retries the reopen while
        once-rules are left to use up.  A flush has no sector, so sector= on a
        flush rule is refused (blkdebug would never apply it).  A rebuild (a
        later inject/throttle on the path) re-arms once/count rules.
  clear <path>                        resume its breaks, remove every filter node (idempotent)
  break <path> <event> <tag>          the next request raising <event> on the path hangs
                                      (tags are unique across paths)
  resume <path> <tag>                 disarm <tag> and release every request held by it
  resume-all <path>                   the same for every tag on the path
  throttle <path> <iops>|off          a throttle filter (iops-total) in the path
  unplug <path>                       device_del hd<path>, waits for DEVICE_DELETED (idempotent)
  plug <path> [prop=value...]         device_add with the properties read at start, plus
                                      these for this plug only (e.g. dpofua=on) (idempotent)
  state                               chains, rules, breaks ("T(armed=1)", "T(held=1)"),
                                      plugged state (one line)
  help

Hazard handled here: while a request is held by a blkdebug breakpoint, any
drain that reaches it (blockdev-reopen of EITHER path - they share lun0 -,
device_del of that path, a qemu-io HMP command on a node name, whose temporary
BlockBackend drains when released) waits for it forever inside QEMU's main
loop, and QEMU (QMP included) is dead.  So the first break puts a blkdebug
node on every path, and while any break tag is outstanding, graph changes and
unplug are refused with ERR; break/resume go through 'qemu-io -d hd<N>' (the
device's own BlockBackend).  Whether a break has caught a request only
blkdebug itself says, on QEMU's stdout ("blkdebug: Suspended request 'T'" /
"Resuming request 'T'"); in run-guest.sh that is the guest console, and the
agent follows console.log (--console) for them.  (blkdebug also prints
"Could not remove breakpoint T" there when the tag's rules had all fired.)
"""
import argparse
import collections
import errno as errno_mod
import json
import os
import re
import select
import socket
import sys
import threading
import time

# iotype a rule gets when none is given: the I/O its event announces.  Without
# one, blkdebug applies an activated rule to every later request of any type
# (a read_aio rule would fail writes and flushes too, until another event
# with rules comes along).
AUTO_IOTYPE = {"read_aio": "read", "read_backing_aio": "read", "read_compressed": "read",
               "write_aio": "write", "write_compressed": "write", "pwritev": "write",
               "pwritev_done": "write", "pwritev_zero": "write-zeroes", "cor_write": "write",
               "flush_to_os": "flush", "flush_to_disk": "flush"}
MAX_COUNT = 1000
# a flush rule without once/count: this many once-rules (see c_inject)
FLUSH_COUNT = 100
ERRNO_NAMES = {"EIO": 5, "ENODATA": 61, "EREMOTEIO": 121, "EBADE": 52, "ENOMEDIUM": 123,
               "ENOSPC": 28, "EINVAL": 22}
TAG_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


def now():
    return time.monotonic()


class Log:
    def __init__(self, stream):
        self.stream = stream
        self.lock = threading.Lock()

    def __call__(self, msg):
        t = time.time()
        line = "%s.%03d %s\n" % (time.strftime("%H:%M:%S", time.localtime(t)), int(t * 1000) % 1000, msg)
        with self.lock:
            try:
                self.stream.write(line)
                self.stream.flush()
            except (OSError, ValueError):
                pass


class QMPError(Exception):
    pass


class QMPTimeout(QMPError):
    pass


class QMP:
    """QMP client: one reader thread parses everything QEMU sends; replies are
    matched by id, events are kept in a bounded buffer (never block)."""

    def __init__(self, path, log):
        self.path, self.log = path, log
        self.sock = None
        self.cond = threading.Condition()
        self.replies = {}
        self.events = collections.deque(maxlen=2000)   # (seq, event dict)
        self.event_seq = 0
        self.closed = False
        self.next_id = 0
        self.greeting = None
        self.version = "?"

    def connect(self, wait):
        self.sock = connect_unix(self.path, wait, self.log)
        self.sock.settimeout(None)
        self.rfile = self.sock.makefile("rb")
        line = self.rfile.readline()
        if not line:
            raise QMPError("QMP closed before the greeting")
        self.greeting = json.loads(line)
        v = self.greeting.get("QMP", {}).get("version", {}).get("qemu", {})
        self.version = "%s.%s.%s" % (v.get("major"), v.get("minor"), v.get("micro"))
        threading.Thread(target=self._reader, name="qmp-reader", daemon=True).start()
        self.cmd("qmp_capabilities", timeout=10)

    def _reader(self):
        try:
            for line in self.rfile:
                line = line.strip()
                if not line:
                    continue
                try:
                    msg = json.loads(line)
                except ValueError:
                    self.log("QMP: unparsable line: %r" % line[:200])
                    continue
                with self.cond:
                    if "event" in msg:
                        self.event_seq += 1
                        self.events.append((self.event_seq, msg))
                        self.log("QMP event %s %s" % (msg["event"], json.dumps(msg.get("data", {}))[:200]))
                    elif "id" in msg:
                        self.replies[msg["id"]] = msg
                        # forget replies nobody waits for any more (timed out)
                        if len(self.replies) > 200:
                            for k in sorted(self.replies)[:100]:
                                del self.replies[k]
                    self.cond.notify_all()
        except (OSError, ValueError) as e:
            self.log("QMP reader: %s" % e)
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def cmd(self, name, args=None, timeout=10.0):
        with self.cond:
            if self.closed:
                raise QMPError("QMP connection closed (QEMU gone)")
            self.next_id += 1
            rid = self.next_id
        msg = {"execute": name, "id": rid}
        if args is not None:
            msg["arguments"] = args
        data = json.dumps(msg)
        self.log("QMP -> %s" % data[:400])
        t0 = now()
        try:
            self.sock.sendall(data.encode() + b"\n")
        except OSError as e:
            raise QMPError("QMP send failed: %s" % e)
        deadline = t0 + timeout
        with self.cond:
            while rid not in self.replies:
                left = deadline - now()
                if self.closed:
                    raise QMPError("QMP connection closed during %s" % name)
                if left <= 0:
                    self.log("QMP <- (no reply to %s in %.1f s)" % (name, timeout))
                    raise QMPTimeout("no QMP reply to %s in %.0f s (QEMU main loop stuck?)" % (name, timeout))
                self.cond.wait(left)
            rep = self.replies.pop(rid)
        dt = (now() - t0) * 1000
        if "error" in rep:
            desc = rep["error"].get("desc", str(rep["error"]))
            self.log("QMP <- error (%.1f ms): %s" % (dt, desc))
            raise QMPError(desc)
        self.log("QMP <- ok (%.1f ms) %s" % (dt, json.dumps(rep.get("return"))[:300]))
        return rep.get("return")

    def mark(self):
        with self.cond:
            return self.event_seq

    def wait_event(self, pred, since, timeout):
        deadline = now() + timeout
        with self.cond:
            while True:
                for seq, ev in self.events:
                    if seq > since and pred(ev):
                        return ev
                left = deadline - now()
                if left <= 0 or self.closed:
                    return None
                self.cond.wait(left)


def connect_unix(path, wait, log):
    deadline = now() + wait
    last = None
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            log("connected to %s" % path)
            return s
        except OSError as e:
            s.close()
            if str(e) != last:
                log("waiting for %s (%s)" % (path, e))
                last = str(e)
        if now() >= deadline:
            raise OSError("cannot connect to %s within %d s: %s" % (path, wait, last))
        time.sleep(0.2)


class Console:
    """Follows QEMU's stdout as written to a file (run-guest.sh: the guest
    console log) for blkdebug's own reports of held requests:
    "blkdebug: Suspended request 'T'" / "blkdebug: Resuming request 'T'".
    Nothing else tells whether a breakpoint has caught a request."""
    RX = re.compile(r"blkdebug: (Suspended|Resuming) request '([^']*)'")

    def __init__(self, path, log):
        self.path, self.log = path, log
        self.cond = threading.Condition()
        self.suspended = collections.Counter()
        self.resumed = collections.Counter()
        threading.Thread(target=self._follow, name="console", daemon=True).start()

    def _follow(self):
        f = None
        while f is None:
            try:
                f = open(self.path, "rb")
            except OSError:
                time.sleep(0.5)
        self.log("following %s for blkdebug reports" % self.path)
        buf = b""
        while True:
            data = f.read(65536)
            if not data:
                time.sleep(0.05)
                continue
            buf += data
            lines = buf.split(b"\n")
            buf = lines.pop()
            if len(buf) > 65536:
                buf = buf[-4096:]
            for line in lines:
                if b"blkdebug: " not in line:
                    continue
                for what, tag in self.RX.findall(line.decode("ascii", "replace")):
                    with self.cond:
                        (self.suspended if what == "Suspended" else self.resumed)[tag] += 1
                        self.cond.notify_all()

    def held(self, tag):
        with self.cond:
            return max(0, self.suspended[tag] - self.resumed[tag])

    def caught(self, tag):
        with self.cond:
            return self.suspended[tag]

    def wait_released(self, tag, timeout):
        end = now() + timeout
        with self.cond:
            while self.suspended[tag] > self.resumed[tag] and now() < end:
                self.cond.wait(end - now())
            return self.suspended[tag] <= self.resumed[tag]


class Fail(Exception):
    """An ERR answer."""


class Path:
    def __init__(self, idx):
        self.idx = idx
        self.raw = "p%d" % idx
        self.dev = "hd%d" % idx
        self.rules = []          # blkdebug inject-error rule dicts
        self.rule_text = []      # their human form
        self.want_dbg = False    # keep a (rule-less) blkdebug node for breakpoints
        self.iops = None
        self.nodes = []          # filter node names, top -> bottom
        self.dbg_node = None
        self.group = None        # throttle-group object id
        self.gen = 0
        self.tags = {}           # break tag -> breaks set since the last resume
        self.tag_base = {}       # tag -> requests it had caught before (console counts)
        self.plugged = True
        self.unplug_pending = False
        self.props = None        # device_add arguments


class Agent:
    def __init__(self, opts, log):
        self.o = opts
        self.log = log
        self.qmp = QMP(opts.qmp, log)
        self.paths = [Path(i) for i in range(opts.paths)]
        self.events = set()
        self.answered = collections.OrderedDict()
        self.deadline = None
        self.console = Console(opts.console, log) if opts.console else None

    # ---- time budget: every request is answered before its deadline ----------
    def budget(self, cap=10.0):
        left = self.deadline - now() if self.deadline else cap
        if left <= 0.2:
            raise Fail("request ran out of time (%.0f s budget)" % self.o.req_timeout)
        return min(cap, left - 0.1)

    def q(self, name, args=None, cap=10.0):
        try:
            return self.qmp.cmd(name, args, timeout=self.budget(cap))
        except QMPError as e:
            raise Fail("%s: %s" % (name, e))

    def hmp(self, cmdline):
        out = self.q("human-monitor-command", {"command-line": cmdline})
        return (out or "").strip()

    # ---- startup -------------------------------------------------------------------
    def setup(self):
        self.qmp.connect(self.o.wait)
        self.log("QMP: QEMU %s" % self.qmp.version)
        self.events = self.blkdebug_events()
        self.log("blkdebug events: %d known" % len(self.events))
        names = {n["node-name"] for n in self.q("query-named-block-nodes", {"flat": True})}
        for p in self.paths:
            if p.raw not in names:
                self.log("WARNING: node %s not found; path %d unusable" % (p.raw, p.idx))
            try:
                p.props = self.device_props(p)
                self.log("path %d: device %s %s" % (p.idx, p.dev, json.dumps(p.props)))
            except Fail as e:
                p.plugged = False
                self.log("WARNING: path %d: cannot read device %s: %s" % (p.idx, p.dev, e))
        if self.o.lun not in names:
            self.log("WARNING: node %s not found" % self.o.lun)

    def blkdebug_events(self):
        """The BlkdebugEvent enum of this QEMU, from its QMP schema."""
        try:
            schema = self.q("query-qmp-schema", cap=20)
        except Fail as e:
            self.log("query-qmp-schema failed (%s); not validating event names" % e)
            return set()
        for t in schema:
            if t.get("meta-type") != "enum":
                continue
            vals = set(t.get("values") or [m["name"] for m in t.get("members", [])])
            if {"read_aio", "write_aio", "flush_to_disk", "l1_update"} <= vals:
                return vals
        return set()

    def device_props(self, p):
        qp = "/machine/peripheral/%s" % p.dev
        props = {"driver": "scsi-hd", "id": p.dev}
        bus = self.q("qom-get", {"path": qp, "property": "parent_bus"})
        props["bus"] = bus.rstrip("/").rsplit("/", 1)[-1]
        for k in ("drive", "share-rw", "serial", "wwn", "rerror", "werror", "channel", "scsi-id", "lun"):
            props[k] = self.q("qom-get", {"path": qp, "property": k})
        return props

    # ---- block graph ----------------------------------------------------------------
    def graph(self):
        """{node: (drv, {child-role: child-node})} for all named nodes"""
        drv = {n["node-name"]: n["drv"] for n in self.q("query-named-block-nodes", {"flat": True})}
        g = self.q("x-debug-query-block-graph")
        byid = {n["id"]: n for n in g["nodes"]}
        kids = collections.defaultdict(dict)
        for e in g["edges"]:
            par, ch = byid[e["parent"]], byid[e["child"]]
            kids[par["name"]][e["name"]] = ch["name"]
        return {n: (drv[n], kids.get(n, {})) for n in drv}, byid, g["edges"]

    def chain(self, p, graph=None):
        graph = graph or self.graph()[0]
        out, n = [], p.raw
        while n in graph and len(out) < 10:
            out.append("%s(%s)" % (n, graph[n][0]))
            kids = graph[n][1]
            n = kids.get("file") or kids.get("image")
            if not n:
                break
        return out

    def outstanding(self):
        return {p.idx: sorted(p.tags) for p in self.paths if p.tags}

    def check_no_breaks(self, what):
        o = self.outstanding()
        if o:
            desc = "; ".join("path %d tags %s" % (i, ",".join(t)) for i, t in o.items())
            raise Fail("refusing %s while breakpoints are outstanding (%s): a held request would "
                       "make QEMU's drain hang forever; resume them first" % (what, desc))

    def rebuild(self, p, rules, rule_text, want_dbg, iops):
        """Give path p exactly these filters, as new nodes; then drop the old ones."""
        self.check_no_breaks("a block graph change on path %d" % p.idx)
        t0 = now()
        p.gen += 1          # new names even if a failed attempt left nodes behind
        gen = p.gen
        new_nodes, new_group, below, dbg = [], None, self.o.lun, None
        flush_fails = 0
        try:
            if iops:
                new_group = "hc%dg%d" % (p.idx, gen)
                self.q("object-add", {"qom-type": "throttle-group", "id": new_group,
                                      "limits": {"iops-total": iops}})
                n = "hc%dt%d" % (p.idx, gen)
                self.q("blockdev-add", {"driver": "throttle", "node-name": n,
                                        "throttle-group": new_group, "file": below})
                new_nodes.insert(0, n)
                below = n
            if rules or want_dbg:
                n = "hc%dd%d" % (p.idx, gen)
                args = {"driver": "blkdebug", "node-name": n, "image": below}
                if rules:
                    args["inject-error"] = [{k: v for k, v in r.items() if k != "_count"}
                                            for r in rules for _ in range(r.get("_count", 1))]
                self.q("blockdev-add", args)
                new_nodes.insert(0, n)
                below = dbg = n
            # blockdev-reopen flushes p<N> first, through the current filters.
            # An armed flush rule fails that flush ("Error flushing drive:
            # ...") and is used up doing so (flush rules are always once-only):
            # try again, as often as the old node has flush errors left.
            tries = 1 + sum(r.get("_count", 1) for r in p.rules if flush_rule(r))
            for attempt in range(tries):
                try:
                    self.q("blockdev-reopen", {"options": [{"driver": "raw", "node-name": p.raw,
                                                            "file": below}]}, cap=20)
                    break
                except Fail as e:
                    if "Error flushing drive" not in str(e) or attempt == tries - 1:
                        raise
                    flush_fails = attempt + 1
        except Fail:
            for n in new_nodes:
                self.try_q("blockdev-del", {"node-name": n})
            if new_group:
                self.try_q("object-del", {"id": new_group})
            raise
        t_reopen = now() - t0
        warn_flush = ("; the reopen's own flush failed %d time(s) first (that used up flush rules "
                      "of the old node)" % flush_fails) if flush_fails else ""
        warn = []
        for n in p.nodes:
            if not self.try_q("blockdev-del", {"node-name": n}):
                warn.append("could not delete old node %s" % n)
        if p.group and not self.try_q("object-del", {"id": p.group}):
            warn.append("could not delete old throttle group %s" % p.group)
        p.nodes, p.group, p.dbg_node = new_nodes, new_group, dbg
        p.rules, p.rule_text, p.want_dbg, p.iops = rules, rule_text, want_dbg, iops
        return "path %d: %s [%.0f ms]%s%s" % (p.idx, " -> ".join([p.raw] + new_nodes + [self.o.lun]),
                                             t_reopen * 1000, warn_flush,
                                             ("; " + "; ".join(warn)) if warn else "")

    def try_q(self, name, args):
        try:
            self.q(name, args)
            return True
        except Fail as e:
            self.log("(ignored) %s" % e)
            return False

    # ---- argument parsing -------------------------------------------------------------
    def path_arg(self, args, i=0):
        if len(args) <= i:
            raise Fail("missing path argument")
        try:
            n = int(args[i])
        except ValueError:
            n = -1
        if not 0 <= n < len(self.paths):
            raise Fail("bad path '%s' (0..%d)" % (args[i], len(self.paths) - 1))
        return self.paths[n]

    def event_arg(self, ev):
        if self.events and ev not in self.events:
            raise Fail("unknown blkdebug event '%s' (e.g. read_aio, write_aio, flush_to_disk)" % ev)
        return ev

    @staticmethod
    def errno_arg(s):
        if s.isdigit():
            return int(s)
        v = ERRNO_NAMES.get(s.upper()) or getattr(errno_mod, s.upper(), None)
        if not isinstance(v, int):
            raise Fail("unknown errno '%s'" % s)
        return v

    @staticmethod
    def bool_arg(k, v):
        if v.lower() in ("on", "true", "yes", "1"):
            return True
        if v.lower() in ("off", "false", "no", "0"):
            return False
        raise Fail("%s= wants on|off, not '%s'" % (k, v))

    # ---- commands ------------------------------------------------------------------------
    def c_ping(self, args):
        return "pong (QEMU %s)" % self.qmp.version

    def c_help(self, args):
        return ("ping | inject P EVENT ERRNO [sector=N once=on|off count=N iotype=T immediately=on|off] | "
                "clear P | break P EVENT TAG | resume P TAG | resume-all P | throttle P IOPS|off | "
                "unplug P | plug P [prop=value...] | state")

    def c_inject(self, args):
        p = self.path_arg(args)
        if len(args) < 3:
            raise Fail("usage: inject <path> <event> <errno> [sector=N] [once=on|off] [count=N] [iotype=T]")
        rule = {"event": self.event_arg(args[1]), "errno": self.errno_arg(args[2])}
        count = None
        for kv in args[3:]:
            if "=" not in kv:
                raise Fail("bad option '%s' (key=value)" % kv)
            k, v = kv.split("=", 1)
            if k in ("sector", "count"):
                if not v.isdigit():
                    raise Fail("%s= wants a number" % k)
                if k == "sector":
                    rule[k] = int(v)
                else:
                    count = int(v)
                    if not 1 <= count <= MAX_COUNT:
                        raise Fail("count= wants 1..%d" % MAX_COUNT)
            elif k in ("once", "immediately"):
                rule[k] = self.bool_arg(k, v)
            elif k == "iotype":
                rule[k] = v
            else:
                raise Fail("unknown option '%s' (sector once count iotype immediately)" % k)
        if "iotype" not in rule and rule["event"] in AUTO_IOTYPE:
            rule["iotype"] = AUTO_IOTYPE[rule["event"]]
        if count is not None:
            if rule.get("once") is False:
                raise Fail("count= and once=off contradict each other")
            rule["once"], rule["_count"] = True, count
        note = ""
        if flush_rule(rule):
            if "sector" in rule:
                raise Fail("a flush has no sector: blkdebug never applies a rule with sector= to a flush")
            if not rule.get("once"):
                # A persistent flush fault could never be taken out again:
                # blockdev-reopen flushes through it first ("Error flushing
                # drive").  Once-rules are used up by retrying the reopen.
                rule["once"], rule["_count"] = True, FLUSH_COUNT
                note = " (a flush rule is once-only: this one fails the next %d flushes)" % FLUSH_COUNT
        text = " ".join(args[1:])
        if "iotype=" not in text and "iotype" in rule:
            text += " (iotype=%s)" % rule["iotype"]
        text += note
        return self.rebuild(p, p.rules + [rule], p.rule_text + [text], p.want_dbg, p.iops) + \
            "; %d rule(s): %s" % (len(p.rules), " | ".join(p.rule_text))

    def c_clear(self, args):
        p = self.path_arg(args)
        pre = ""
        if p.tags:
            pre = self.c_resume_all(args) + "; "
        if not p.nodes and not p.rules and not p.iops and not p.want_dbg:
            return pre + "path %d: nothing to clear" % p.idx
        return pre + self.rebuild(p, [], [], False, None)

    def c_throttle(self, args):
        p = self.path_arg(args)
        if len(args) < 2:
            raise Fail("usage: throttle <path> <iops>|off")
        if args[1] in ("off", "0"):
            iops = None
        elif args[1].isdigit():
            iops = int(args[1])
        else:
            raise Fail("throttle wants an iops number or off")
        return self.rebuild(p, p.rules, p.rule_text, p.want_dbg, iops)

    def need_plugged(self, p, what):
        if not p.plugged:
            raise Fail("path %d is unplugged; %s needs its device %s" % (p.idx, what, p.dev))

    def c_break(self, args):
        p = self.path_arg(args)
        if len(args) < 3:
            raise Fail("usage: break <path> <event> <tag>")
        ev, tag = self.event_arg(args[1]), args[2]
        if not TAG_RE.match(tag):
            raise Fail("bad tag '%s' ([A-Za-z0-9_.-])" % tag)
        self.need_plugged(p, "break")
        for q in self.paths:
            if q is not p and tag in q.tags:
                raise Fail("tag %s is in use on path %d" % (tag, q.idx))
        pre = []
        # Every path gets a blkdebug node now: once a request is held, no path
        # may be reopened any more (it would hang QEMU), so a later break on the
        # other path must find its node already there.
        for q in self.paths:
            if q.dbg_node is None:
                pre.append(self.rebuild(q, q.rules, q.rule_text, True, q.iops))
        if tag not in p.tags and self.console:
            p.tag_base[tag] = self.console.caught(tag)
        self.hmp('qemu-io -d %s "break %s %s"' % (p.dev, ev, tag))
        p.tags[tag] = p.tags.get(tag, 0) + 1
        return "; ".join(pre + ["path %d: break %s %s armed on %s" % (p.idx, ev, tag, p.dbg_node)])

    def c_resume(self, args):
        p = self.path_arg(args)
        if len(args) < 2:
            raise Fail("usage: resume <path> <tag>")
        tag = args[1]
        if not TAG_RE.match(tag):
            raise Fail("bad tag '%s'" % tag)
        self.need_plugged(p, "resume")
        if p.dbg_node is None:
            raise Fail("path %d has no blkdebug node" % p.idx)
        # blkdebug remove_break drops the tag's armed rules and resumes every
        # request suspended with it (plain 'resume' releases one and keeps the rule)
        return "path %d: %s" % (p.idx, self.release(p, tag))

    def release(self, p, tag):
        """disarm tag on p and release every request it holds"""
        self.hmp('qemu-io -d %s "remove_break %s"' % (p.dev, tag))
        p.tags.pop(tag, None)
        p.tag_base.pop(tag, None)
        if not self.console:
            return "%s disarmed, requests released" % tag
        # resuming is synchronous in QEMU; its report reaches the log at once
        if not self.console.wait_released(tag, min(2.0, self.budget(2.0))):
            return "%s disarmed; WARNING: %d request(s) still reported held" % (tag, self.console.held(tag))
        return "%s disarmed, released" % tag

    def c_resume_all(self, args):
        p = self.path_arg(args)
        if not p.tags:
            return "path %d: no breakpoints" % p.idx
        self.need_plugged(p, "resume-all")
        done = [self.release(p, tag) for tag in sorted(p.tags)]
        return "path %d: %s" % (p.idx, "; ".join(done))

    def c_unplug(self, args):
        p = self.path_arg(args)
        if not p.plugged and not p.unplug_pending:
            return "path %d: already unplugged" % p.idx
        if p.tags:
            raise Fail("path %d has outstanding breakpoints (%s); resume them first (device_del "
                       "would drain a held request forever)" % (p.idx, ",".join(sorted(p.tags))))
        t0 = now()
        if not p.unplug_pending:
            mark = self.qmp.mark()
            self.q("device_del", {"id": p.dev})
            p.unplug_pending, p.unplug_mark = True, mark
        wait = min(self.o.unplug_timeout, self.budget(self.o.unplug_timeout))
        ev = self.qmp.wait_event(lambda e: e["event"] == "DEVICE_DELETED" and
                                 e.get("data", {}).get("device") == p.dev, p.unplug_mark, wait)
        if ev is None:
            raise Fail("device_del %s: no DEVICE_DELETED within %.0f s (still pending; unplug again "
                       "to keep waiting)" % (p.dev, wait))
        p.unplug_pending, p.plugged = False, False
        return "path %d: %s deleted [%.0f ms]" % (p.idx, p.dev, (now() - t0) * 1000)

    @staticmethod
    def prop_value(v):
        if v.lower() in ("on", "true", "yes"):
            return True
        if v.lower() in ("off", "false", "no"):
            return False
        if re.match(r"^(0x[0-9a-fA-F]+|[0-9]+)$", v):
            return int(v, 0)
        return v

    def c_plug(self, args):
        p = self.path_arg(args)
        extra = {}
        for kv in args[1:]:
            k, sep, v = kv.partition("=")
            if not sep or not k or k in ("id", "driver", "bus", "drive"):
                raise Fail("bad device property '%s' (key=value; not id/driver/bus/drive)" % kv)
            extra[k] = self.prop_value(v)
        if p.unplug_pending:
            try:
                self.c_unplug(args)
            except Fail as e:
                raise Fail("plug: earlier unplug not finished: %s" % e)
        if p.plugged:
            if extra:
                raise Fail("path %d is plugged; unplug it first to change its properties" % p.idx)
            return "path %d: already plugged" % p.idx
        if not p.props:
            raise Fail("path %d: device properties unknown" % p.idx)
        names = {n["node-name"] for n in self.q("query-named-block-nodes", {"flat": True})}
        if p.raw not in names:
            top = p.nodes[0] if p.nodes else self.o.lun
            self.q("blockdev-add", {"driver": "raw", "node-name": p.raw, "file": top})
        t0 = now()
        self.q("device_add", dict(p.props, **extra))
        p.plugged = True
        return "path %d: %s added on %s%s [%.0f ms]" % (
            p.idx, p.dev, p.props["bus"], "".join(" %s=%s" % kv for kv in sorted(extra.items())),
            (now() - t0) * 1000)

    def c_state(self, args):
        graph = self.graph()[0]
        out = []
        for p in self.paths:
            s = "path %d: %s, chain %s" % (p.idx, "plugged" if p.plugged else
                                           ("unplug pending" if p.unplug_pending else "UNPLUGGED"),
                                           ">".join(self.chain(p, graph)))
            if p.rules:
                s += ", rules [%s]" % " | ".join(p.rule_text)
            if p.iops:
                s += ", throttle %d iops" % p.iops
            if p.tags:
                s += ", breaks %s" % " ".join(self.tag_state(p, t) for t in sorted(p.tags))
            out.append(s)
        return "; ".join(out)

    def tag_state(self, p, tag):
        if not self.console:
            return "%s(armed or holding: unknown)" % tag
        held = self.console.held(tag)
        armed = p.tags[tag] - (self.console.caught(tag) - p.tag_base.get(tag, 0))
        st = []
        if held:
            st.append("held=%d" % held)
        if armed > 0:
            st.append("armed=%d" % armed)
        return "%s(%s)" % (tag, ",".join(st) or "done")

    COMMANDS = {"ping": "c_ping", "help": "c_help", "inject": "c_inject", "clear": "c_clear",
                "break": "c_break", "resume": "c_resume", "resume-all": "c_resume_all",
                "throttle": "c_throttle", "unplug": "c_unplug", "plug": "c_plug", "state": "c_state"}

    def handle(self, rid, words):
        if not words:
            return "ERR empty request"
        fn = self.COMMANDS.get(words[0])
        if not fn:
            return "ERR unknown command '%s' (try help)" % words[0]
        self.deadline = now() + self.o.req_timeout
        try:
            text = getattr(self, fn)(words[1:])
            return "OK " + one_line(text)
        except Fail as e:
            return "ERR " + one_line(str(e))
        except Exception as e:  # a bug here must not kill the agent
            self.log("internal error: %r" % e)
            return "ERR internal agent error: %s" % one_line(repr(e))
        finally:
            self.deadline = None

    # ---- the ctl line ------------------------------------------------------------------------
    def serve(self):
        ctl = connect_unix(self.o.ctl, self.o.wait, self.log)
        ctl.setblocking(False)
        buf = b""
        self.log("serving requests on %s" % self.o.ctl)
        while True:
            if self.qmp.closed:
                self.log("QMP closed: QEMU has exited; agent stops")
                return 0
            r, _, _ = select.select([ctl], [], [], 0.5)
            if not r:
                continue
            try:
                data = ctl.recv(4096)
            except BlockingIOError:
                continue
            except OSError as e:
                self.log("ctl recv: %s" % e)
                return 0
            if not data:
                self.log("ctl socket closed: QEMU has exited; agent stops")
                return 0
            buf += data
            if len(buf) > 65536:         # no newline ever: junk
                buf = buf[-4096:]
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                self.line(ctl, raw)

    def line(self, ctl, raw):
        text = raw.decode("ascii", "replace").replace("\r", "").replace("\0", "")
        i = text.rfind("REQ ")
        if i < 0:
            if text.strip():
                self.log("ignored ctl junk: %r" % text[:120])
            return
        words = text[i + 4:].split()
        if not words or not ID_RE.match(words[0]):
            self.log("ignored malformed request: %r" % text[:120])
            return
        rid, words = words[0], words[1:]
        if rid in self.answered:
            reply = self.answered[rid]
            self.log("REQ %s repeated; answering again: %s" % (rid, reply))
        else:
            self.log("REQ %s %s" % (rid, " ".join(words)))
            t0 = now()
            reply = self.handle(rid, words)
            self.log("ACK %s %s  (%.0f ms)" % (rid, reply, (now() - t0) * 1000))
            self.answered[rid] = reply
            while len(self.answered) > 256:
                self.answered.popitem(last=False)
        msg = ("ACK %s %s\n" % (rid, reply)).encode("ascii", "replace")
        ctl.setblocking(True)
        ctl.settimeout(5)
        try:
            ctl.sendall(msg)
        except OSError as e:
            self.log("ctl send failed (guest not reading?): %s" % e)
        finally:
            ctl.setblocking(False)


def flush_rule(r):
    """does this inject-error rule fail flushes? (no iotype: every type)"""
    return r.get("iotype", "flush") == "flush"


def one_line(s):
    return " ".join(str(s).split())


def main():
    ap = argparse.ArgumentParser(description="guest->host fault injection agent (QMP)")
    ap.add_argument("--qmp", required=True, help="QMP unix socket of QEMU")
    ap.add_argument("--ctl", required=True, help="unix socket behind the guest's ttyS1")
    ap.add_argument("--lun", default="lun0", help="the shared file node (default lun0)")
    ap.add_argument("--paths", type=int, default=2)
    ap.add_argument("--wait", type=float, default=120, help="seconds to wait for the sockets")
    ap.add_argument("--req-timeout", type=float, default=25,
                    help="every request is answered within this (default 25 s)")
    ap.add_argument("--unplug-timeout", type=float, default=20)
    ap.add_argument("--log", help="log file (default stderr)")
    ap.add_argument("--console", help="file receiving QEMU's stdout (run-guest.sh: console.log), "
                    "followed for blkdebug's held-request reports")
    o = ap.parse_args()
    log = Log(open(o.log, "a") if o.log else sys.stderr)
    log("hostctl %d starting: qmp=%s ctl=%s" % (os.getpid(), o.qmp, o.ctl))
    agent = Agent(o, log)
    try:
        agent.setup()
        return agent.serve()
    except (OSError, QMPError, Fail) as e:
        log("hostctl: fatal: %s" % e)
        return 1
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
