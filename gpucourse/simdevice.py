"""A simulated asynchronous device, so that the GPU timing trap can be seen and graded on a CPU.

A real GPU runs work *asynchronously*: ``y = a @ b`` on CUDA only puts a kernel in a queue and
returns; the host learns that the work is done when it synchronizes (``torch.cuda.synchronize``,
``.item()``, a blocking copy to the CPU). :class:`SimDevice` behaves the same way with work whose
duration the caller chooses::

    sim = SimDevice()
    kernel = sim.launch(ms=100)   # returns at once; a worker thread "runs" it for 100 ms
    sim.synchronize()             # waits until everything queued has finished
    kernel.duration_ms            # what the device really spent, measured on the worker

:func:`simulated_accelerator` plugs a ``SimDevice`` in where ``torch.cuda`` (or ``torch.mps``) would be:
``torch.cuda.is_available()`` says True, ``torch.cuda.synchronize`` drains the simulated queue and
``torch.cuda.Event(enable_timing=True)`` records time stamps *on the simulated device*. Test cells use it
to grade a student's ``synchronize``, ``time_ms`` and ``time_ms_cuda_events`` by what they do, on a
CPU-only grader and on a GPU alike. With ``kind=None`` it does the opposite: no accelerator at all, and
any attempt to synchronize one raises the error a CPU-only PyTorch raises.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import time
import timeit
from unittest import mock

import torch

from .fakes import fake_accelerators

__all__ = ["Kernel", "SimDevice", "SimEvent", "SimStream", "simulated_accelerator", "naive_and_synchronized",
           "Workload", "HostWorkload"]


class Kernel:
    """One piece of queued work: its nominal duration, and when the device really ran it."""

    def __init__(self, ms: float, fn=None, name: str = "kernel"):
        self.ms = float(ms)
        self.fn = fn
        self.name = name
        self.started: float | None = None   # time.perf_counter() seconds, on the worker
        self.finished: float | None = None
        self.value = None
        self.error: BaseException | None = None
        self.done = threading.Event()

    @property
    def duration_ms(self) -> float:
        """Milliseconds the device spent on this kernel (only once it has finished)."""
        if not self.done.is_set():
            raise RuntimeError(f"{self.name} has not finished: synchronize first")
        return (self.finished - self.started) * 1e3

    def result(self):
        """Wait for this kernel and return what its ``fn`` returned: an implicit sync, like ``.item()``."""
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value

    def __repr__(self) -> str:
        state = f"{self.duration_ms:.1f} ms" if self.done.is_set() else "queued"
        return f"<Kernel {self.name}: {self.ms:g} ms requested, {state}>"


class SimDevice:
    """A device with one in-order queue (like one CUDA stream) served by a worker thread.

    ``launch`` returns at once; ``synchronize`` blocks until the queue is empty. The worker runs
    each kernel's ``fn`` (if any), then sleeps until ``ms`` milliseconds have passed since the
    kernel started, so durations are what the caller asked for (a little more on a busy machine;
    :attr:`Kernel.duration_ms` says exactly how much).
    """

    def __init__(self, name: str = "simulated GPU"):
        self.name = name
        self.kernels: list[Kernel] = []
        self.sync_calls: list[str] = []   # who synchronized, in order
        self._queue: queue.Queue = queue.Queue()
        self._errors: list[BaseException] = []
        self._closed = False
        self._worker = threading.Thread(target=self._serve, name=f"{name} worker", daemon=True)
        self._worker.start()

    # -- the device side ---------------------------------------------------------------------
    def _serve(self) -> None:
        while True:
            kernel = self._queue.get()
            if kernel is None:
                self._queue.task_done()
                return
            kernel.started = time.perf_counter()
            try:
                if kernel.fn is not None:
                    kernel.value = kernel.fn()
            except BaseException as error:  # surfaces at the next synchronize, as CUDA errors do
                kernel.error = error
                self._errors.append(error)
            remaining = kernel.ms / 1e3 - (time.perf_counter() - kernel.started)
            if remaining > 0:
                time.sleep(remaining)
            kernel.finished = time.perf_counter()
            kernel.done.set()
            self._queue.task_done()

    # -- the host side -----------------------------------------------------------------------
    def launch(self, ms: float, fn=None, name: str = "kernel") -> Kernel:
        """Queue work that keeps the device busy for ``ms`` milliseconds; return at once."""
        if self._closed:
            raise RuntimeError(f"{self.name} is closed")
        if ms < 0:
            raise ValueError("a kernel cannot take negative time")
        kernel = Kernel(ms, fn, name)
        self.kernels.append(kernel)
        self._queue.put(kernel)
        return kernel

    def copy_async(self, dst: torch.Tensor, src: torch.Tensor, ms: float, name: str = "copy") -> Kernel:
        """Queue ``dst.copy_(src)`` to happen on the device after ``ms`` milliseconds; return at once.

        Reading ``dst`` before a synchronize shows whatever it held before: the non_blocking hazard.
        """
        def copy():
            time.sleep(ms / 1e3)
            dst.copy_(src)
        return self.launch(ms, copy, name)

    def synchronize(self, *_args, caller: str = "synchronize", **_kwargs) -> None:
        """Block until every queued kernel has finished (extra arguments, like a device, are ignored)."""
        self.sync_calls.append(caller)
        self._queue.join()
        if self._errors:
            error, self._errors = self._errors[0], []
            raise RuntimeError(f"a kernel on {self.name} failed: {error!r}") from error

    def drain(self) -> None:
        """Wait for the queue without counting as a synchronize call (for test clean-up)."""
        self._queue.join()
        self._errors.clear()

    @property
    def pending(self) -> int:
        """Kernels queued or running."""
        return self._queue.unfinished_tasks

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._queue.put(None)
            self._worker.join(timeout=30)

    def __enter__(self) -> SimDevice:
        return self

    def __exit__(self, *exc) -> None:
        self.drain()
        self.close()

    def __repr__(self) -> str:
        return f"<SimDevice {self.name!r}: {self.pending} pending, {len(self.kernels)} launched>"


class SimEvent:
    """A stand-in for ``torch.cuda.Event`` whose time stamps are taken on a :class:`SimDevice`.

    Like the real one: ``record()`` queues a marker and returns at once; the time stamp exists once
    the device reaches the marker; ``elapsed_time(end)`` is in milliseconds and raises unless both
    events were created with ``enable_timing=True``, were recorded, and have completed.
    """

    device: SimDevice | None = None  # set by the subclass that simulated_accelerator makes

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False,
                 external: bool = False, device: SimDevice | None = None):
        self.enable_timing = bool(enable_timing)
        self.blocking = blocking
        self._device = device or type(self).device
        if self._device is None:
            raise RuntimeError("SimEvent needs a SimDevice")
        self._marker: Kernel | None = None
        self.records = 0

    def record(self, stream=None) -> None:
        self._marker = self._device.launch(0, name="event")
        self.records += 1

    def query(self) -> bool:
        return self._marker is None or self._marker.done.is_set()

    def synchronize(self) -> None:
        self._device.sync_calls.append("Event.synchronize")
        if self._marker is not None:
            self._marker.done.wait()

    def wait(self, stream=None) -> None:
        pass

    def elapsed_time(self, end_event: SimEvent) -> float:
        if not (self.enable_timing and getattr(end_event, "enable_timing", False)):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._marker is None or getattr(end_event, "_marker", None) is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        if not (self.query() and end_event.query()):
            raise RuntimeError("CUDA error: device not ready (the events have not completed yet: "
                               "synchronize before elapsed_time)")
        return (end_event._marker.started - self._marker.started) * 1e3

    def __repr__(self) -> str:
        return f"<simulated torch.cuda.Event enable_timing={self.enable_timing}>"


class SimStream:
    """A stand-in for ``torch.cuda.current_stream()``: its ``synchronize`` drains the device."""

    def __init__(self, device: SimDevice):
        self.device = device

    def synchronize(self) -> None:
        self.device.synchronize(caller="Stream.synchronize")

    def query(self) -> bool:
        return self.device.pending == 0

    def record_event(self, event=None):
        event = event if event is not None else SimEvent(device=self.device)
        event.record(self)
        return event

    def wait_event(self, event) -> None:
        pass

    def wait_stream(self, stream) -> None:
        pass


def _absent(what: str):
    def fail(*_args, **_kwargs):
        raise RuntimeError(f"{what}: no such accelerator on this machine (simulated CPU-only PyTorch)")
    return fail


@contextlib.contextmanager
def simulated_accelerator(kind: str | None = "cuda", sim: SimDevice | None = None):
    """Make ``torch`` see one simulated accelerator (``"cuda"`` or ``"mps"``) or none (``None``).

    Yields the :class:`SimDevice` (made here and closed on exit unless one is given). Patched:
    ``torch.cuda.is_available / device_count / synchronize / Event / current_stream``,
    ``torch.backends.mps.is_available``, ``torch.mps.synchronize``, ``torch.accelerator.is_available /
    synchronize``, and every device query :func:`gpucourse.fakes.fake_accelerators` fakes. The accelerator
    that is absent raises on synchronize, as CPU-only PyTorch does, so a grader gives the same verdict
    whether or not it has a real GPU. ``sim.sync_calls`` lists every synchronize that reached the device.
    """
    if kind not in ("cuda", "mps", None):
        raise ValueError("kind must be 'cuda', 'mps' or None")
    own = sim is None
    sim = sim or SimDevice(f"simulated {kind or 'nothing'}")
    cuda, mps = kind == "cuda", kind == "mps"
    Event = type("Event", (SimEvent,), {"device": sim, "__module__": "torch.cuda (simulated)"})

    def sync(name):
        def synchronize(*args, **kwargs):
            sim.synchronize(caller=name)
        return synchronize

    patches = [
        mock.patch.object(torch.cuda, "is_available", lambda: cuda),
        mock.patch.object(torch.cuda, "device_count", lambda: 1 if cuda else 0),
        mock.patch.object(torch.cuda, "synchronize", sync("torch.cuda.synchronize") if cuda
                          else _absent("torch.cuda.synchronize")),
        mock.patch.object(torch.cuda, "Event", Event if cuda else _absent("torch.cuda.Event")),
        mock.patch.object(torch.cuda, "current_stream", (lambda device=None: SimStream(sim)) if cuda
                          else _absent("torch.cuda.current_stream")),
        mock.patch.object(torch.backends.mps, "is_available", lambda: mps),
        mock.patch.object(torch.backends.mps, "is_built", lambda: mps),
        mock.patch.object(torch.mps, "synchronize", sync("torch.mps.synchronize") if mps
                          else _absent("torch.mps.synchronize")),
    ]
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None:
        patches.append(mock.patch.object(accelerator, "is_available", lambda: kind is not None))
        if hasattr(accelerator, "synchronize"):
            patches.append(mock.patch.object(accelerator, "synchronize", sync("torch.accelerator.synchronize")
                                             if kind else _absent("torch.accelerator.synchronize")))
    try:
        with contextlib.ExitStack() as stack:
            # every other device query (torch.accelerator.current_accelerator, torch.mps, ...) agrees
            stack.enter_context(fake_accelerators(cuda=cuda, mps=mps))
            for patch in patches:
                stack.enter_context(patch)
            yield sim
    finally:
        sim.drain()
        if own:
            sim.close()


def naive_and_synchronized(sim: SimDevice, ms: float) -> dict:
    """Time one ``ms``-millisecond kernel twice: naively, and synchronized at both ends.

    Returns ``{"naive_ms", "synchronized_ms", "true_ms"}`` where true_ms is what the device spent on
    the synchronized run's kernel. The naive reading is the time to *queue* the work.
    """
    sim.drain()
    start = time.perf_counter()
    sim.launch(ms, name="naive")
    naive = (time.perf_counter() - start) * 1e3
    sim.drain()
    sim.synchronize(caller="naive_and_synchronized")
    start = time.perf_counter()
    kernel = sim.launch(ms, name="synchronized")
    sim.synchronize(caller="naive_and_synchronized")
    synchronized = (time.perf_counter() - start) * 1e3
    return {"naive_ms": naive, "synchronized_ms": synchronized, "true_ms": kernel.duration_ms}


class Workload:
    """A no-argument ``fn()`` for timing tests: each call queues one kernel on ``sim`` and returns at once.

    The first ``warmup_calls`` calls take ``warmup_ms`` each (a slow first call, like cuBLAS set-up or
    autotuning); later calls cycle through ``durations``. ``kernels`` holds every kernel launched, so
    a test can compare a student's timings with what the device really spent.
    """

    def __init__(self, sim: SimDevice, durations=(40.0,), warmup_ms: float | None = None, warmup_calls: int = 0):
        self.sim = sim
        self.durations = [float(d) for d in durations]
        self.warmup_ms = float(warmup_ms if warmup_ms is not None else self.durations[0])
        self.warmup_calls = int(warmup_calls)
        self.kernels: list[Kernel] = []

    @property
    def calls(self) -> int:
        return len(self.kernels)

    def __call__(self) -> Kernel:
        i = self.calls
        if i < self.warmup_calls:
            ms = self.warmup_ms
        else:
            ms = self.durations[(i - self.warmup_calls) % len(self.durations)]
        kernel = self.sim.launch(ms, name=f"call {i}")
        self.kernels.append(kernel)
        return kernel

    def true_ms(self, skip: int = 0) -> list[float]:
        """What the device spent on each call after the first ``skip`` (waits for them)."""
        for kernel in self.kernels:
            kernel.done.wait()
        return [k.duration_ms for k in self.kernels[skip:]]


class HostWorkload:
    """A no-argument ``fn()`` that works on the host (a sleep) for a chosen time: CPU work is synchronous."""

    def __init__(self, durations=(30.0,)):
        self.durations = [float(d) for d in durations]
        self.spent_ms: list[float] = []

    @property
    def calls(self) -> int:
        return len(self.spent_ms)

    def __call__(self) -> None:
        ms = self.durations[self.calls % len(self.durations)]
        start = time.perf_counter()
        time.sleep(ms / 1e3)
        self.spent_ms.append((time.perf_counter() - start) * 1e3)


class VirtualTime:
    """Time that moves only with the work, for checking a timing function exactly: the simulated GPU (``torch.cuda``
    inside :meth:`active`) runs what a call queues in known seconds, a call on the CPU takes its seconds at once,
    synchronize waits for the GPU, and ``time.perf_counter()`` (``perf_counter_ns`` too, and a name in ``namespace``
    bound to either, as ``from time import perf_counter`` binds it) reads this host's time, in this thread only.
    ``namespace`` defaults to the notebook's (``__main__``, where a student's answer looks its names up): a check
    that names no ``globals()`` lets the judge see which names it reads (graders/qa/reach.py)."""

    def __init__(self):
        self.host = self.free = 0.0

    def run(self, seconds: float, device) -> None:
        """A call of ``seconds`` on ``device``: queued on the GPU (a microsecond on the host), or the host's own."""
        if torch.device(device).type == "cuda":
            self.free = max(self.free, self.host) + seconds
            self.host += 1e-6
        else:
            self.host += seconds

    def synchronize(self, *args, **kwargs) -> None:  # what simulated_accelerator's synchronize calls
        self.host = max(self.host, self.free)

    def drain(self) -> None:
        pass

    def close(self) -> None:
        pass

    @contextlib.contextmanager
    def active(self, namespace: dict | None = None):
        if namespace is None:
            namespace = vars(sys.modules["__main__"])
        thread, real, real_ns = threading.get_ident(), time.perf_counter, time.perf_counter_ns
        fake = {real: lambda: self.host if threading.get_ident() == thread else real(),
                real_ns: lambda: round(self.host * 1e9) if threading.get_ident() == thread else real_ns()}
        with contextlib.ExitStack() as stack:
            stack.enter_context(simulated_accelerator("cuda", sim=self))
            for names in (vars(time), vars(timeit), namespace):
                for name, value in list(names.items()):
                    if value is real or value is real_ns:
                        stack.callback(names.__setitem__, name, value)
                        names[name] = fake[value]
            yield self
