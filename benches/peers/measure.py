#!/usr/bin/env python3
"""Runs one command and prints `WALL_SECONDS PEAK_RSS_KB EXIT_STATUS CPU_SECONDS`.

    measure.py OUT -- COMMAND [ARG]...

The command's stdout goes to OUT (`-` = /dev/null), stderr is passed through. Wall time is
taken around the child (fork to wait, through /usr/bin/time, ~1 ms), the peak RSS and CPU time (user +
system) are the ones /usr/bin/time reports (%M; python's own RUSAGE_CHILDREN would count the forked interpreter)."""
import os
import subprocess
import sys
import tempfile
import time


def main():
    out = sys.argv[1]
    cmd = sys.argv[3:] if sys.argv[2] == "--" else sys.argv[2:]
    fd, rss_file = tempfile.mkstemp(prefix="measure-")
    os.close(fd)
    try:
        with open(os.devnull if out == "-" else out, "wb") as f:
            t = time.perf_counter()
            rc = subprocess.call(["/usr/bin/time", "-f", "%M %U %S", "-o", rss_file] + cmd, stdout=f)
            wall = time.perf_counter() - t
        with open(rss_file) as f:
            last = f.read().strip().splitlines()[-1].split()
        rss, cpu = int(last[0]), float(last[1]) + float(last[2])
    finally:
        os.unlink(rss_file)
    print("%.4f %d %d %.2f" % (wall, rss, rc, cpu))


if __name__ == "__main__":
    main()
