// The spawner's Python source (docs/sandbox.md, "The spawner"): a small long-lived python3 process
// that starts bwrap launches with posix_spawn (a vfork, whose cost does not grow with the host's
// memory, unlike the fork libuv does from the host). Standard library only, Python 3.8+. Kept free of
// backticks and dollar-brace pairs so String.raw holds it byte for byte.

export const SPAWNER_SOURCE = String.raw`
import base64, ctypes, fcntl, json, os, signal, socket, struct, sys, threading

HOST = int(sys.argv[1])
# Connect only to a socket the host itself listens on (SO_PEERCRED: the listener's pid), so a path
# swapped for another socket or a symlink to one gets no stream (docs/security.md, "Host-private state").
CHECK_PEER = "no-peer-check" not in sys.argv[2:]
# Every fd but the helper's stdio is closed before anything else: a descriptor the host inherited
# (covered with /dev/null by the host, docs/sandbox.md, "Inherited descriptors") or one Python's
# start left open must not reach what it spawns, which gets only the fds its launch names.
if "keep-fds" not in sys.argv[2:]:
    for name in os.listdir("/proc/self/fd"):
        if int(name) > 2:
            try:
                os.close(int(name))
            except OSError:
                pass
F_SETPIPE_SZ = 1031
# Spawned fds are first duplicated at or above this number, so no dup2 of the file actions is a
# no-op that would leave close-on-exec set.
HIGH_FD = 64

try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except Exception:
    pass
if os.getppid() != HOST:
    os._exit(0)
os.chdir("/")

out_lock = threading.Lock()
spawned = threading.Semaphore(0)


def send(obj):
    data = (json.dumps(obj) + "\n").encode()
    while data:
        data = data[os.write(1, data):]


def reap():
    while True:
        spawned.acquire()
        while True:
            try:
                pid, status = os.waitpid(-1, 0)
                break
            except InterruptedError:
                continue
        with out_lock:
            send({"exit": pid, "status": status})


def write_all(fd, data):
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        pass
    finally:
        os.close(fd)


def spawn(req):
    opened = []
    socks = []
    writer = None
    try:
        r, w = os.pipe()
        opened += [r, w]
        stdin = req["stdin"].encode()
        try:
            fcntl.fcntl(w, F_SETPIPE_SZ, len(stdin) + 1)
            fits = True
        except OSError:
            fits = False
        if fits:
            write_all(w, stdin)
            opened.remove(w)
        else:
            writer = w
        null = os.open("/dev/null", os.O_WRONLY | os.O_CLOEXEC)
        opened.append(null)
        sources = {0: r, 1: null}
        for target, role in ((2, "stderr"), (3, "channel")):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            socks.append(s)
            s.connect(req["socket"])
            if CHECK_PEER:
                peer = struct.unpack("3i", s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[0]
                if peer != HOST:
                    raise OSError("the socket is not the host's (its listener is pid " + str(peer) + ")")
            s.sendall((req["token"] + " " + role + "\n").encode())
            sources[target] = s.fileno()
        if req.get("passFd") is not None:
            memfd = os.memfd_create("ptc-pass-fd", os.MFD_CLOEXEC)
            opened.append(memfd)
            os.write(memfd, base64.b64decode(req["passFd"]["bytes"]))
            os.lseek(memfd, 0, os.SEEK_SET)
            sources[req["passFd"]["fd"]] = memfd
        actions = []
        for target, fd in sources.items():
            high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
            opened.append(high)
            actions.append((os.POSIX_SPAWN_DUP2, high, target))
        pid = os.posix_spawn(
            req["argv"][0],
            req["argv"],
            req["env"],
            file_actions=actions,
            setsid=True,
            setsigmask=(),
            setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
        )
        if writer is not None:
            opened.remove(writer)
            threading.Thread(target=write_all, args=(writer, stdin), daemon=True).start()
        return pid
    finally:
        for fd in opened:
            os.close(fd)
        for s in socks:
            s.close()


threading.Thread(target=reap, daemon=True).start()
with out_lock:
    send({"ready": True})
for line in sys.stdin.buffer:
    req = json.loads(line)
    # The pid goes out before the reaper can report that process's exit.
    with out_lock:
        try:
            pid = spawn(req)
        except Exception as error:
            send({"id": req["id"], "error": type(error).__name__ + ": " + str(error)})
            continue
        send({"id": req["id"], "pid": pid})
    spawned.release()
os._exit(0)
`;
