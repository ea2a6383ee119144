"""Reading input files and writing output files, with errors a user can act on.

``atomic_write`` is the one way ragauge replaces a file: the content goes to a temporary file
beside the target, is flushed to disk, then renamed over it. A failure at any point (a full
disk, a missing folder, no permission) leaves the old file as it was, removes the temporary
file and raises InputError naming the target.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from ragauge.errors import InputError

BLOCK_BYTES = 32 << 20
"""How much of a file :func:`line_blocks` reads at a time (whole lines are added to each block)."""


FIFO_WAIT = 30.0
"""Seconds a pipe given as an input file may stay silent before ragauge says nothing writes to it."""


def read_input(path: str | Path, what: str) -> bytes:
    """The bytes of ``path`` without a leading UTF-8 BOM; InputError naming the file (and ``what``
    it should be) when it is missing, a folder, or unreadable, or a pipe nothing writes to within
    ``FIFO_WAIT`` seconds (``mkfifo`` with no writer blocked forever; ``<(command)`` still works).
    A gzip-compressed file (its magic bytes, whatever its name) is read decompressed."""
    path = Path(path)
    with _reading(path, what):
        data = _read_pipe(path, what) if _is_pipe(path) else path.read_bytes()
        if data.startswith(b"\x1f\x8b"):
            data = _gunzip(data, path, what)
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _gunzip(data: bytes, path: Path, what: str) -> bytes:
    import gzip
    import zlib

    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"the {what} file is gzip-compressed but cannot be decompressed ({exc})", where=str(path),
                         hint="check the file (gzip -t), or give it decompressed") from None


def _is_pipe(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(path.stat().st_mode)
    except OSError:
        return False


def _read_pipe(path: Path, what: str) -> bytes:
    """Open a pipe without waiting for a writer, wait up to ``FIFO_WAIT`` for its first bytes (or
    its end), then read it whole."""
    import select

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        ready, _, _ = select.select([fd], [], [], FIFO_WAIT)
        if not ready:
            raise InputError(f"the {what} file is a pipe that nothing wrote to within {FIFO_WAIT:g} s",
                             where=str(path), hint="start the program that writes to it first, or give a file")
        os.set_blocking(fd, True)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _reading(path: Path, what: str) -> Iterator[None]:
    """Refuse a device (``/dev/zero``: reading never ends), and turn the OSError of reading
    ``path`` into the InputError a user can act on."""
    try:
        if is_device(path):
            raise InputError(f"expected a {what} file, found a device", where=str(path), hint="name a file")
        yield
    except FileNotFoundError:
        raise InputError(f"{what} file not found", where=str(path), hint="check the path") from None
    except IsADirectoryError:
        raise InputError(f"expected a {what} file, found a folder", where=str(path),
                         hint="name the file itself") from None
    except MemoryError:
        raise InputError(f"{what} file is too large to read into memory", where=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read {what} file: {exc.strerror}", where=str(path)) from None


def line_blocks(path: str | Path, what: str, block_bytes: int | None = None) -> Iterator[tuple[bytes, int]]:
    """``(data, first_line)`` for consecutive blocks of whole lines of ``path`` (about
    ``block_bytes`` each, default ``BLOCK_BYTES``; a line longer than that whole in one block; the
    last line may lack its newline), where ``first_line`` is the 1-based line number of the block's first line. The
    concatenated blocks are :func:`read_input`'s bytes (no BOM), with the same errors; a pipe is
    read once, as it flows. Memory holds about two blocks, whatever the file's size."""
    path = Path(path)
    with _reading(path, what):
        with open(path, "rb") as fh:
            line, first = 1, True
            while True:
                block = fh.read(max(1, BLOCK_BYTES if block_bytes is None else block_bytes))
                if not block:
                    break
                if not block.endswith(b"\n"):
                    block += fh.readline()  # the rest of the last line
                if first:
                    first = False
                    block = block[3:] if block.startswith(b"\xef\xbb\xbf") else block
                yield block, line
                line += block.count(b"\n")
                del block  # the next read does not hold it too


def decode_utf8(raw: bytes, path: str | Path, what: str) -> str:
    """``raw`` as text; InputError naming the line of the first byte that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError("not valid UTF-8", where=f"{path}:{line}", hint=f"save the {what} file as UTF-8") from None


def write_error(path: str | Path, exc: OSError, what: str = "output") -> InputError:
    """The InputError for a failed write of ``path`` (disk full, no permission, missing folder)."""
    reason = exc.strerror or str(exc)
    hint = None
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = "free some disk space (or write elsewhere with -o) and run the command again"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = "choose a location you can write to"
    elif exc.errno == errno.ENOENT:
        hint = "create the folder first"
    return InputError(f"cannot write {what}: {reason}", where=str(path), hint=hint)


def is_device(path: Path) -> bool:
    """True for a character or block device (``/dev/full``, ``/dev/tty``)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


_DESCRIPTOR_NAMES = ("/dev/stdin", "/dev/stdout", "/dev/stderr")


