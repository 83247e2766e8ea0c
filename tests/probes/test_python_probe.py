#!/usr/bin/env python3
"""Tests of ftdiag's Python probe (probes/python, docs/probes.md "The Python probe").

Real processes, real files, real signals and a real AF_UNIX datagram socket;
no mocks. Each test runs a job with the interpreter running the tests
(Debian's /usr/bin/python3, which has python3-torch), with the environment
`ftdiag run` would give it: FTDIAG_RUN_DIR, FTDIAG_PROBE_SOCKET, PYTHONPATH
with the probe folder first, PYTHONFAULTHANDLER=1.

    /usr/bin/python3 tests/probes/test_python_probe.py        # or
    /usr/bin/python3 -m unittest tests/probes/test_python_probe.py

FTDIAG_PYTHON_PROBE_DIR names the probe folder to test (the build's copy);
by default the source's probes/python.

Run as a program, the file exits 77 (ctest's skip) only when every test that
ran passed but the torch marker tests were skipped because this interpreter
cannot import torch; any failure exits 1.
"""

import importlib.util
import json
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE_DIR = os.path.abspath(os.environ.get("FTDIAG_PYTHON_PROBE_DIR")
                            or os.path.join(HERE, os.pardir, os.pardir, "probes", "python"))
PYTHON = sys.executable
WAIT_S = 20.0  # bound on every wait for another process

# Whether the jobs can import torch; not imported here (its threads would make
# the fork of preexec_fn unsafe, and it takes seconds).
TORCH = importlib.util.find_spec("torch") is not None
TORCH_SKIP = "torch unavailable in %s" % PYTHON


