"""ftdiag's Python probe (docs/probes.md, "The Python probe").

Started by `sitecustomize` under `ftdiag run` (FTDIAG_RUN_DIR set). In the run
folder, per process (a forked child gets its own, named with its own pid):

  python-probe.<pid>.txt   what the probe did: `probe 1`, `pid`, `parent` (a
                           forked child), `rank`, `python`, `executable`,
                           `faulthandler user`, `stack-signal N`, `error ...`
  python-faults.<pid>.txt  faulthandler's output when the process faults
  python-stacks.<pid>.txt  all threads' Python stacks, one dump each time
                           ftdiag sends the stack signal

and datagrams on FTDIAG_PROBE_SOCKET: a `hello` when the probe starts, and
`begin`/`end` around the framework entry points listed in HOOKS.

Rules: nothing heavy is imported (no torch, no json, no socket, no signal
module: their C halves `_socket` and `_signal` suffice); a framework is patched
only after the job itself has imported it; every part is wrapped, a failure is
one `error <part>: <Type>: <message>` line and disables that part only.
"""

import faulthandler
import os
import sys
import time

VERSION = 1

# torch.save / torch.load mark a phase only from this size on (bytes).
MIN_BYTES = 64 << 20
# How many objects the size estimate of torch.save's object looks at, at most.
SIZE_WALK_LIMIT = 10000
_SIZE_WALK_DEPTH = 4

_state = None


class _State:
    __slots__ = ("run_dir", "pid", "rank", "socket_path", "sock", "socket_failed",
                 "user_faulthandler", "faults_file", "stacks_file", "stack_signal",
                 "failed")

    def __init__(self, run_dir):
        self.run_dir = run_dir
        self.pid = os.getpid()
        self.rank = _rank()
        self.socket_path = os.environ.get("FTDIAG_PROBE_SOCKET") or None
        self.sock = None
        self.socket_failed = False
        self.user_faulthandler = (os.environ.get("FTDIAG_USER_FAULTHANDLER") == "1"
                                  or "faulthandler" in getattr(sys, "_xoptions", {}))
        self.faults_file = None
        self.stacks_file = None
        self.stack_signal = None
        self.failed = set()


def _rank():
    for name in ("RANK", "LOCAL_RANK"):
        value = os.environ.get(name)
        if value:
            try:
                return int(value)
            except ValueError:
                pass
    return None


# ---------------------------------------------------------------- the probe file

def _note(line):
    """Appends one line to python-probe.<pid>.txt (one write(2), O_APPEND)."""
    st = _state
    if st is None:
        return
    try:
        fd = _open_private(os.path.join(st.run_dir, "python-probe.%d.txt" % st.pid),
                           os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC)
        try:
            os.write(fd, (line + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:
        pass


def _error(part, exc):
    message = str(exc).replace("\n", " ").replace("\r", " ")
    _note("error %s: %s: %s" % (part, type(exc).__name__, message))


def _part(name, action):
    st = _state
    try:
        action()
        return True
    except Exception as exc:
        if st is not None:
            st.failed.add(name)
        _error(name, exc)
        return False


def _header(parent=None):
    st = _state
    lines = ["probe %d" % VERSION, "pid %d" % st.pid]
    if parent is not None:
        lines.append("parent %d" % parent)
    if st.rank is not None:
        lines.append("rank %d" % st.rank)
    lines.append("python %d.%d.%d" % tuple(sys.version_info[:3]))
    lines.append("executable %s" % (sys.executable or ""))
    _note("\n".join(lines))


def _open_private(path, flags):
    """Mode 0600 whatever the umask allows more of, never through a link."""
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)


def _open_run_file(stem):
    st = _state
    return open(os.path.join(st.run_dir, "%s.%d.txt" % (stem, st.pid)), "ab", buffering=0,
                opener=_open_private)


# ------------------------------------------------------------------ faulthandler

def _setup_faults():
    st = _state
    if st.user_faulthandler:
        _note("faulthandler user")
        return
    previous = st.faults_file
    st.faults_file = _open_run_file("python-faults")
    faulthandler.enable(file=st.faults_file, all_threads=True)
    if previous is not None:
        previous.close()


def _choose_stack_signal():
    import _signal
    low, high = _signal.SIGRTMIN, _signal.SIGRTMAX
    wanted = os.environ.get("FTDIAG_STACK_SIGNAL")
    if wanted:
        first = int(wanted)
        if not 0 < first < _signal.NSIG or first in (_signal.SIGKILL, _signal.SIGSTOP):
            raise ValueError("FTDIAG_STACK_SIGNAL=%s is not a signal that can be caught" % wanted)
        candidates = [first] + (list(range(first + 1, high + 1)) if low <= first <= high else [])
    else:
        candidates = range(low + 7, high + 1)
    for number in candidates:
        # Only a signal whose handler is the default is free: one the job (or a
        # C library, getsignal() None) handles stays the job's.
        if _signal.getsignal(number) == _signal.SIG_DFL:
            return number
    raise RuntimeError("no free signal for stack dumps from %d" % candidates[0])


def _setup_stacks():
    st = _state
    number = st.stack_signal if st.stack_signal is not None else _choose_stack_signal()
    previous = st.stacks_file
    st.stacks_file = _open_run_file("python-stacks")
    faulthandler.register(number, file=st.stacks_file, all_threads=True, chain=False)
    st.stack_signal = number
    if previous is not None:
        previous.close()
    # Only now may ftdiag send it: the handler is in place.
    _note("stack-signal %d" % number)


def _after_fork_child():
    st = _state
    if st is None:
        return
    try:
        st.pid = os.getpid()
        st.socket_failed = False
        st.failed = set()
        _header(parent=os.getppid())
        _part("faulthandler", _setup_faults)
        if st.stack_signal is not None:
            _part("stack-signal", _setup_stacks)
        _send("hello", None, "python")
    except Exception:
        pass


# ----------------------------------------------------------------------- markers

def _json_string(text):
    if text is None:
        return "null"
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '"' + text + '"'
    import json
    return json.dumps(text)


def _send(marker, phase, what, error=None):
    """One datagram to FTDIAG_PROBE_SOCKET; never raises, never blocks."""
    st = _state
    if st is None or st.socket_path is None:
        return
    try:
        # Read again: a launcher's worker often sets RANK itself after start
        # (torch.multiprocessing ranks, a script's own os.environ update).
        rank = _rank()
        if rank is None:
            rank = st.rank
        message = '{"v":%d,"pid":%d,"rank":%s,"time":%r,"marker":"%s","phase":%s,"what":%s%s}' % (
            VERSION, st.pid, "null" if rank is None else "%d" % rank, time.time(), marker,
            _json_string(phase), _json_string(what),
            "" if error is None else ',"error":' + _json_string(error))
        sock = st.sock
        if sock is None:
            import _socket
            sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_DGRAM)
            sock.setblocking(False)
            st.sock = sock
        sock.sendto(message.encode("utf-8"), st.socket_path)
    except Exception as exc:
        if not st.socket_failed:
            st.socket_failed = True
            _error("socket", exc)


