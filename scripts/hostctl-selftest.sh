#!/bin/bash
# Host-only self-test of scripts/hostctl.py and of the two-path LUN arguments
# of images/run-guest.sh (qemu_lun_args in scripts/lib.sh).  No guest kernel:
# QEMU runs paused (-S, later running SeaBIOS only), I/O on one path is issued
# through a second QMP monitor ("qemu-io -d hdN", output on QEMU's stdout), and
# the guest's ttyS1 is stood in for by a pty bridged to the agent's ctl socket,
# so both the raw protocol and the guest helper (hostctl in
# tests/lib/common.sh) are exercised.
#   scripts/hostctl-selftest.sh        exit 0 = all checks passed
#   KEEP=1 scripts/hostctl-selftest.sh keep the scratch directory (logs)
. "$(dirname "$0")/lib.sh"
need_pkgs qemu-system-x86 python3
D=$(mktemp -d /tmp/hostctl-selftest.XXXXXX)
truncate -s 64M "$D/lun.img"
qemu_lun_args "$D"
set +e
/usr/bin/python3 - "$D" "$TOP" "${LUN_ARGS[@]}" <<'PYEOF'
import json, os, pty, re, select, signal, socket, subprocess, sys, threading, time, tty, termios

D, TOP, LUN_ARGS = sys.argv[1], sys.argv[2], sys.argv[3:]
FAILS = []
T0 = time.monotonic()


def check(cond, what, detail=""):
    print("%-4s %s%s" % ("ok" if cond else "FAIL", what,
                         ("  [%s]" % detail) if detail and (not cond or os.environ.get("V")) else ""),
          flush=True)
    if not cond:
        FAILS.append(what)
    return cond


def wait_for(pred, timeout, step=0.05):
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > end:
            return v
        time.sleep(step)


class Mon:
    """our own QMP monitor (the agent holds the other one)"""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        wait_for(lambda: os.path.exists(path), 10)
        self.s.connect(path)
        self.s.settimeout(15)
        self.f = self.s.makefile("rw")
        json.loads(self.f.readline())
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.f.flush()
        while True:
            m = json.loads(self.f.readline())
            if "event" in m:
                continue
            if "error" in m:
                return {"error": m["error"]["desc"]}
            return m["return"]

    def hmp(self, line):
        return self.cmd("human-monitor-command", **{"command-line": line})


def start_qemu(extra_front, log):
    for s in ("qmp.sock", "ctl.sock", "qmp2.sock"):
        try:
            os.unlink(os.path.join(D, s))
        except FileNotFoundError:
            pass
    args = ["qemu-system-x86_64", "-accel", "tcg", "-display", "none", "-monitor", "none"] + extra_front + \
        LUN_ARGS + ["-qmp", "unix:%s/qmp2.sock,server=on,wait=off" % D]
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=open(log, "w"), stderr=subprocess.STDOUT)
    ok = wait_for(lambda: all(os.path.exists(os.path.join(D, s)) for s in ("qmp.sock", "ctl.sock", "qmp2.sock"))
                  or p.poll() is not None, 15)
    if p.poll() is not None:
        print(open(log).read())
    return p


def chain(mon, top):
    drv = {n["node-name"]: n["drv"] for n in mon.cmd("query-named-block-nodes", flat=True)}
    g = mon.cmd("x-debug-query-block-graph")
    byid = {n["id"]: n["name"] for n in g["nodes"]}
    kids = {}
    for e in g["edges"]:
        kids.setdefault(byid[e["parent"]], {})[e["name"]] = byid[e["child"]]
    out, n = [], top
    while n and n in drv:
        out.append(drv[n])
        n = kids.get(n, {}).get("file") or kids.get(n, {}).get("image")
    return out


def devices(mon):
    return sorted(b["qdev"] for b in mon.cmd("query-block") if b.get("qdev"))


