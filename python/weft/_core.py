# _core.py — what every command shares: the loaded library, WeftError,
# dict inputs as text for the library's parsers, option values, the zoo.
import ctypes
import math
import os
import re
import sys

from . import _lib
from ._lib import text

lib = _lib.load()
VERSION = lib.weft_version().decode()

EINVAL, ENOMEM, EIO, ESYNTAX, EINPUT, EMODEL, ESOLVER = -1, -2, -3, -4, -5, -6, -7


class WeftError(Exception):
    """An input or run the library (or this package's checks) refused.

    file, line, column and field say where (as the library's WeftError:
    file "" and line/column 0 when unknown); message says what; code is the
    library's WEFT_E* value. For an input given as a dict, file is its name
    ("<scenario>", "<network>", ...), line and column are in the JSON text it
    was handed to the library as, and path names the entry in the dict
    ("network.NpusCount[1]")."""

    def __init__(self, message, file="", line=0, column=0, field="", code=EINPUT, path=None):
        self.message, self.file, self.line, self.column = message, file, line, column
        self.field, self.code, self.path = field, code, path
        super().__init__(self.__str__())

    def __str__(self):
        where = self.file
        if self.path is not None:
            where = "%s: %s" % (self.file, self.path) if self.path else self.file
        else:
            if self.file and self.line > 0:
                where += ":%d" % self.line
                if self.column > 0:
                    where += ":%d" % self.column
        return "%s: %s" % (where, self.message) if where else self.message


class Sources:
    """Dict inputs handed to the library as text: name -> the dict path of
    each line, to say where in the dict an error is."""

    def __init__(self):
        self.paths = {}

    def error(self, rc, err):
        e = err
        file = text(e.file)
        msg = text(e.msg) or lib.weft_strerror(e.code or rc or ESOLVER).decode()
        path = None
        lines = self.paths.get(file)
        if lines is not None:
            path = lines[e.line - 1] if 0 < e.line <= len(lines) else ""
        return WeftError(msg, file, e.line, e.col, text(e.field), e.code or rc, path)


class KeywordTypeError(WeftError, TypeError):
    """A keyword of the wrong type (sp="false", constraint=1000): a
    WeftError naming the keyword, and a TypeError as Python's own."""

    def __init__(self, message, field):
        super().__init__(message, field=field, code=EINVAL)


class KeywordValueError(WeftError, ValueError):
    """A keyword value refused as Python refuses it (a NUL character inside
    a name or text): a WeftError naming the keyword, and a ValueError."""

    def __init__(self, message, field):
        super().__init__(message, field=field, code=EINVAL)


def new_error():
    e = _lib.WeftError()
    lib.weft_error_clear(ctypes.byref(e))
    return e


def fail(message, field="", code=EINVAL):
    """A usage error found by the package (a bad keyword value)."""
    return WeftError(message, field=field, code=code)


