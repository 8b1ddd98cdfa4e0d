#!/usr/bin/env python3
"""writer.py MODE DIR -- toy writers that replace DIR/target three times, to
validate the power-cut checker: it must flag every faulty mode and pass the
correct one. After each replacement the writer prints ACK (it promises the
new version survives) and waits for a line on stdin.

  good               write target.tmp, fsync it, rename it over target, fsync DIR
  no-fsync           the same without the fsync of target.tmp
  no-dir-fsync       the same without the fsync of DIR
  truncate-in-place  open target with O_TRUNC, write, fsync (no temporary file)

Each version is a few 4 KB blocks, so a power cut can keep some of them.
Python's os module calls libc's open/write/fsync/rename, which the
recording shim sees.
"""
import os
import sys


def write_all(fd, data):
    while data:
        n = os.write(fd, data[:5000])  # several calls, like a real writer
        data = data[n:]


def replace(mode, d, data):
    target = os.path.join(d, "target")
    if mode == "truncate-in-place":
        fd = os.open(target, os.O_WRONLY | os.O_TRUNC)
        write_all(fd, data)
        os.fsync(fd)
        os.close(fd)
        return
    tmp = target + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    write_all(fd, data)
    if mode != "no-fsync":
        os.fsync(fd)
    os.close(fd)
    os.rename(tmp, target)
    if mode != "no-dir-fsync":
        dfd = os.open(d, os.O_RDONLY)
        os.fsync(dfd)
        os.close(dfd)


def main():
    mode, d = sys.argv[1], sys.argv[2]
    for v in range(1, 4):
        replace(mode, d, (b"version %d\n" % v) * (700 + 300 * v))
        sys.stdout.write("ACK %d\n" % v)
        sys.stdout.flush()
        sys.stdin.readline()


if __name__ == "__main__":
    main()