# ---------------------------------------------------------------------------------------------
# 1. the exact front of run-guest.sh (default pc machine, -serial on stdio) accepts the LUN args
print("== QEMU 7.2 accepts the block graph and the control serial port", flush=True)
q = start_qemu(["-S", "-no-reboot", "-serial", "file:%s/console.txt" % D, "-m", "256"], D + "/qemu-pc.out")
m = Mon(D + "/qmp2.sock")
blk = {b["qdev"]: b["inserted"]["node-name"] for b in m.cmd("query-block") if b.get("qdev") and b.get("inserted")}
check(blk.get("hd0") == "p0" and blk.get("hd1") == "p1", "pc machine: query-block hd0->p0, hd1->p1", str(blk))
check(chain(m, "p0") == ["raw", "file"] and chain(m, "p1") == ["raw", "file"], "p0 and p1 are raw over lun0",
      "%s %s" % (chain(m, "p0"), chain(m, "p1")))
io = m.cmd("qom-get", path="/machine/peripheral/ctlser", property="iobase")
irq = m.cmd("qom-get", path="/machine/peripheral/ctlser", property="irq")
check(io == 0x2f8 and irq == 3, "control port is the guest's ttyS1 (0x2f8, irq 3)", "iobase %s irq %s" % (io, irq))
for k, want in (("rerror", "report"), ("werror", "report"), ("share-rw", True), ("serial", "BLKMPATHLUN0"),
                ("wwn", 0x5000c50015ea71ac)):
    v = [m.cmd("qom-get", path="/machine/peripheral/hd%d" % i, property=k) for i in (0, 1)]
    check(v == [want, want], "hd0/hd1 %s=%s" % (k, want), str(v))
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(D + "/ctl.sock")
    check(True, "QEMU listens on ctl.sock")
except OSError as e:
    check(False, "QEMU listens on ctl.sock", str(e))
s.close()
q.kill(); q.wait()

# ---------------------------------------------------------------------------------------------
print("== agent", flush=True)
q = start_qemu(["-S", "-nodefaults", "-machine", "q35", "-serial", "null"], D + "/qemu.out")
m = Mon(D + "/qmp2.sock")
qout = open(D + "/qemu.out")
qbuf = [""]


def qemu_out(pattern, timeout=5):
    """wait for a new line of QEMU's stdout matching pattern; return it (consumed)"""
    rx = re.compile(pattern)
    end = time.monotonic() + timeout
    while True:
        qbuf[0] += qout.read()
        lines = qbuf[0].split("\n")
        for i, l in enumerate(lines[:-1]):
            if rx.search(l):
                qbuf[0] = "\n".join(lines[i + 1:])
                return l
        if time.monotonic() > end:
            return None
        time.sleep(0.05)


def qemu_drain():
    time.sleep(0.2)
    qbuf[0] += qout.read()
    qbuf[0] = ""


def io(dev, cmd, expect, what, timeout=5):
    qemu_drain()
    m.hmp('qemu-io -d %s "%s"' % (dev, cmd))
    l = qemu_out(r"^(read|wrote|flush|blkdebug|.*failed)", timeout)
    return check(l is not None and re.search(expect, l) is not None, what, repr(l))


# the guest's ttyS1: a pty; the agent's ctl socket is bridged to the pty master
master, slave = pty.openpty()
tty.setraw(slave)
attr = termios.tcgetattr(slave)
attr[3] &= ~termios.ECHO
termios.tcsetattr(slave, termios.TCSANOW, attr)
slave_name = os.ttyname(slave)
fake = socket.socket(socket.AF_UNIX)
fake.bind(D + "/agentctl.sock")
fake.listen(1)
bridge_on = threading.Event()
bridge_on.set()


def bridge():
    c, _ = fake.accept()
    while True:
        r, _, _ = select.select([c, master] if bridge_on.is_set() else [], [], [], 0.1)
        if c in r:
            d = c.recv(4096)
            if not d:
                return
            os.write(master, d)
        if master in r:
            c.sendall(os.read(master, 4096))


threading.Thread(target=bridge, daemon=True).start()
agent = subprocess.Popen(["/usr/bin/python3", TOP + "/scripts/hostctl.py", "--qmp", D + "/qmp.sock",
                          "--ctl", D + "/agentctl.sock", "--log", D + "/hostctl.log", "--wait", "20",
                          "--console", D + "/qemu.out"],
                         stdin=subprocess.DEVNULL, stdout=open(D + "/hostctl.stderr", "w"), stderr=subprocess.STDOUT)
