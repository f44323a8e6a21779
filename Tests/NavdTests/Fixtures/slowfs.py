#!/usr/bin/python3
"""Slow storage for navd's tests: a FUSE file system that passes everything through to BACKING and takes DELAY
seconds for each directory made and each file created, as a worn SD card or a busy eMMC can.

Usage: slowfs.py BACKING MOUNTPOINT DELAY  (runs in the foreground; unmount with fusermount -u MOUNTPOINT)
Needs Debian's python3-fusepy and fuse (scripts/setup installs them).
"""
import errno
import os
import sys
import time

from fusepy import FUSE, FuseOSError, Operations


class SlowPassthrough(Operations):
    def __init__(self, backing, delay):
        self.backing = backing
        self.delay = delay

    def _path(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def getattr(self, path, fh=None):
        try:
            st = os.lstat(self._path(path))
        except OSError as error:
            raise FuseOSError(error.errno)
        return {key: getattr(st, key) for key in (
            "st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime")}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._path(path))

    def mkdir(self, path, mode):
        time.sleep(self.delay)
        os.mkdir(self._path(path), mode)

    def create(self, path, mode, fi=None):
        time.sleep(self.delay)
        return os.open(self._path(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)

    def open(self, path, flags):
        return os.open(self._path(path), flags)

    def read(self, path, size, offset, fh):
        os.lseek(fh, offset, os.SEEK_SET)
        return os.read(fh, size)

    def write(self, path, data, offset, fh):
        os.lseek(fh, offset, os.SEEK_SET)
        return os.write(fh, data)

    def truncate(self, path, length, fh=None):
        os.truncate(self._path(path), length)

    def unlink(self, path):
        os.unlink(self._path(path))

    def release(self, path, fh):
        os.close(fh)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        os.fsync(fh)

    def statfs(self, path):
        st = os.statvfs(self._path(path))
        return {key: getattr(st, key) for key in (
            "f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")}

    def chmod(self, path, mode):
        os.chmod(self._path(path), mode)

    def utimens(self, path, times=None):
        os.utime(self._path(path), times)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    backing, mountpoint, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
    FUSE(SlowPassthrough(backing, delay), mountpoint, foreground=True, nothreads=False)
