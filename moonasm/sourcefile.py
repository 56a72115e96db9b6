"""Reading the files a user names, safely: one reader for every program, bot, puzzle, answer
and REPL `:load` file.

A name can point at anything: `/dev/zero` (endless), `/dev/urandom`, a FIFO (opening or
reading it blocks until someone writes), a directory, a 1.5 GB file, `/proc/self/mem` (reads
fail). `read` opens without blocking, refuses at once anything that is not a regular file,
refuses a file larger than its limit from its size alone, and never reads more than the
limit + 1 bytes (a file that grows while it is read is refused too). Every refusal is a
`Refused` whose message says why, in a user's words.
"""

from __future__ import annotations

import os
import stat

# What a program may be: 1 MiB of characters (`moonasm.lang.parse.MAX_SOURCE_CHARS`), which
# UTF-8 writes in at most 4 bytes each. A file over this is refused before it is read.
PROGRAM_BYTES = 4 << 20

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class Refused(Exception):
    """A file that is not read; the message says why ("no such file", "it is a FIFO …")."""


def read(path: str | os.PathLike[str], limit: int = PROGRAM_BYTES,
         what: str = "programs", follow: bool = True) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; Refused otherwise.
    `follow=False` refuses a symbolic link too (a contest's submissions: a link could make
    any readable file an entrant)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        if os.path.islink(path):
            raise Refused("it is a symbolic link, not a regular file")
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise Refused("no such file") from None
    except IsADirectoryError:
        raise Refused("it is a directory") from None
    except OSError as e:
        raise Refused(e.strerror or str(e)) from None
    except ValueError as e:  # a NUL in the name
        raise Refused(str(e)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise Refused("it is a directory")
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
            raise Refused(f"it is {kind}, not a regular file")
        if info.st_size > limit:
            raise Refused(too_large(info.st_size, limit, what))
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as e:
        raise Refused(e.strerror or str(e)) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise Refused(too_large(None, limit, what))
    return data


def too_large(size: int | None, limit: int, what: str) -> str:
    has = f"it has {size:,} bytes" if size is not None else "it grew past the limit"
    return f"{has}; moonasm reads {what} of at most {limit:,} bytes"