# ------------------------------------------------------------------ dicts as text
def _quote(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif o < 0x20 or o == 0x7F:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _scalar(v, path):
    if v is None:
        return "null"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        return repr(float(v))  # inf, nan: the library says "not a finite number"
    if isinstance(v, (str, os.PathLike)):
        v = os.fsdecode(v)
        if "\0" in v:
            raise _Nul(path)
        return _quote(v)
    if hasattr(v, "__index__"):
        return str(v.__index__())
    if hasattr(v, "__float__"):
        return repr(float(v))
    raise WeftError("%s: a %s cannot be written as YAML" % (path or "value", type(v).__name__),
                    field=path.rsplit(".", 1)[-1] if path else "")


def _lines(v, path, out):
    """JSON text of v, one scalar per line, into out as (text, dict path)."""
    if isinstance(v, dict) and v:
        out.append(["{", path])
        items = list(v.items())
        for i, (k, x) in enumerate(items):
            k = os.fsdecode(k) if isinstance(k, os.PathLike) else str(k)
            if "\0" in k:
                raise _Nul("%s.%s" % (path, k.replace("\0", "\\0")) if path else
                           k.replace("\0", "\\0"))
            first = len(out)
            _lines(x, "%s.%s" % (path, k) if path else k, out)
            out[first][0] = "%s: %s" % (_quote(k), out[first][0])
            for line in out[first:]:
                line[0] = "  " + line[0]
            if i + 1 < len(items):
                out[-1][0] += ","
        out.append(["}", path])
    elif isinstance(v, (list, tuple)) and v:
        out.append(["[", path])
        for i, x in enumerate(v):
            first = len(out)
            _lines(x, "%s[%d]" % (path, i), out)
            for line in out[first:]:
                line[0] = "  " + line[0]
            if i + 1 < len(v):
                out[-1][0] += ","
        out.append(["]", path])
    elif isinstance(v, dict):
        out.append(["{}", path])
    elif isinstance(v, (list, tuple)):
        out.append(["[]", path])
    else:
        out.append([_scalar(v, path), path])


class _Nul(Exception):
    """A NUL in a dict's key or text, at this path."""


def to_text(obj, name, sources):
    """obj (a dict) as JSON text the library's YAML reader takes; the line
    of each entry kept in sources under name ("<network>"). A NUL in a key or
    text is refused (the library's strings would end there)."""
    out = []
    try:
        _lines(obj, "", out)
    except _Nul as e:
        kw = name.strip("<>").split()[0]
        raise KeywordValueError("%s: %s: embedded null character (a C string would end there)"
                                % (kw, e.args[0]), kw) from None
    sources.paths[name] = [p for _, p in out]
    return "\n".join(t for t, _ in out).encode() + b"\n"


def is_path(v):
    return isinstance(v, (str, bytes, os.PathLike))


# ------------------------------------------------------------------ C strings
# Every str, bytes or path the package hands the library goes through these
# two: C strings end at the first NUL, so "sum = 1000\x00B1 = 5" would be
# read as "sum = 1000" and "net.yml\x00junk" open net.yml. Refused instead,
# as open() refuses such a path (ValueError: embedded null byte).
def _no_nul(name, v, b):
    if b"\0" in b:
        raise KeywordValueError("%s=%s: embedded null character (a C string would end "
                                "there)" % (name, shown(v)), name)
    return b


def c_text(name, v):
    """A str keyword as UTF-8 bytes for the library."""
    if not isinstance(v, str):
        raise KeywordTypeError("%s=%s: expected text (a str), got %s" % (
            name, shown(v), type(v).__name__), name)
    return _no_nul(name, v, v.encode())


def c_path(name, v):
    """A path keyword (str, bytes, os.PathLike) as bytes for the library."""
    if not isinstance(v, (str, bytes, os.PathLike)):
        raise KeywordTypeError("%s=%s: expected a file name (str, bytes or a path), got %s" % (
            name, shown(v), type(v).__name__), name)
    return _no_nul(name, v, os.fsencode(v))


# ------------------------------------------------------------------ values
def shown(v):
    """v as a message quotes it: its repr, cut short (a 400-digit integer,
    a long text)."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 64:
        return "<an integer of %d digits>" % len(str(abs(v))) if v.bit_length() < 4000 else \
            "<an integer of about %d digits>" % int(v.bit_length() * 0.30103 + 1)
    r = repr(v)
    return r if len(r) <= 80 else r[:60] + "... (%d characters)" % len(r)


def flag(name, v):
    """A boolean keyword: True or False (None: False). Text such as "false"
    or a number is refused, not read as its truth value."""
    if v is None or v is False or v is True:
        return bool(v)
    raise KeywordTypeError("%s=%s: expected True or False" % (name, shown(v)), name)


def num(v):
    """A double as the CLI's JSON has it: None when not finite."""
    return v if math.isfinite(v) else None


def nums(a, n):
    return [num(a[i]) for i in range(n)]


_INT_TEXT = re.compile(r"[+-]?[0-9]{1,18}")  # the CLI's and the files' integers (ASCII)
_NUM_CHARS = re.compile(r"[0-9.eE+-]+")  # the files' numbers: decimal, no '_', no hex
DBL_MIN = sys.float_info.min  # below it a number is denormal, refused as the files refuse it


def _text(v):
    """v without the blanks around it, as the CLI reads an option's value."""
    return v.strip(" \t")


def int_value(name, v, lo, hi):
    """An integer keyword in lo..hi: an int (not a bool), or its decimal text
    as the CLI reads it (ASCII digits, an optional sign; not 1_000)."""
    x = None
    if isinstance(v, str):
        t = _text(v)
        if _INT_TEXT.fullmatch(t):
            x = int(t, 10)
    elif not isinstance(v, bool) and hasattr(v, "__index__"):
        x = v.__index__()
    if x is None or not lo <= x <= hi:
        raise fail("%s=%s: expected an integer in %d..%d" % (name, shown(v), lo, hi), name)
    return x


GAP_TOL_MIN = 1e-14  # WEFT_MIN_GAP_TOL (include/weft/problem.h): the tightest gap a solve takes


def number(name, v, lo, strict, hi=math.inf, what=None):
    """A finite number keyword >= lo (> lo when strict), <= hi."""
    try:
        if isinstance(v, bool):
            raise ValueError
        if isinstance(v, str):  # the files' grammar: 1_000, '\u0664' and inf are not numbers
            t = _text(v)
            if not _NUM_CHARS.fullmatch(t):
                raise ValueError
            x = float(t)
            if x == 0.0 and re.search(r"[1-9]", re.split(r"[eE]", t)[0]):
                x = DBL_MIN / 2  # 1e-400: underflowed, a denormal as the files read it
        else:
            x = float(v)
    except OverflowError:  # 10**400: beyond any double, as the CLI's 1e400
        x = math.inf
    except (TypeError, ValueError):
        x = math.nan
    if x != 0.0 and abs(x) < DBL_MIN:
        raise fail("%s=%s: must not be a denormal number (nonzero, below 2.2e-308)" % (
            name, shown(v)), name)
    if not math.isfinite(x) or x < lo or (strict and x <= lo) or x > hi:
        raise fail("%s=%s: expected %s" % (name, shown(v), what or (
            "a positive number" if strict else "a non-negative number")), name)
    return x


def items(name, v):
    """A list keyword: a list/tuple as it is, a string split on commas, a
    single value as a list of one."""
    if v is None:
        return []
    if isinstance(v, str):
        return [t.strip() for t in v.split(",")]
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v]