def job_env(run_dir, socket_path=None, extra_path=(), **extra):
    """The environment `ftdiag run` gives a job (no FTDIAG_RUN_DIR if run_dir is None)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FTDIAG_") and k not in (
               "PYTHONPATH", "PYTHONFAULTHANDLER", "PYTHONVERBOSE", "PYTHONSTARTUP",
               "RANK", "LOCAL_RANK", "PYTHONNOUSERSITE")}
    env["PYTHONPATH"] = os.pathsep.join([PROBE_DIR, *extra_path])
    env["PYTHONFAULTHANDLER"] = "1"
    env["PYTHONNOUSERSITE"] = "1"
    if run_dir is not None:
        env["FTDIAG_RUN_DIR"] = run_dir
    if socket_path is not None:
        env["FTDIAG_PROBE_SOCKET"] = socket_path
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None


def probe_lines(run_dir, pid):
    text = read(os.path.join(run_dir, "python-probe.%d.txt" % pid))
    return None if text is None else text.splitlines()


def stack_signal_of(run_dir, pid):
    for line in probe_lines(run_dir, pid) or ():
        if line.startswith("stack-signal "):
            return int(line.split()[1])
    return None


def wait_for_text(path, needle):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        text = read(path)
        if text is not None and needle in text:
            return text
        time.sleep(0.02)
    return read(path)


def caught_signals(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("SigCgt:"):
                return int(line.split()[1], 16)
    return 0


class Scratch(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="ftdiag-pyprobe-")
        self.tmp = self._tmp.name
        self.run_dir = os.path.join(self.tmp, "run")
        os.mkdir(self.run_dir)

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, relative, text):
        path = os.path.join(self.tmp, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        return path

    def run_job(self, code, env, **kwargs):
        script = self.write("job_%d.py" % time.monotonic_ns(), code)
        return subprocess.run([PYTHON, script], env=env, cwd=self.tmp, capture_output=True,
                              text=True, timeout=120, preexec_fn=no_core, **kwargs)


class ChainingTest(Scratch):
    def user_site(self, body):
        folder = os.path.join(self.tmp, "usersite")
        self.write("usersite/sitecustomize.py", body)
        return folder

    def test_environment_sitecustomize_runs_first_and_once(self):
        log = os.path.join(self.tmp, "chain.log")
        folder = self.user_site("""
            import os, sys
            with open(os.environ["CHAIN_LOG"], "a") as f:
                f.write("user probe-started=%s name=%s\\n" % ("ftdiag_probe" in sys.modules, __name__))
            USER_VALUE = 42
        """)
        env = job_env(self.run_dir, extra_path=[folder], CHAIN_LOG=log)
        done = self.run_job("""
            import importlib, os, sys
            import sitecustomize
            sitecustomize = importlib.import_module("sitecustomize")  # a second import runs nothing
            print("probe-started", "ftdiag_probe" in sys.modules)
            print("user-value", sitecustomize.USER_VALUE)
            print("chained", sitecustomize.chained)
            print("pid", os.getpid())
        """, env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr, "")
        out = dict(line.split(" ", 1) for line in done.stdout.splitlines())
        # The environment's sitecustomize ran once, as `sitecustomize`, before the probe started.
        self.assertEqual(read(log), "user probe-started=False name=sitecustomize\n")
        self.assertEqual(out["probe-started"], "True")
        self.assertEqual(out["user-value"], "42")
        self.assertEqual(out["chained"], os.path.join(folder, "sitecustomize.py"))
        lines = probe_lines(self.run_dir, int(out["pid"]))
        self.assertIsNotNone(lines)
        self.assertEqual(lines[0], "probe 1")

    def test_broken_environment_sitecustomize_is_reported_as_python_would(self):
        folder = self.user_site("""
            raise RuntimeError("broken on purpose")
        """)
        code = """
            import os
            print("job ran", os.getpid())
        """
        done = self.run_job(code, job_env(self.run_dir, extra_path=[folder]))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(done.stdout.startswith("job ran "))
        # Exactly the message Python's own site.py prints without ftdiag.
        bare = self.run_job(code, job_env(None, extra_path=[folder], PYTHONPATH=folder))
        self.assertIn("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                      "RuntimeError: broken on purpose\n", bare.stderr)
        self.assertEqual(done.stderr, bare.stderr)
        pid = int(done.stdout.split()[2])
        self.assertIsNotNone(stack_signal_of(self.run_dir, pid), probe_lines(self.run_dir, pid))

    def test_the_interpreters_own_sitecustomize_is_chained(self):
        # Whatever sitecustomize this interpreter finds without ftdiag (Debian's
        # /usr/lib/python3.X/sitecustomize.py, a venv's, none) is the one chained.
        bare = subprocess.run([PYTHON, "-c", "import sys; m = sys.modules.get('sitecustomize');"
                               " print(getattr(m, '__file__', None))"],
                              env=job_env(None, PYTHONPATH=None), capture_output=True, text=True,
                              timeout=60)
        expected = bare.stdout.strip()
        done = self.run_job("import sitecustomize; print(sitecustomize.chained)",
                            job_env(self.run_dir))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), expected)

    def test_inert_without_run_dir(self):
        done = self.run_job("""
            import faulthandler, sys
            print("ftdiag_probe" in sys.modules,
                  any(type(f).__name__ == "_PhaseFinder" for f in sys.meta_path))
        """, job_env(None, socket_path=os.path.join(self.tmp, "sock")))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "False False")
        self.assertEqual(os.listdir(self.run_dir), [])
        self.assertEqual(sorted(n for n in os.listdir(self.tmp) if not n.startswith("job_")),
                         ["run"])


class FaultTest(Scratch):
    CRASH = """
        import ctypes, os
        print(os.getpid(), flush=True)
        def write_the_shards():
            ctypes.string_at(0)
        write_the_shards()
    """

    def test_segfault_frames_go_to_the_faults_file_and_the_death_is_unchanged(self):
        done = self.run_job(self.CRASH, job_env(self.run_dir))
        self.assertEqual(done.returncode, -signal.SIGSEGV, done.stderr)
        pid = int(done.stdout.split()[0])
        faults = read(os.path.join(self.run_dir, "python-faults.%d.txt" % pid))
        self.assertIsNotNone(faults)
        self.assertIn("Fatal Python error: Segmentation fault", faults)
        self.assertRegex(faults, r'File "[^"]+job_\d+\.py", line 5 in write_the_shards')
        self.assertRegex(faults, r'File "[^"]+job_\d+\.py", line 6 in <module>')
        self.assertNotIn("Fatal Python error", done.stderr)

    def test_x_faulthandler_on_the_command_line_is_the_users(self):
        script = self.write("crash.py", self.CRASH)
        done = subprocess.run([PYTHON, "-X", "faulthandler", script], env=job_env(self.run_dir),
                              capture_output=True, text=True, timeout=120, preexec_fn=no_core)
        self.assertEqual(done.returncode, -signal.SIGSEGV)
        self.assertIn("in write_the_shards", done.stderr)
        self.assertIn("faulthandler user", probe_lines(self.run_dir, int(done.stdout.split()[0])))

    def test_faulthandler_set_by_the_user_is_left_alone(self):
        env = job_env(self.run_dir, FTDIAG_USER_FAULTHANDLER="1")
        done = self.run_job(self.CRASH, env)
        self.assertEqual(done.returncode, -signal.SIGSEGV)
        pid = int(done.stdout.split()[0])
        self.assertIn("Fatal Python error: Segmentation fault", done.stderr)
        self.assertIn("in write_the_shards", done.stderr)
        self.assertIn("faulthandler user", probe_lines(self.run_dir, pid))
        self.assertFalse(read(os.path.join(self.run_dir, "python-faults.%d.txt" % pid)))


class StackRequestTest(Scratch):
    def start_waiting_job(self, code, env, preexec=None):
        script = self.write("waiting_job.py", code)
        job = subprocess.Popen([PYTHON, script], env=env, cwd=self.tmp, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=preexec)
        self.addCleanup(self.finish, job)
        return job

    def finish(self, job):
        if job.poll() is None:
            job.kill()
        job.communicate(timeout=WAIT_S)

    def readline(self, job):
        ready, _, _ = select.select([job.stdout], [], [], WAIT_S)
        self.assertTrue(ready, "the job printed nothing in %s s" % WAIT_S)
        return job.stdout.readline()

    WAITS = """
        import os, sys, threading
        def consolidate_state_dict_for_save():
            print("ready", os.getpid(), flush=True)
            return sys.stdin.read()
        def background_prefetch(started, stop):
            started.set()
            stop.wait()
        started, stop = threading.Event(), threading.Event()
        thread = threading.Thread(target=background_prefetch, args=(started, stop))
        thread.start()
        started.wait()
        consolidate_state_dict_for_save()
        stop.set()
        thread.join()
        print("done", flush=True)
    """

    def test_the_stack_signal_dumps_every_threads_python_stack(self):
        job = self.start_waiting_job(self.WAITS, job_env(self.run_dir))
        word, pid = self.readline(job).split()
        self.assertEqual((word, int(pid)), ("ready", job.pid))
        number = stack_signal_of(self.run_dir, job.pid)
        self.assertEqual(number, signal.SIGRTMIN + 7)
        # What ftdiag can check before sending: the process catches the signal.
        self.assertTrue(caught_signals(job.pid) & (1 << (number - 1)))
        os.kill(job.pid, number)
        stacks = wait_for_text(os.path.join(self.run_dir, "python-stacks.%d.txt" % job.pid),
                               "consolidate_state_dict_for_save")
        self.assertIn("consolidate_state_dict_for_save", stacks or "")
        # Line 4 or 5: the signal may come before the frame has left the print.
        self.assertRegex(stacks, r'File "[^"]+waiting_job\.py", line [45] in consolidate_state_dict_for_save')
        self.assertRegex(stacks, r'File "[^"]+waiting_job\.py", line 8 in background_prefetch')
        self.assertIn("Current thread", stacks)
        self.assertEqual(stacks.count("Thread 0x") + stacks.count("Current thread 0x"), 2)
        # The job did not notice: it goes on and ends normally.
        out, err = job.communicate("", timeout=WAIT_S)
        self.assertEqual(job.returncode, 0, err)
        self.assertEqual(out, "done\n")

    def test_a_signal_the_job_already_owns_is_not_taken(self):
        taken = signal.SIGRTMIN + 7

        def ignore_it():  # an ignored disposition survives exec
            signal.signal(taken, signal.SIG_IGN)

        job = self.start_waiting_job(self.WAITS, job_env(self.run_dir), preexec=ignore_it)
        self.readline(job)
        self.assertEqual(stack_signal_of(self.run_dir, job.pid), taken + 1)
        job.communicate("", timeout=WAIT_S)

    def test_ftdiag_stack_signal_names_the_signal(self):
        wanted = signal.SIGRTMIN + 3
        job = self.start_waiting_job(self.WAITS, job_env(self.run_dir, FTDIAG_STACK_SIGNAL=str(wanted)))
        self.readline(job)
        self.assertEqual(stack_signal_of(self.run_dir, job.pid), wanted)
        os.kill(job.pid, wanted)
        stacks = wait_for_text(os.path.join(self.run_dir, "python-stacks.%d.txt" % job.pid),
                               "consolidate_state_dict_for_save")
        self.assertIn("consolidate_state_dict_for_save", stacks or "")
        job.communicate("", timeout=WAIT_S)
        self.assertEqual(job.returncode, 0)

    def test_a_forked_child_has_its_own_files(self):
        job = self.start_waiting_job("""
            import os, sys
            def in_the_forked_worker():
                print("ready", os.getpid(), flush=True)
                sys.stdin.read()
            def in_the_parent(child):
                os.waitpid(child, 0)
            child = os.fork()
            if child == 0:
                try:
                    in_the_forked_worker()
                finally:
                    os._exit(0)
            in_the_parent(child)
        """, job_env(self.run_dir, RANK="5"))
        word, child = self.readline(job).split()
        child = int(child)
        self.assertNotEqual(child, job.pid)
        parent_lines = probe_lines(self.run_dir, job.pid)
        child_lines = probe_lines(self.run_dir, child)
        self.assertIsNotNone(child_lines)
        self.assertEqual(child_lines[:4], ["probe 1", "pid %d" % child, "parent %d" % job.pid, "rank 5"])
        self.assertIn("rank 5", parent_lines)
        number = stack_signal_of(self.run_dir, child)
        self.assertEqual(number, stack_signal_of(self.run_dir, job.pid))
        self.assertTrue(os.path.exists(os.path.join(self.run_dir, "python-faults.%d.txt" % child)))
        os.kill(child, number)
        child_stacks = wait_for_text(os.path.join(self.run_dir, "python-stacks.%d.txt" % child),
                                     "in_the_forked_worker")
        self.assertIn("in_the_forked_worker", child_stacks or "")
        self.assertEqual(read(os.path.join(self.run_dir, "python-stacks.%d.txt" % job.pid)), "")
        os.kill(job.pid, number)
        parent_stacks = wait_for_text(os.path.join(self.run_dir, "python-stacks.%d.txt" % job.pid),
                                      "in_the_parent")
        self.assertIn("in_the_parent", parent_stacks or "")
        self.assertNotIn("in_the_parent", read(os.path.join(self.run_dir, "python-stacks.%d.txt" % child)))
        job.communicate("", timeout=WAIT_S)
        self.assertEqual(job.returncode, 0)


class MarkerSocket:
    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)

    def drain(self):
        """Every datagram queued (the job has exited, so all were sent)."""
        self.sock.setblocking(False)
        messages = []
        while True:
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                return messages
            messages.append(json.loads(data.decode("utf-8")))

    def close(self):
        self.sock.close()


class MarkerTestBase(Scratch):
    def setUp(self):
        super().setUp()
        self.socket = MarkerSocket(os.path.join(self.run_dir, "probe.sock"))
        self.addCleanup(self.socket.close)

    def phases(self, messages):
        return [m for m in messages if m["marker"] in ("begin", "end")]

    def check_common(self, messages, pid, rank):
        for m in messages:
            self.assertEqual(m["v"], 1)
            self.assertEqual(m["pid"], pid)
            self.assertEqual(m["rank"], rank)
            self.assertIsInstance(m["time"], float)
            self.assertLess(abs(m["time"] - time.time()), 600)
        self.assertEqual(messages[0], {"v": 1, "pid": pid, "rank": rank, "time": messages[0]["time"],
                                       "marker": "hello", "phase": None, "what": "python"})


@unittest.skipUnless(TORCH, TORCH_SKIP)
class TorchMarkerTest(MarkerTestBase):
    def test_big_torch_save_and_load_are_phases_small_ones_are_not(self):
        env = job_env(self.run_dir, self.socket.path, RANK="3")
        done = self.run_job("""
            import inspect, os, torch
            big = {"model": {"w": torch.zeros(64 << 20, dtype=torch.uint8)}, "epoch": 3}
            small = {"w": torch.zeros(10)}
            torch.save(small, "small.pt")
            torch.save(big, "big.pt")
            loaded = torch.load("big.pt")
            assert loaded["model"]["w"].numel() == 64 << 20 and loaded["epoch"] == 3
            torch.load("small.pt")
            try:
                torch.save(big, "no/such/folder/big.pt")
            except Exception as exc:
                print("raised", type(exc).__name__)
            print("signature", inspect.signature(torch.save) == inspect.signature(torch.save.__wrapped__))
            print("same", torch.save is torch.serialization.save, torch.load is torch.serialization.load)
            print("pid", os.getpid())
        """, env)
        self.assertEqual(done.returncode, 0, done.stderr)
        out = dict(line.split(" ", 1) for line in done.stdout.splitlines())
        pid = int(out["pid"])
        self.assertEqual(out["signature"], "True")
        self.assertEqual(out["same"], "True True")
        self.assertIn(out["raised"], ("RuntimeError", "FileNotFoundError", "OSError"))
        messages = self.socket.drain()
        self.check_common(messages, pid, 3)
        got = [(m["marker"], m["phase"], m["what"], m.get("error")) for m in self.phases(messages)]
        self.assertEqual(got, [
            ("begin", "checkpoint-save", "torch.save", None),
            ("end", "checkpoint-save", "torch.save", None),
            ("begin", "model-load", "torch.load", None),
            ("end", "model-load", "torch.load", None),
            ("begin", "checkpoint-save", "torch.save", None),
            ("end", "checkpoint-save", "torch.save", out["raised"]),
        ])
        begin, end = self.phases(messages)[:2]
        self.assertLessEqual(begin["time"], end["time"])
        self.assertEqual(sorted(begin), ["marker", "phase", "pid", "rank", "time", "v", "what"])

    def test_a_module_is_measured_by_its_parameters(self):
        done = self.run_job("""
            import torch
            torch.save(torch.nn.Linear(4096, 4096), "linear.pt")   # 64 MiB of float32 weights
            torch.save(torch.nn.Linear(16, 16), "tiny.pt")
        """, job_env(self.run_dir, self.socket.path))
        self.assertEqual(done.returncode, 0, done.stderr)
        got = [(m["marker"], m["what"]) for m in self.phases(self.socket.drain())]
        self.assertEqual(got, [("begin", "torch.save"), ("end", "torch.save")])


@unittest.skipUnless(TORCH, TORCH_SKIP)
class DataLoaderWorkerTest(MarkerTestBase):
    def test_forked_dataloader_workers_each_have_a_probe(self):
        done = self.run_job("""
            import os, torch
            from torch.utils.data import DataLoader, Dataset
            class Pids(Dataset):
                def __len__(self):
                    return 8
                def __getitem__(self, i):
                    return os.getpid()
            loader = DataLoader(Pids(), batch_size=1, num_workers=2,
                                multiprocessing_context="fork")
            workers = sorted({int(batch) for batch in loader})
            print(os.getpid(), *workers)
        """, job_env(self.run_dir, self.socket.path, LOCAL_RANK="1"))
        self.assertEqual(done.returncode, 0, done.stderr)
        main_pid, *workers = map(int, done.stdout.split())
        self.assertEqual(len(workers), 2)
        hellos = {m["pid"]: m for m in self.socket.drain() if m["marker"] == "hello"}
        self.assertEqual(set(hellos), {main_pid, *workers})
        for pid in workers:
            lines = probe_lines(self.run_dir, pid)
            self.assertEqual(lines[:4], ["probe 1", "pid %d" % pid, "parent %d" % main_pid, "rank 1"])
            self.assertIsNotNone(stack_signal_of(self.run_dir, pid))
            self.assertTrue(os.path.exists(os.path.join(self.run_dir, "python-faults.%d.txt" % pid)))
            self.assertTrue(os.path.exists(os.path.join(self.run_dir, "python-stacks.%d.txt" % pid)))
            self.assertEqual(hellos[pid]["rank"], 1)


class HookMechanismTest(MarkerTestBase):
    """The import hook and the wrapping, on a tiny local module `fakefw.engine`
    that the job itself adds to ftdiag_probe.HOOKS before importing it. This
    tests the mechanism only; it is NOT a test against transformers, deepspeed,
    accelerate or lightning (none is installed here)."""

    FRAMEWORK = """
        class Engine:
            def save_checkpoint(self, folder, tag=None, *, client_state=None):
                '''Saves.'''
                return ("saved", folder, tag, client_state)

            def load_checkpoint(self, folder):
                raise KeyError(folder)

            @staticmethod
            def consolidate(x):
                return x * 2

            @classmethod
            def build(cls):
                return cls()

        class Subclass(Engine):
            def save_checkpoint(self, folder, tag=None, *, client_state=None):
                return super().save_checkpoint(folder, tag, client_state=client_state)
    """

    def test_entry_points_are_wrapped_after_import(self):
        self.write("fw/fakefw/__init__.py", "")
        self.write("fw/fakefw/engine.py", self.FRAMEWORK)
        env = job_env(self.run_dir, self.socket.path, extra_path=[os.path.join(self.tmp, "fw")])
        done = self.run_job("""
            import importlib.machinery, inspect, os, sys
            import ftdiag_probe
            ftdiag_probe.HOOKS["fakefw.engine"] = [
                ("Engine.save_checkpoint", "checkpoint-save", "fakefw.Engine.save_checkpoint", None),
                ("Engine.load_checkpoint", "model-load", "fakefw.Engine.load_checkpoint", None),
                ("Engine.consolidate", "checkpoint-save", "fakefw.Engine.consolidate", None),
                ("Engine.build", "evaluation", "fakefw.Engine.build", None),
                ("Engine.absent_in_this_version", "evaluation", "fakefw.absent", None),
                ("NoSuchClass.method", "evaluation", "fakefw.none", None),
            ]
            assert "fakefw.engine" not in sys.modules
            from fakefw import engine
            e = engine.Engine.build()
            print("return", e.save_checkpoint("ckpt", 7, client_state={"a": 1}))
            print("sub", engine.Subclass().save_checkpoint("sub"))
            print("static", engine.Engine.consolidate(21))
            try:
                e.load_checkpoint("missing")
            except KeyError as exc:
                print("raised", repr(exc))
            f = engine.Engine.save_checkpoint
            print("name", f.__name__, f.__qualname__, f.__doc__)
            print("signature", inspect.signature(f))
            print("loader", type(engine.__loader__).__name__,
                  isinstance(engine.__spec__.loader, importlib.machinery.SourceFileLoader),
                  "exec_module" in vars(engine.__loader__))
            print("source", "def load_checkpoint" in inspect.getsource(engine))
            print("pid", os.getpid())
        """, env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr, "")
        out = dict(line.split(" ", 1) for line in done.stdout.splitlines())
        self.assertEqual(out["return"], "('saved', 'ckpt', 7, {'a': 1})")
        self.assertEqual(out["sub"], "('saved', 'sub', None, None)")
        self.assertEqual(out["static"], "42")
        self.assertEqual(out["raised"], "KeyError('missing')")
        self.assertEqual(out["name"], "save_checkpoint Engine.save_checkpoint Saves.")
        self.assertEqual(out["signature"], "(self, folder, tag=None, *, client_state=None)")
        self.assertEqual(out["loader"], "SourceFileLoader True False")
        self.assertEqual(out["source"], "True")
        messages = self.socket.drain()
        self.check_common(messages, int(out["pid"]), None)
        got = [(m["marker"], m["phase"], m["what"], m.get("error")) for m in self.phases(messages)]
        self.assertEqual(got, [
            ("begin", "evaluation", "fakefw.Engine.build", None),
            ("end", "evaluation", "fakefw.Engine.build", None),
            ("begin", "checkpoint-save", "fakefw.Engine.save_checkpoint", None),
            ("end", "checkpoint-save", "fakefw.Engine.save_checkpoint", None),
            ("begin", "checkpoint-save", "fakefw.Engine.save_checkpoint", None),
            ("end", "checkpoint-save", "fakefw.Engine.save_checkpoint", None),
            ("begin", "checkpoint-save", "fakefw.Engine.consolidate", None),
            ("end", "checkpoint-save", "fakefw.Engine.consolidate", None),
            ("begin", "model-load", "fakefw.Engine.load_checkpoint", None),
            ("end", "model-load", "fakefw.Engine.load_checkpoint", "KeyError"),
        ])
        lines = probe_lines(self.run_dir, int(out["pid"]))
        self.assertFalse([line for line in lines if line.startswith("error")], lines)

    def test_the_probe_imports_nothing_heavy(self):
        # What the probe adds to sys.modules, against the same interpreter
        # without it: its own package and the C half of socket, nothing else.
        code = "import sys; print(' '.join(sorted(sys.modules)))"
        with_probe = self.run_job(code, job_env(self.run_dir, self.socket.path))
        bare = self.run_job(code, job_env(None, PYTHONPATH=None))
        self.assertEqual(with_probe.returncode, 0, with_probe.stderr)
        added = set(with_probe.stdout.split()) - set(bare.stdout.split())
        self.assertLessEqual(added, {"ftdiag_probe", "_socket", "sitecustomize"})
        for heavy in ("torch", "transformers", "deepspeed", "accelerate", "numpy", "json", "socket"):
            self.assertNotIn(heavy, with_probe.stdout.split())


class FailureIsolationTest(Scratch):
    MANY_MARKERS = """
        import os, sys
        import ftdiag_probe
        ftdiag_probe.HOOKS["markmod"] = [("work", "evaluation", "markmod.work", None)]
        sys.path.insert(0, os.getcwd())
        with open("markmod.py", "w") as f:
            f.write("def work(i):\\n    return i + 1\\n")
        import markmod
        print(sum(markmod.work(i) for i in range(100)), os.getpid())
    """

    def check_job_unharmed(self, env, socket_error):
        done = self.run_job(self.MANY_MARKERS, env)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr, "")
        total, pid = done.stdout.split()
        self.assertEqual(total, "5050")
        lines = probe_lines(self.run_dir, int(pid))
        errors = [line for line in lines if line.startswith("error")]
        self.assertEqual(len(errors), 1, lines)  # counted once, however many markers failed
        self.assertTrue(errors[0].startswith("error socket: " + socket_error), errors)
        self.assertIsNotNone(stack_signal_of(self.run_dir, int(pid)))

    def test_a_socket_that_does_not_exist(self):
        self.check_job_unharmed(job_env(self.run_dir, os.path.join(self.tmp, "nowhere", "sock")),
                                "FileNotFoundError")

    def test_a_socket_path_that_is_not_a_socket(self):
        path = self.write("not-a-socket", "plain file\n")
        self.check_job_unharmed(job_env(self.run_dir, path), "ConnectionRefusedError")

    def test_a_socket_nobody_reads_any_more(self):
        sock = MarkerSocket(os.path.join(self.run_dir, "probe.sock"))
        sock.close()  # bound, then closed: the file stays, nobody listens
        self.check_job_unharmed(job_env(self.run_dir, sock.path), "ConnectionRefusedError")

    def test_a_run_folder_that_cannot_be_written(self):
        missing = os.path.join(self.tmp, "gone")
        done = self.run_job("import os; print('ran', os.getpid())",
                            job_env(missing, os.path.join(self.tmp, "sock")))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr, "")
        self.assertTrue(done.stdout.startswith("ran "))
        self.assertFalse(os.path.exists(missing))

    def test_a_bad_stack_signal_setting_disables_only_that_part(self):
        done = self.run_job("import os; print(os.getpid())",
                            job_env(self.run_dir, FTDIAG_STACK_SIGNAL="9"))
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = probe_lines(self.run_dir, int(done.stdout))
        self.assertIsNone(stack_signal_of(self.run_dir, int(done.stdout)))
        self.assertTrue(any(line.startswith("error stack-signal: ValueError") for line in lines), lines)


def main():
    program = unittest.main(exit=False, verbosity=2)
    result = program.result
    if not result.wasSuccessful():
        sys.exit(1)
    if any(reason == TORCH_SKIP for _, reason in result.skipped):
        print("SKIP: " + TORCH_SKIP + ": the torch marker tests did not run", file=sys.stderr)
        sys.exit(77)
    sys.exit(0)


if __name__ == "__main__":
    main()