def _tensor_bytes(obj):
    """Bytes of the tensors in obj, looked at shallowly: a tensor, a Module's
    parameters and buffers (never state_dict(), which may gather across ranks),
    the values of dicts and items of lists/tuples down to a few levels; at most
    SIZE_WALK_LIMIT objects. Stops counting at MIN_BYTES."""
    torch = sys.modules.get("torch")
    if torch is None:
        return 0
    tensor_type = torch.Tensor
    nn = getattr(torch, "nn", None)
    module_type = getattr(nn, "Module", None) if nn is not None else None
    total = 0
    budget = SIZE_WALK_LIMIT
    pending = [(obj, 0)]
    while pending and budget > 0:
        item, depth = pending.pop()
        budget -= 1
        if isinstance(item, tensor_type):
            total += item.numel() * item.element_size()
            if total >= MIN_BYTES:
                return total
        elif module_type is not None and isinstance(item, module_type):
            for source in (item.parameters(), item.buffers()):
                for tensor in source:
                    if budget <= 0:
                        break
                    budget -= 1
                    total += tensor.numel() * tensor.element_size()
                    if total >= MIN_BYTES:
                        return total
        elif depth < _SIZE_WALK_DEPTH and isinstance(item, (dict, list, tuple)):
            values = item.values() if isinstance(item, dict) else item
            for value in values:
                if len(pending) >= budget:
                    break
                if value is None or isinstance(value, (int, float, str, bytes, bool)):
                    continue
                pending.append((value, depth + 1))
    return total


def _big_save(args, kwargs):
    obj = args[0] if args else kwargs.get("obj")
    return _tensor_bytes(obj) >= MIN_BYTES


def _big_load(args, kwargs):
    f = args[0] if args else kwargs.get("f")
    if isinstance(f, (str, bytes, os.PathLike)):
        size = os.stat(f).st_size
    else:
        fileno = getattr(f, "fileno", None)
        if fileno is None:
            return False
        size = os.fstat(fileno()).st_size
    return size >= MIN_BYTES


def _wrap(func, phase, what, when):
    import functools

    @functools.wraps(func)
    def ftdiag_phase(*args, **kwargs):
        if _state is None or _state.socket_path is None:
            return func(*args, **kwargs)
        if when is not None:
            try:
                marked = when(args, kwargs)
            except Exception:
                marked = False
            if not marked:
                return func(*args, **kwargs)
        _send("begin", phase, what)
        error = None
        try:
            return func(*args, **kwargs)
        except BaseException as exc:
            error = type(exc).__name__
            raise
        finally:
            _send("end", phase, what, error)

    ftdiag_phase.__ftdiag_what__ = what
    return ftdiag_phase