def is_stream(path: Path) -> bool:
    """True for what is written in place, never replaced or cut back: a device, a pipe or a socket,
    or a name of an open file descriptor (``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``, or a
    link to one) even when the descriptor is a regular file (``> run.jsonl``): a file put in
    place of that name would not reach the descriptor, and the name would be lost."""
    try:
        if path.exists() and not path.is_file():
            return True
        hop = os.path.abspath(path)
        for _ in range(40):  # a chain of links, as the kernel follows it
            parts = hop.split("/")
            if hop in _DESCRIPTOR_NAMES or hop.startswith("/dev/fd/") or (
                    len(parts) == 5 and parts[1] == "proc" and parts[3] == "fd"):
                return True
            if not os.path.islink(hop):
                return False
            hop = os.path.abspath(os.path.join(os.path.dirname(hop), os.readlink(hop)))
    except OSError:
        return False
    return False


class Appender:
    """``path`` open for appending whole records (bytes ending in a newline). Each ``write`` lands
    whole, or fails (a full disk, a file size limit): then the part written is cut off again, so the
    file still ends with a whole record, and InputError names the file. A stream
    (:func:`is_stream`) is written the same way but cannot be cut back. ``sync`` flushes each
    write to disk. Unbuffered: nothing is left in memory to be written again at close."""

    def __init__(self, path: str | Path, *, what: str = "output", sync: bool = False) -> None:
        self.path, self.what, self.sync = Path(path), what, sync
        try:
            stream = is_stream(self.path)
            if not stream:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            size = os.fstat(self.fd)
        except OSError as exc:
            raise write_error(self.path, exc, what) from None
        # where the next record starts: the length to cut back to (None: a stream, never cut)
        self.end: int | None = None if stream or not stat.S_ISREG(size.st_mode) else size.st_size

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.fd, view):]
            if self.sync:
                os.fsync(self.fd)
        except OSError as exc:
            if self.end is not None:
                with contextlib.suppress(OSError):
                    os.ftruncate(self.fd, self.end)
            raise write_error(self.path, exc, self.what) from None
        if self.end is not None:
            self.end += len(data)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def __enter__(self) -> Appender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def _direct_writer(path: Path, what: str, mode: str) -> Iterator[IO[Any]]:
    """Write straight into ``path``: a device or a pipe (``/dev/stdout``) cannot be replaced."""
    try:
        with (open(path, "wb") if "b" in mode else open(path, "w", encoding="utf-8")) as fh:
            yield fh
    except OSError as exc:
        raise write_error(path, exc, what) from None


@contextlib.contextmanager
def atomic_writer(path: str | Path, *, what: str = "output", mode: str = "w") -> Iterator[IO[Any]]:
    """A text handle whose content replaces ``path`` only when the ``with`` block ends without
    an exception; otherwise ``path`` is untouched and no temporary file is left. ``mode`` "w"
    is UTF-8 text, "wb" bytes."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"cannot write {what}: a folder is in the way", where=str(path), hint="name a file")
    if is_stream(path):  # a device, a pipe, /dev/stdout: written in place, never replaced
        with _direct_writer(path, what, mode) as fh:
            yield fh
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
    except OSError as exc:
        raise write_error(path, exc, what) from None
    try:
        with (os.fdopen(fd, "wb") if "b" in mode else os.fdopen(fd, "w", encoding="utf-8")) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _keep_mode(path, tmp)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise write_error(path, exc, what) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _keep_mode(path: Path, tmp: Path) -> None:
    """Give the new file the permissions of the file it replaces."""
    with contextlib.suppress(FileNotFoundError):
        os.chmod(tmp, path.stat().st_mode & 0o7777)


def atomic_write(path: str | Path, content: str | bytes, *, what: str = "output") -> None:
    """Replace ``path`` with ``content`` (str as UTF-8) atomically; see ``atomic_writer``."""
    with atomic_writer(path, what=what, mode="wb" if isinstance(content, bytes) else "w") as fh:
        fh.write(content)


def append_line(path: str | Path, line: str, *, what: str = "output") -> None:
    """Append one line (``line`` plus a newline) to ``path`` and flush it to disk; on failure the
    partial line is cut off again and InputError is raised (:class:`Appender`)."""
    with Appender(path, what=what, sync=True) as out:
        out.write((line + "\n").encode("utf-8"))


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file: the same inode when both exist (hard links, symlinks,
    ``./x`` and ``x``), else the same absolute path."""
    pa, pb = Path(a), Path(b)
    try:
        if pa.exists() and pb.exists():
            return os.path.samefile(pa, pb)
    except OSError:
        pass
    return pa.resolve() == pb.resolve()


def check_not_an_input(output: str | Path | None, inputs: Iterable[str | Path | None], what: str = "output") -> None:
    """InputError (exit 2) when ``output`` is one of the ``inputs``: writing it would replace what is
    being read (``golden import ragas t.jsonl -o t.jsonl`` replaced its own input and exited 0)."""
    if output is None:
        return
    for given in inputs:
        if given is not None and same_file(output, given):
            raise InputError(f"the {what} is also an input ({given}): writing it would replace what is read",
                             where=str(output), hint=f"write the {what} to another path")