def same_name(a, b):
    """Names equal in any case with '_' and '-' alike (tp_dp_overlap,
    TP-DP-OVERLAP), as scenario files and the CLI read them."""
    return a.replace("_", "-").lower() == b.replace("_", "-").lower()


def choose(name, v, *names):
    """The index of the value among names (the library's own names, in its
    enum's order)."""
    for i, n in enumerate(names):
        if isinstance(v, str) and same_name(v, n):
            return i
    listed = ", ".join(repr(n) for n in names[:-1]) + " or %r" % names[-1]
    raise fail("%s=%r: expected %s" % (name, v, listed), name)


# ------------------------------------------------------------------ zoo
def zoo_path(zoo=None):
    """zoo_dir(zoo) as the library takes it (a NUL refused, keyword zoo)."""
    return c_path("zoo", zoo_dir(zoo))


def zoo_dir(zoo=None):
    """The model zoo: zoo, else $WEFT_ZOO, else $WEFT_DATA/zoo, else data/zoo
    of the source tree libweft.so was built in (as the CLI finds it beside
    its binary), else the copy installed with the package, else where the
    library finds it (weft_zoo_dir: PREFIX/share/weft/zoo of its make
    install, else ./data/zoo)."""
    if zoo is not None:
        return os.fspath(zoo)
    env = os.environ.get("WEFT_ZOO")
    if env:
        return env
    env = os.environ.get("WEFT_DATA")
    if env:
        return os.path.join(env, "zoo")
    name = lib._name
    if os.sep in name:
        d = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(name))), "data", "zoo")
        if os.path.isdir(d):
            return d
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zoo")
    if os.path.isdir(d):
        return d
    buf = ctypes.create_string_buffer(4096)
    lib.weft_zoo_dir(buf, len(buf), None)  # none found: the zoo's readers say where it looked
    return buf.value.decode()
