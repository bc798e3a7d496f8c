# Runs a command on a real pseudo-terminal (python3's pty module) and answers its
# questions: each step waits until the output so far matches `expect` (a Python regex),
# then types `send`. Prints {"code": N, "out": "..."} as JSON. Usage:
#   python3 pty-drive.py '{"argv": [...], "cwd": "...", "env": {...}, "steps": [{"expect": "...", "send": "..."}]}'
import json, os, pty, re, select, sys, time

cfg = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.chdir(cfg["cwd"])
    os.execve(cfg["argv"][0], cfg["argv"], cfg["env"])

out = b""
seen = 0
deadline = time.time() + cfg.get("timeout", 60)

def read_some(wait):
    global out
    r, _, _ = select.select([fd], [], [], wait)
    if not r:
        return True
    try:
        b = os.read(fd, 65536)
    except OSError:
        return False
    if not b:
        return False
    out += b
    return True

alive = True
for step in cfg["steps"]:
    pat = re.compile(step["expect"])
    while alive and not pat.search(out.decode("utf8", "replace"), seen):
        if time.time() > deadline:
            break
        alive = read_some(0.2)
    m = pat.search(out.decode("utf8", "replace"), seen)
    if not m:
        break
    seen = m.end()
    os.write(fd, step["send"].encode())
while alive and time.time() < deadline:
    alive = read_some(0.2)
_, status = os.waitpid(pid, 0)
print(json.dumps({"code": os.waitstatus_to_exitcode(status), "out": out.decode("utf8", "replace").replace("\r\n", "\n")}))