rbuf = [b""]
SEQ = [0]


def send_raw(b):
    os.write(slave, b)


def read_ack(rid, timeout):
    end = time.monotonic() + timeout
    while True:
        while b"\n" in rbuf[0]:
            l, rbuf[0] = rbuf[0].split(b"\n", 1)
            mm = re.search(r"ACK (\S+) (OK|ERR) ?(.*)$", l.decode(errors="replace").replace("\r", ""))
            if mm and mm.group(1) == rid:
                return mm.group(2) == "OK", mm.group(3)
        left = end - time.monotonic()
        if left <= 0:
            return None, "timeout"
        r, _, _ = select.select([slave], [], [], left)
        if r:
            rbuf[0] += os.read(slave, 4096)


def req(cmd, timeout=35, rid=None):
    SEQ[0] += 1
    rid = rid or "t%d" % SEQ[0]
    t = time.monotonic()
    send_raw(("REQ %s %s\n" % (rid, cmd)).encode())
    ok, text = read_ack(rid, timeout)
    if os.environ.get("V"):
        print("     %s -> %s %s (%.0f ms)" % (cmd, {True: "OK", False: "ERR", None: "?"}[ok], text,
                                               (time.monotonic() - t) * 1000))
    return ok, text


def expect_ok(cmd, what=None, match=None):
    ok, text = req(cmd)
    check(ok is True and (match is None or re.search(match, text)), what or cmd, text)
    return text


def expect_err(cmd, match, what=None):
    ok, text = req(cmd)
    check(ok is False and re.search(match, text), what or ("%s -> ERR" % cmd), text)
    return text