# The entry points marked as phases, by the module that defines them. Each
# entry: (attribute path in the module, phase, what, predicate or None). A
# predicate(args, kwargs) decides per call whether this call is marked. An
# attribute that is absent (another version of the framework) is skipped.
# Tests may add entries for a module before it is imported.
HOOKS = {
    "transformers.trainer": [
        ("Trainer._save_checkpoint", "checkpoint-save", "transformers.Trainer._save_checkpoint", None),
        ("Trainer.evaluate", "evaluation", "transformers.Trainer.evaluate", None),
        ("Trainer._load_from_checkpoint", "model-load", "transformers.Trainer._load_from_checkpoint", None),
    ],
    "deepspeed.runtime.engine": [
        ("DeepSpeedEngine.save_checkpoint", "checkpoint-save", "deepspeed.DeepSpeedEngine.save_checkpoint", None),
        ("DeepSpeedEngine.load_checkpoint", "model-load", "deepspeed.DeepSpeedEngine.load_checkpoint", None),
    ],
    "accelerate.accelerator": [
        ("Accelerator.save_state", "checkpoint-save", "accelerate.Accelerator.save_state", None),
        ("Accelerator.get_state_dict", "checkpoint-save", "accelerate.Accelerator.get_state_dict", None),
        ("Accelerator.load_state", "model-load", "accelerate.Accelerator.load_state", None),
    ],
    "lightning.pytorch.trainer.trainer": [
        ("Trainer.save_checkpoint", "checkpoint-save", "lightning.Trainer.save_checkpoint", None),
    ],
    "pytorch_lightning.trainer.trainer": [
        ("Trainer.save_checkpoint", "checkpoint-save", "pytorch_lightning.Trainer.save_checkpoint", None),
    ],
    "torch.serialization": [
        ("save", "checkpoint-save", "torch.save", _big_save),
        ("load", "model-load", "torch.load", _big_load),
    ],
    # torch/__init__ re-exports them; already the wrapped ones unless
    # torch.serialization was loaded before the probe.
    "torch": [
        ("save", "checkpoint-save", "torch.save", _big_save),
        ("load", "model-load", "torch.load", _big_load),
    ],
}

_MISSING = object()


def _patch_one(module, target, phase, what, when):
    *owners, name = target.split(".")
    owner = module
    for step in owners:
        owner = getattr(owner, step, None)
        if owner is None:
            return False
    raw = owner.__dict__.get(name, _MISSING) if isinstance(owner, type) else _MISSING
    if raw is _MISSING:
        raw = getattr(owner, name, None)
    if isinstance(raw, (staticmethod, classmethod)):
        inner = raw.__func__
        if getattr(inner, "__ftdiag_what__", None) is not None:
            return False
        replacement = type(raw)(_wrap(inner, phase, what, when))
    elif callable(raw) and not isinstance(raw, type):
        if getattr(raw, "__ftdiag_what__", None) is not None:
            return False
        replacement = _wrap(raw, phase, what, when)
    else:
        return False
    setattr(owner, name, replacement)
    return True


def patch_module(module):
    """Wraps the HOOKS entry points of an imported module; returns how many."""
    patched = 0
    for target, phase, what, when in HOOKS.get(module.__name__, ()):
        try:
            patched += _patch_one(module, target, phase, what, when)
        except Exception as exc:
            _error("markers %s" % what, exc)
    return patched


class _PhaseFinder:
    """First on sys.meta_path: for a module named in HOOKS, finds its spec with
    the finders after it and arms that spec's loader so that the module is
    patched right after it has executed. Every other import: one dict lookup."""

    _finding = set()  # names being found: another finder that delegates back finds None

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in HOOKS or fullname in self._finding:
            return None
        self._finding.add(fullname)
        try:
            spec = None
            for finder in list(sys.meta_path):
                if isinstance(finder, _PhaseFinder):
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
            if spec is None or spec.loader is None or isinstance(spec.loader, type):
                return None
            _arm(spec.loader, fullname)
            return spec
        except Exception:
            # The import goes on through the other finders, as without us.
            return None
        finally:
            self._finding.discard(fullname)


def _arm(loader, fullname):
    # The loader of a file module is an instance made for this module alone, so
    # an instance attribute changes nothing else, and __loader__ stays the real
    # loader (get_source, resource readers, isinstance checks all unchanged).
    original = loader.exec_module

    def exec_module(module):
        if getattr(module, "__name__", None) != fullname:
            return original(module)
        try:
            del loader.exec_module
        except Exception:
            pass
        original(module)
        try:
            patch_module(module)
        except Exception:
            pass

    loader.exec_module = exec_module


def _install_markers():
    if _state.socket_path is None:
        return
    if not any(isinstance(finder, _PhaseFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PhaseFinder())
    for name in list(HOOKS):
        module = sys.modules.get(name)
        if module is not None:
            patch_module(module)


# ------------------------------------------------------------------------- start

def start():
    """Starts the probe once per process; inert without FTDIAG_RUN_DIR."""
    global _state
    if _state is not None:
        return
    run_dir = os.environ.get("FTDIAG_RUN_DIR")
    if not run_dir:
        return
    _state = _State(run_dir)
    _header()
    _part("faulthandler", _setup_faults)
    _part("stack-signal", _setup_stacks)
    _part("fork", lambda: os.register_at_fork(after_in_child=_after_fork_child))
    _part("markers", _install_markers)
    _send("hello", None, "python")


def stack_signal():
    """The signal that dumps this process's stacks, or None."""
    return None if _state is None else _state.stack_signal
