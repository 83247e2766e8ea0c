"""ftdiag's Python probe: the entry point (docs/probes.md, "The Python probe").

`ftdiag run` puts this folder first on PYTHONPATH, so Python's `site` imports
this module as `sitecustomize`. It first runs the environment's own
`sitecustomize` (the next one on sys.path: Debian's, a conda or venv one, the
user's), exactly as `site` would have, then, only under `ftdiag run`
(FTDIAG_RUN_DIR set), starts the probe in the `ftdiag_probe` package beside it.
Nothing here may stop the job: every failure is caught.

Only modules already loaded at startup are imported here (os, sys and the
import system's own), so the probe costs an interpreter next to nothing.
"""

import os as _os
import sys as _sys

_HERE = _os.path.dirname(_os.path.abspath(__file__))

# The file of the environment's own sitecustomize that ran, or None.
chained = None


def _is_here(entry):
    # A string comparison first; a stat only for an entry that might be this
    # folder under another name (a symlink): same last component.
    try:
        path = _os.path.abspath(entry or _os.curdir)
        if path == _HERE:
            return True
        return (_os.path.basename(path) == _os.path.basename(_HERE)
                and _os.path.samefile(path, _HERE))
    except Exception:
        return False


def _is_this_file(origin):
    try:
        return _os.path.samefile(origin, __file__)
    except Exception:
        return False


def _path_finder():
    bootstrap = _sys.modules.get("_frozen_importlib_external")
    if bootstrap is not None:
        return bootstrap.PathFinder
    import importlib.machinery
    return importlib.machinery.PathFinder


def _module_from_spec(spec):
    bootstrap = _sys.modules.get("_frozen_importlib")
    if bootstrap is not None:
        return bootstrap.module_from_spec(spec)
    import importlib.util
    return importlib.util.module_from_spec(spec)


def _run_chained():
    """Runs the next `sitecustomize` on sys.path as site.py would have."""
    global chained
    ours = _sys.modules.get(__name__)
    try:
        try:
            rest = [entry for entry in _sys.path if not _is_here(entry)]
            spec = _path_finder().find_spec("sitecustomize", rest)
            if spec is None or spec.loader is None or _is_this_file(spec.origin):
                return
            module = _module_from_spec(spec)
            chained = spec.origin
            # While it runs, `sitecustomize` in sys.modules is that module, as
            # without ftdiag (code that looks itself up by __name__ finds itself).
            _sys.modules["sitecustomize"] = module
            try:
                spec.loader.exec_module(module)
            finally:
                if ours is not None:
                    _sys.modules["sitecustomize"] = ours
            # `import sitecustomize` gives ours; what the environment's defined
            # is reachable through it as before.
            names = globals()
            for name, value in vars(module).items():
                if not (name.startswith("__") and name.endswith("__")) and name not in names:
                    names[name] = value
        except ImportError as exc:
            if exc.name != "sitecustomize":
                raise
    except Exception as err:
        # Word for word what site.execsitecustomize() prints.
        if _sys.flags.verbose:
            _sys.excepthook(*_sys.exc_info())
        else:
            _sys.stderr.write(
                "Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                "%s: %s\n" % (err.__class__.__name__, err))


def _note_failure(part, exc):
    try:
        run_dir = _os.environ["FTDIAG_RUN_DIR"]
        line = "error %s: %s: %s\n" % (part, type(exc).__name__, str(exc).replace("\n", " "))
        fd = _os.open(_os.path.join(run_dir, "python-probe.%d.txt" % _os.getpid()),
                      _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT | _os.O_CLOEXEC
                      | getattr(_os, "O_NOFOLLOW", 0), 0o600)
        try:
            _os.write(fd, line.encode("utf-8", "replace"))
        finally:
            _os.close(fd)
    except Exception:
        pass


def _start_probe():
    try:
        probe = _sys.modules.get("ftdiag_probe")
        if probe is None:
            spec = _path_finder().find_spec("ftdiag_probe", [_HERE])
            if spec is None or spec.loader is None:
                raise ImportError("ftdiag_probe is not in " + _HERE)
            probe = _module_from_spec(spec)
            _sys.modules["ftdiag_probe"] = probe
            try:
                spec.loader.exec_module(probe)
            except BaseException:
                _sys.modules.pop("ftdiag_probe", None)
                raise
        probe.start()
    except Exception as exc:
        _note_failure("probe", exc)


_run_chained()
if _os.environ.get("FTDIAG_RUN_DIR"):
    _start_probe()