try:
    ok, text = req("ping", timeout=30)
    check(ok is True and "pong" in text, "ping", text)

    # protocol robustness
    send_raw(b"garbage without newline ")
    ok, text = req("ping")
    check(ok is True, "a partial junk line before a REQ is ignored", text)
    send_raw(b"\r\nACK t1 OK echoed reply\r\n\r\nREQ\r\nREQ  \r\n")
    SEQ[0] += 1
    send_raw(b"REQ cr%d ping\r\n" % SEQ[0])
    ok, text = read_ack("cr%d" % SEQ[0], 10)
    check(ok is True, "CRLF line endings, echoed ACKs and empty REQs are tolerated", text)
    ok1, t1 = req("state", rid="same-id")
    ok2, t2 = req("inject 0 read_aio EIO", rid="same-id")
    check(ok1 and ok2 and t1 == t2, "a repeated request id is answered from the cache, not re-run", t2)
    expect_err("frobnicate", "unknown command")
    expect_err("inject 2 read_aio EIO", "bad path")
    expect_err("inject 0 no_such_event EIO", "unknown blkdebug event")
    expect_err("inject 0 read_aio EWHATEVER", "unknown errno")
    expect_err("inject 0 read_aio EIO bogus=1", "unknown option")
    t = expect_err("inject 0 read_aio EIO iotype=bogus", "does not accept value", "QEMU's error is passed back")
    check(chain(m, "p0") == ["raw", "file"], "a refused inject leaves p0 untouched", str(chain(m, "p0")))

    print("== inject / clear", flush=True)
    io("hd0", "read 0 512", r"^read 512/512", "baseline: read on hd0 works")
    t = expect_ok("inject 0 read_aio EIO", "inject 0 read_aio EIO")
    check(chain(m, "p0") == ["raw", "blkdebug", "file"] and chain(m, "p1") == ["raw", "file"],
          "blkdebug in p0's chain, not in p1's", "%s %s" % (chain(m, "p0"), chain(m, "p1")))
    io("hd0", "read 0 512", r"read failed: Input/output error", "read on hd0 fails with EIO")
    io("hd1", "read 0 512", r"^read 512/512", "read on hd1 still works")
    io("hd0", "write 0 512", r"^wrote 512/512", "write on hd0 still works (rule is read_aio only)")
    expect_ok("inject 0 write_aio ENOSPC sector=8 once=on iotype=write", "rules accumulate", r"2 rule")
    io("hd0", "read 0 512", r"read failed: Input/output error", "first rule still there")
    io("hd0", "write 0 512", r"^wrote 512/512", "write outside sector 8 works")
    io("hd0", "write 4096 512", r"write failed: No space left on device", "write at sector 8 fails with ENOSPC")
    io("hd0", "write 4096 512", r"^wrote 512/512", "once=on: the second write at sector 8 works")
    io("hd1", "write 4096 512", r"^wrote 512/512", "hd1 unaffected")
    st = expect_ok("state", "state shows the chain", r"path 0: plugged, chain p0\(raw\)>hc0d\d+\(blkdebug\)>lun0\(file\)")
    expect_ok("clear 0", "clear 0")
    check(chain(m, "p0") == ["raw", "file"], "p0 back on lun0", str(chain(m, "p0")))
    nodes = sorted(n["node-name"] for n in m.cmd("query-named-block-nodes", flat=True))
    check(nodes == ["lun0", "p0", "p1"], "no filter node left behind", str(nodes))
    io("hd0", "read 0 512", r"^read 512/512", "read on hd0 works again")
    expect_ok("clear 0", "clear is idempotent", r"nothing to clear")
    expect_ok("inject 1 read_aio ENODATA sector=0", "inject 1 read_aio ENODATA sector=0")
    check(chain(m, "p1") == ["raw", "blkdebug", "file"] and chain(m, "p0") == ["raw", "file"],
          "blkdebug in p1's chain only", "%s %s" % (chain(m, "p0"), chain(m, "p1")))
    io("hd1", "read 0 512", r"read failed: No data available", "read of sector 0 on hd1 fails with ENODATA")
    io("hd1", "read 8192 512", r"^read 512/512", "read elsewhere on hd1 works")
    io("hd0", "read 0 512", r"^read 512/512", "hd0 unaffected")
    expect_ok("clear 1")
    expect_ok("inject 1 flush_to_disk EIO", "a flush rule without once/count...", r"fails the next 100 flushes")
    io("hd1", "write 0 512", r"^wrote 512/512", "write on hd1")
    m.hmp('qemu-io -d hd1 "flush"')
    t = time.monotonic()
    expect_ok("clear 1", "...is cleared even with unflushed writes (99 reopen retries)", r"own flush failed 99 time")
    print("     (clear with 99 retries took %.2f s)" % (time.monotonic() - t))
    expect_err("inject 1 flush_to_disk EIO sector=8", r"a flush has no sector", "a flush rule with sector= is refused")
    # (qemu-io's "flush" prints nothing, failed or not; the clear's retries tell)
    expect_ok("inject 1 flush_to_disk 5 count=3", "inject 1 flush_to_disk 5 count=3 (errno as a number)")
    io("hd1", "write 0 512", r"^wrote 512/512", "write on hd1 works (flush rule only)")
    m.hmp('qemu-io -d hd1 "flush"')
    expect_ok("clear 1", "clear of a path with unflushed writes and 2 flush errors left: 2 retries",
              r"own flush failed 2 time")
    check(chain(m, "p1") == ["raw", "file"], "p1 back on lun0", str(chain(m, "p1")))
    expect_ok("inject 1 flush_to_disk ENOSPC once=on", "inject 1 flush_to_disk ENOSPC once=on")
    io("hd1", "write 0 512", r"^wrote 512/512", "write on hd1")
    expect_ok("inject 1 read_aio EIO once=on", "a rebuild with unflushed writes (uses up the old node's rule)",
              r"own flush failed 1 time")
    expect_ok("clear 1", "clear (the rebuild's reopen flushed hd1: nothing to retry)", r"p1 -> lun0 \[")
    io("hd1", "read 0 512", r"^read 512/512", "hd1 reads")

    print("== break / resume", flush=True)
    expect_ok("break 0 read_aio T1", "break 0 read_aio T1")
    check(chain(m, "p0")[:2] == ["raw", "blkdebug"] and chain(m, "p1")[:2] == ["raw", "blkdebug"],
          "break puts a blkdebug node on both paths", "%s %s" % (chain(m, "p0"), chain(m, "p1")))
    qemu_drain()
    m.hmp('qemu-io -d hd0 "aio_read 0 4096"')
    check(qemu_out(r"blkdebug: Suspended request 'T1'") is not None, "a read on hd0 is held")
    st = wait_for(lambda: (lambda r: r[1] if "held=1" in r[1] else None)(req("state")), 5, 0.2)
    check(st is not None, "state reports the held request (T1(held=1))", str(st))
    io("hd1", "read 0 512", r"^read 512/512", "hd1 keeps working while hd0 has a held request")
    expect_err("inject 1 read_aio EIO", r"refusing .*outstanding", "graph change refused while a request is held")
    expect_err("unplug 0", r"outstanding breakpoints", "unplug of the held path refused")
    expect_ok("state", "state answers while a request is held", r"breaks T1\(held=1\)")
    expect_err("break 1 read_aio T1", r"in use on path 0", "a tag is unique across paths")
    check(m.cmd("query-status").get("status") == "prelaunch", "QEMU's monitor still answers")
    qemu_drain()
    expect_ok("resume 0 T1", "resume 0 T1", r"T1 disarmed, released")
    check(qemu_out(r"^read 4096/4096 bytes at offset 0") is not None, "the held read completes")
    expect_ok("break 0 read_aio T2")
    st = expect_ok("state", "an armed break is not reported held", r"T2\(armed=1\)")
    check("held" not in st, "no 'held' in state before a request is caught", st)
    expect_ok("break 1 write_aio T3", "break on the other path (its node is already there)")
    qemu_drain()
    m.hmp('qemu-io -d hd0 "aio_read 0 4096"')
    m.hmp('qemu-io -d hd1 "aio_write 0 4096"')
    check(qemu_out(r"Suspended request 'T2'") is not None and qemu_out(r"Suspended request 'T3'") is not None,
          "requests held on both paths")
    expect_ok("resume-all 0", "resume-all 0", r"T2")
    expect_ok("resume-all 1", "resume-all 1", r"T3")
    check(qemu_out(r"^read 4096/4096") is not None, "held read released")
    qemu_drain()
    expect_ok("resume-all 1", "resume-all is idempotent", r"no breakpoints")
    expect_ok("break 0 read_aio T4", "a break that never fires...")
    expect_ok("clear 0", "...is disarmed by clear (which resumes first)", r"T4 disarmed")
    expect_ok("clear 1")
    nodes = sorted(n["node-name"] for n in m.cmd("query-named-block-nodes", flat=True))
    check(nodes == ["lun0", "p0", "p1"], "no filter node left behind", str(nodes))
    io("hd0", "read 0 512", r"^read 512/512", "hd0 reads, nothing held any more")

    print("== throttle", flush=True)
    expect_ok("throttle 0 5", "throttle 0 5")
    check(chain(m, "p0") == ["raw", "throttle", "file"], "throttle node in p0's chain", str(chain(m, "p0")))

    def timed(dev, n=6):
        qemu_drain()
        t = time.monotonic()
        for i in range(n):
            m.hmp('qemu-io -d %s "read %d 512"' % (dev, 512 * i))
        return time.monotonic() - t
    t0_, t1_ = timed("hd0"), timed("hd1")
    check(t0_ > 0.6 and t1_ < 0.5, "6 reads: hd0 slow (5 iops), hd1 fast", "%.2f s vs %.2f s" % (t0_, t1_))
    expect_ok("inject 0 read_aio EIO", "inject on top of a throttle")
    check(chain(m, "p0") == ["raw", "blkdebug", "throttle", "file"], "p0 -> blkdebug -> throttle -> lun0",
          str(chain(m, "p0")))
    expect_ok("throttle 0 off", "throttle off keeps the rule")
    check(chain(m, "p0") == ["raw", "blkdebug", "file"], "p0 -> blkdebug -> lun0", str(chain(m, "p0")))
    expect_ok("throttle 0 1000")
    expect_ok("clear 0")
    objs = [o["name"] for o in m.cmd("qom-list", path="/objects")]
    check(chain(m, "p0") == ["raw", "file"] and not [o for o in objs if o.startswith("hc")],
          "clear removes throttle node and group", str(objs))

    def unplug_plug(label):
        print("== unplug / plug (%s)" % label, flush=True)
        t = expect_ok("unplug 0", "unplug 0", r"deleted")
        check(devices(m) == ["hd1"], "hd0 gone", str(devices(m)))
        check("p0" in [n["node-name"] for n in m.cmd("query-named-block-nodes", flat=True)],
              "p0 node stays after device_del (-blockdev)")
        expect_ok("unplug 0", "unplug is idempotent", r"already unplugged")
        expect_err("break 0 read_aio X", r"unplugged", "break needs the device")
        expect_ok("inject 0 read_aio EIO", "inject on an unplugged path")
        expect_ok("plug 0", "plug 0", r"added")
        check(devices(m) == ["hd0", "hd1"], "hd0 back", str(devices(m)))
        props = {k: m.cmd("qom-get", path="/machine/peripheral/hd0", property=k)
                 for k in ("drive", "serial", "wwn", "share-rw", "rerror", "werror")}
        check(props == {"drive": "p0", "serial": "BLKMPATHLUN0", "wwn": 0x5000c50015ea71ac, "share-rw": True,
                        "rerror": "report", "werror": "report"}, "re-plugged hd0 has the same properties",
              str(props))
        io("hd0", "read 0 512", r"read failed: Input/output error", "the rule survives unplug/plug")
        expect_ok("plug 0", "plug is idempotent", r"already plugged")
        expect_err("plug 0 dpofua=on", r"unplug it first", "plug with properties on a plugged path is refused")
        expect_ok("unplug 0")
        expect_ok("plug 0 dpofua=on", "plug 0 dpofua=on (extra device property)", r"dpofua=True")
        v = m.cmd("qom-get", path="/machine/peripheral/hd0", property="dpofua")
        check(v is True, "hd0 has dpofua=on", str(v))
        expect_ok("unplug 0")
        expect_err("plug 0 nosuchprop=1", r"nosuchprop", "QEMU's device_add error is passed back")
        expect_ok("plug 0", "plug 0 (no extra property: the original ones)")
        v = m.cmd("qom-get", path="/machine/peripheral/hd0", property="dpofua")
        check(v is False, "hd0 has dpofua=off again", str(v))
        expect_ok("clear 0")
        # a raw node that went away with its device is re-created by plug
        expect_ok("unplug 1")
        r = m.cmd("blockdev-del", **{"node-name": "p1"})
        check(r == {}, "(test) delete p1 behind the agent's back", str(r))
        expect_ok("plug 1", "plug re-creates a missing raw node", r"added")
        check(devices(m) == ["hd0", "hd1"] and chain(m, "p1") == ["raw", "file"], "hd1 back on p1 -> lun0",
              "%s %s" % (devices(m), chain(m, "p1")))
        io("hd1", "read 0 512", r"^read 512/512", "hd1 reads")

    unplug_plug("VM paused")
    m.cmd("cont")
    check(m.cmd("query-status").get("status") == "running", "VM running (SeaBIOS, no kernel)")
    time.sleep(1)
    unplug_plug("VM running")

    print("== guest helper (tests/lib/common.sh) on a pty", flush=True)

    def helper(script, timeout=60):
        env = dict(os.environ, HOSTCTL_TTY=slave_name, HOSTCTL_LOCK=D + "/hostctl.lock",
                   HOSTCTL_STATE=D + "/hostctl-agent")
        t = time.monotonic()
        p = subprocess.run(["bash", "-c", ". %s/tests/lib/common.sh; lun_paths() { echo sda; echo sdb; }; "
                            "settle() { :; }; %s" % (TOP, script)], env=env, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, (p.stdout + p.stderr).strip(), time.monotonic() - t
    rc, out, _ = helper("hostctl ping")
    check(rc == 0 and "pong" in out, "hostctl ping", out)
    rc, out, _ = helper("hostctl_available")
    check(rc == 0, "hostctl_available", out)
    rc, out, _ = helper("hostctl inject 0 read_aio EIO && hostctl state")
    check(rc == 0 and "blkdebug" in out, "hostctl inject + state", out)
    rc, out, _ = helper("hostctl inject 0 read_aio ENOTANERRNO")
    check(rc == 1 and "unknown errno" in out, "hostctl returns 1 and the reason on ERR", out)
    bridge_on.clear()
    rc, out, dt = helper("hostctl -t 2 ping")
    check(rc == 1 and "timeout" in out and dt < 5, "hostctl -t 2 times out when nobody answers",
          "%s (%.1f s)" % (out, dt))
    rc, out, dt = helper("hostctl_available")
    check(rc == 1 and dt < 8, "hostctl_available fails within 5 s without an agent", "%.1f s" % dt)
    bridge_on.set()
    time.sleep(1)  # the late ACKs of the timed-out requests arrive on the tty now
    rc, out, _ = helper("hostctl ping")
    check(rc == 0 and "pong" in out, "a late ACK of an earlier request is not taken for ours", out)
    rc, out, _ = helper("hostctl clear 0 && hostctl break 0 read_aio H1 && hostctl unplug 1 && hostctl state")
    check(rc == 0 and "UNPLUGGED" in out and "breaks H1(armed=1)" in out, "setup: a break, an unplugged path", out)
    qemu_drain()
    m.hmp('qemu-io -d hd0 "aio_read 0 4096"')
    check(qemu_out(r"Suspended request 'H1'") is not None, "a read on hd0 is held")
    rc, out, _ = helper("for i in $(seq 25); do hostctl state | grep -q held && break; sleep 0.2; done; hostctl state")
    check("H1(held=1)" in out, "the guest sees 'held' in hostctl state (as faults/007 waits for it)", out)
    rc, out, _ = helper("hostctl_reset; hostctl state")
    check(rc == 0 and qemu_out(r"^read 4096/4096") is not None, "hostctl_reset releases the held read", out)
    check(devices(m) == ["hd0", "hd1"] and chain(m, "p0") == ["raw", "file"] and chain(m, "p1") == ["raw", "file"],
          "hostctl_reset: both paths plugged and clean", "%s %s %s" % (devices(m), chain(m, "p0"), chain(m, "p1")))
    rc, out, _ = helper("hostctl ping & hostctl ping & hostctl state & wait")
    check(out.count("pong") == 2 and "path 0" in out, "three concurrent hostctl calls (serialized by flock)", out)

    print("== a wedged QEMU does not wedge the agent", flush=True)
    expect_ok("break 0 read_aio W")
    qemu_drain()
    m.hmp('qemu-io -d hd0 "aio_read 0 4096"')
    check(qemu_out(r"Suspended request 'W'") is not None, "a read on hd0 is held")
    # what the agent refuses to do: reopen a path while a request is held
    def hang():
        try:
            m.cmd("blockdev-reopen", options=[{"driver": "raw", "node-name": "p1", "file": "lun0"}])
        except OSError:
            pass
    threading.Thread(target=hang, daemon=True).start()
    time.sleep(1)
    t = time.monotonic()
    ok, text = req("state", timeout=40)
    dt = time.monotonic() - t
    check(ok is False and "no QMP reply" in text and dt < 27,
          "QEMU hung in a drain (reopen of p1 with a read held on p0): agent answers ERR in time",
          "%s (%.1f s)" % (text, dt))
    ok, text = req("ping", timeout=5)
    check(ok is True, "ping still answered (no QMP needed)", text)
    q.kill()
    q.wait()
    check(wait_for(lambda: agent.poll() is not None, 10) and agent.returncode == 0,
          "agent exits by itself once QEMU is gone", str(agent.returncode))
finally:
    if q.poll() is None:
        q.kill()
    if agent.poll() is None:
        agent.kill()
    print("--- hostctl.log timings (reopen/graph changes):")
    for l in open(D + "/hostctl.log"):
        if re.search(r"ACK \S+ OK path \d: p\d -> .*ms\]", l):
            print("   ", l.rstrip()[:160])
print("%d check(s) failed%s (%.0f s)" % (len(FAILS), (": " + "; ".join(FAILS)) if FAILS else "",
                                         time.monotonic() - T0))
sys.exit(1 if FAILS else 0)
PYEOF
rc=$?
if [ $rc -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
	rm -rf "$D"
else
	echo "logs kept in $D (hostctl.log, qemu.out)"
fi
exit $rc
