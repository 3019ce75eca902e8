"""Train Differentiable Logic Cellular Automata fast on a CPU, from Python.

The trainer is the Rust library of the ``logicars`` command, called in-process: the same
presets, knobs, checks and model files, and the same result for the same seed, bit for
bit. Grids go in and come out as NumPy arrays of 0s and 1s.

>>> import logicars
>>> run = logicars.train("checkerboard")
>>> run.exact
True
>>> frames = run.model.rollout(size=(32, 32), steps=40)   # (41, 32, 32, 8) uint8
>>> verilog = run.model.export("verilog")
"""

from __future__ import annotations

import html
import itertools
import json
import math
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any, Callable, NamedTuple, Optional, Union

import numpy as np

from . import _native

__all__ = [
    "Epoch",
    "Model",
    "Run",
    "Sweep",
    "SweepRun",
    "knobs",
    "presets",
    "sweep",
    "tasks",
    "train",
]

__version__ = "0.1.0"

#: How often the waiting thread wakes to draw progress and notice Ctrl-C, in seconds.
_POLL_SECONDS = 0.1


class Epoch(NamedTuple):
    """One training epoch, as a ``progress`` callback of :func:`train` receives it."""

    attempt: int
    epoch: int
    epochs: int
    soft_loss: float
    hard_loss: float
    accuracy: float


class SweepRun(NamedTuple):
    """One finished run of a sweep, as a ``progress`` callback of :func:`sweep` receives it."""

    setting: str
    seed: int
    exact: bool
    seconds: float


Progress = Union[bool, None, Callable[[Any], Optional[bool]]]


def tasks() -> list[str]:
    """The task names, as ``logicars train`` takes them."""
    return list(_native.presets().keys())


def presets(small: bool = False) -> dict[str, dict[str, Any]]:
    """Every task's preset: ``{task: {knob: value}}`` (the ``small`` presets if asked).

    The keys are the knobs' names as :func:`knobs` lists them (``weight-decay``); as
    keyword arguments of :func:`train` they are written with underscores.
    """
    return dict(_native.presets(small))


def knobs() -> list[dict[str, Any]]:
    """Every training knob, from the one table the command's flags come from.

    Each entry has ``key`` (``weight-decay``; ``weight_decay=`` in :func:`train`),
    ``help``, ``accepts`` (every value a run takes) and ``defaults``: for each task, its
    preset's value and the small preset's.
    """
    return [dict(k) for k in _native.knobs()]


def _knob_text(value: Any) -> str:
    """A knob's value as the command line writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    return str(value)


def _knob_settings(given: dict[str, Any]) -> list[tuple[str, str]]:
    return [(key.replace("_", "-"), _knob_text(value)) for key, value in given.items()]


def _bits(array: Any, what: str) -> np.ndarray:
    """An array of 0s and 1s (booleans or numbers) as uint8; other values refused."""
    values = np.asarray(array)
    if values.dtype == np.uint8:
        return np.ascontiguousarray(values)
    if values.dtype != np.bool_ and not np.all((values == 0) | (values == 1)):
        raise ValueError(f"{what} must hold 0s and 1s (or booleans)")
    return np.ascontiguousarray(values, dtype=np.uint8)


def _states(array: Any) -> np.ndarray:
    """Recorded frames as uint8 states; negative or fractional values refused."""
    values = np.asarray(array)
    if values.dtype != np.uint8:
        whole = (values >= 0) & (values <= 255) & (values == np.round(values))
        if values.dtype != np.bool_ and not np.all(whole):
            raise ValueError("frames must hold states 0, 1, 2... (whole numbers from 0)")
        values = values.astype(np.uint8)
    return np.ascontiguousarray(values)


class _Bar:
    """A progress bar (tqdm's, which draws in Jupyter and in a terminal) or a callback."""

    def __init__(self, progress: Progress, unit: str):
        self.callback = progress if callable(progress) else None
        self.drawn = progress is True
        self.unit = unit
        self.bar = None

    def show(self, done: int, total: int, description: str, **postfix: str) -> None:
        """Draws ``done`` of ``total``; a new description starts the bar again."""
        if not self.drawn:
            return
        if self.bar is None:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, unit=self.unit, leave=False, file=sys.stderr)
        if self.bar.desc.rstrip(": ") != description:
            self.bar.reset(total=total)
            self.bar.set_description(description)
        self.bar.update(done - self.bar.n)
        if postfix:
            self.bar.set_postfix(postfix)

    def say(self, line: str) -> None:
        """A line on stderr that leaves the bar whole."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _wait(job: _native.Job, on_events: Callable[[list], bool], bar: _Bar) -> bool:
    """Waits for ``job``, handing its events to ``on_events`` (which returns False to stop
    the job). Ctrl-C (``KeyboardInterrupt``) stops the job after the epoch it is in; a
    second one stops waiting. Returns whether the job was stopped."""
    stopped = False
    while True:
        try:
            events, over = job.poll(_POLL_SECONDS)
            if events and not on_events(events) and not stopped:
                job.stop()
                stopped = True
            if over:
                return stopped
        except KeyboardInterrupt:
            if stopped:
                raise
            job.stop()
            stopped = True
            bar.say("logicars: stopping after this epoch (interrupt again to stop waiting)")


class Model:
    """A trained model: its circuit, its configuration and, when known, its training.

    Load one with :meth:`Model.load` (a model file of ``logicars train``), or take
    ``run.model`` from :func:`train`.
    """

    def __init__(self, native: _native.Model):
        self._native = native

    @classmethod
    def load(cls, path: str | os.PathLike) -> Model:
        """Reads a model file (``FileNotFoundError``, or ``ValueError`` naming the first
        problem and where it is in the file)."""
        return cls(_native.Model.load(os.fspath(path)))

    @classmethod
    def from_json(cls, text: str) -> Model:
        """Reads a model file's text."""
        return cls(_native.Model.from_json(text))

    def save(self, path: str | os.PathLike) -> None:
        """Writes the model file (folders created, written whole or not at all): the same
        bytes ``logicars train`` writes for the same run. A path in the folder of a run
        that is training is refused with an ``OSError`` naming its process."""
        self._native.save(os.fspath(path))

    def to_json(self) -> str:
        """The model file's text."""
        return self._native.to_json()

    @property
    def config(self) -> dict[str, Any]:
        """The model's configuration, as its file holds it."""
        return json.loads(self._native.config_json())

    @property
    def task(self) -> str:
        return self.config["task"]

    @property
    def channels(self) -> int:
        return self.config["channels"]

    @property
    def size(self) -> tuple[int, int]:
        """The training grid's (height, width)."""
        c = self.config
        return (c["height"], c["width"])

    @property
    def steps(self) -> int:
        """The training rollout's steps."""
        return self.config["steps"]

    @property
    def gate_count(self) -> int:
        return self._native.gate_count()

    @property
    def training(self) -> dict[str, Any] | None:
        """Every knob's value in the training that made the model, when known."""
        knobs = self._native.training_knobs()
        return None if knobs is None else dict(knobs)

    @property
    def seed(self) -> int | None:
        """The seed the model's attempt trained from, when known."""
        return self._native.trained_seed()

    def rollout(
        self,
        grid: Any | None = None,
        size: tuple[int, int] | None = None,
        steps: int | None = None,
        seed: int = 0,
        damage: str | tuple[int, int, int, int] | None = None,
    ) -> np.ndarray:
        """Runs the hard circuit and returns every frame: ``(steps + 1, H, W, C)`` uint8.

        ``grid`` is the initial grid ``(H, W, C)`` of 0s and 1s; without it, a fresh grid
        of ``size`` (default: the training size) as the task starts one (random bits from
        ``seed``, or the growing tasks' seed). ``steps`` defaults to the training steps.
        ``damage`` zeroes a centred block: ``"RxC@FIRST..LAST"`` or ``(rows, cols, first,
        last)``, steps inclusive. An asynchronous model's fire masks come from ``seed``.
        The frames equal ``logicars render``'s for the same arguments.
        """
        bits = None if grid is None else _bits(grid, "grid")
        return self._native.rollout(bits, size, steps, seed, damage)

    def eval(
        self,
        grid: Any | None = None,
        batch: int = 8,
        size: tuple[int, int] | None = None,
        steps: int | None = None,
        seed: int = 0,
        soft: bool = False,
        threads: int | None = None,
    ) -> dict[str, float | None]:
        """Scores the model against its task's target after ``steps`` steps, as
        ``logicars eval`` does: ``{"soft_loss", "hard_loss", "accuracy"}`` on ``grid``
        (one ``(H, W, C)`` grid) or on ``batch`` fresh grids of ``size``; the soft loss
        only when ``soft``."""
        bits = None if grid is None else _bits(grid, "grid")
        soft_loss, hard_loss, accuracy = self._native.eval(
            bits, batch, size, steps, seed, soft, threads
        )
        return {"soft_loss": soft_loss, "hard_loss": hard_loss, "accuracy": accuracy}

    def fresh_check(self) -> dict[str, Any]:
        """The check every run ends with, on inputs it never trained on:
        ``{"exact", "accuracy", "grows", "holds", "regrows"}`` (the last three for the
        growing tasks, else None)."""
        exact, accuracy, grows, holds, regrows = self._native.fresh_check()
        return {
            "exact": exact,
            "accuracy": accuracy,
            "grows": grows,
            "holds": holds,
            "regrows": regrows,
        }

    def check(
        self,
        batch: int = 4,
        seed: int = 0,
        block: int = 20,
        robustness_steps: int = 4000,
        threads: int | None = None,
    ) -> list[dict[str, Any]]:
        """The paper's tests (``logicars check``): one dict per test with ``test``,
        ``grid``, ``steps``, ``accuracy`` and ``note``."""
        return json.loads(self._native.check(batch, seed, block, robustness_steps, threads))

    def export(self, format: str = "verilog", unpruned: bool = False) -> str:
        """The circuit of one cell update as text: ``"verilog"`` (a module
        ``logicars_cell``), ``"dot"`` (Graphviz) or ``"json"``; pruned to the gates the
        target channels depend on unless ``unpruned``."""
        return self._native.export(format, unpruned)

    def gates(self) -> dict[str, Any]:
        """What the circuit is made of (``logicars analyze --json``): gate counts per op
        and network, active gates, gates per cell update before and after pruning."""
        return json.loads(self._native.gates())

    def __repr__(self) -> str:
        h, w = self.size
        return (
            f"<logicars.Model {self.task} {h}x{w}, {self.channels} channels, "
            f"{self.steps} steps, {self.gate_count} gates>"
        )

    def to_html(self) -> str:
        """The model as one self-contained HTML page that runs its hard circuit in the
        browser, bit for bit as :meth:`eval` does (``logicars export --format html``)."""
        return self._native.to_html()

    def _repr_html_(self) -> str:
        """In Jupyter, the model shows as its live page, in a frame of its own."""
        page = html.escape(self.to_html(), quote=True)
        return (
            f'<iframe srcdoc="{page}" title="{html.escape(repr(self))}" '
            'style="width: 100%; max-width: 720px; height: 760px; border: 1px solid #ccc">'
            "</iframe>"
        )


class Run:
    """What :func:`train` made: the kept model, every attempt, the epochs' metrics."""

    def __init__(self, task: str, done: dict[str, Any]):
        self.task = task
        #: The model of the best attempt (the exact one, when one is).
        self.model = Model(done["model"])
        #: Every attempt, in order: its seed, epochs, whether it is exact, its accuracy
        #: on the fresh check (``fresh_accuracy``), and more (``docs/python.md``).
        self.attempts: list[dict[str, Any]] = json.loads(done["attempts"])
        #: The epochs' metrics over every attempt, one NumPy array per column:
        #: ``attempt``, ``epoch``, ``soft_loss``, ``hard_loss``, ``accuracy``.
        self.metrics: dict[str, np.ndarray] = dict(done["metrics"])
        #: Whether Ctrl-C (or the progress callback) stopped the run early.
        self.interrupted: bool = done["stopped"]
        #: Why the last attempt stopped early (a loss that became non-finite), if it did.
        self.error: str | None = done["error"]
        #: Seconds from start to end, every attempt counted.
        self.seconds: float = done["seconds"]
        self._kept: int = done["kept"]

    @property
    def kept(self) -> dict[str, Any]:
        """The record of the attempt whose model the run keeps: the exact one, else the
        one most right on the fresh check (of equals the earliest)."""
        return self.attempts[self._kept]

    @property
    def exact(self) -> bool:
        """Whether the kept model is exact: every bit right on inputs it never saw."""
        return bool(self.kept["exact"])

    @property
    def grows(self) -> bool | None:
        """For a growing task: whether the kept model grows its pattern."""
        return self.kept.get("grows")

    @property
    def holds(self) -> bool | None:
        """For a growing task: whether the kept model also holds it, still right at twice
        and four times the steps where it has room (the coloured G: twice, on its grid)."""
        return self.kept.get("holds")

    @property
    def regrows(self) -> bool | None:
        """For a growing task: whether the kept model draws its pattern again after the
        paper's damage (reported; not part of exactness)."""
        return self.kept.get("regrows")

    def metrics_frame(self) -> Any:
        """The metrics as a pandas DataFrame (pandas must be installed)."""
        import pandas

        return pandas.DataFrame(self.metrics)

    def __repr__(self) -> str:
        state = "exact" if self.exact else "not exact"
        if self.interrupted:
            state += ", interrupted"
        return (
            f"<logicars.Run {self.task}: {state}, {len(self.attempts)} attempt(s), "
            f"{self.seconds:.1f} s>"
        )


def train(
    task: str,
    seed: int | None = None,
    threads: int | None = None,
    small: bool = False,
    *,
    full: bool = False,
    target: Any | None = None,
    channels: int | None = None,
    update_layers: Sequence[int] | None = None,
    frames: Any | None = None,
    progress: Progress = True,
    **knobs: Any,
) -> Run:
    """Trains ``task`` as ``logicars train`` does and returns the :class:`Run`.

    ``seed`` defaults to the preset's (as the command's does), ``threads`` to every core;
    the same seed gives the same model for any thread count. ``small`` takes the reduced
    preset. Every knob of :func:`knobs` is a keyword argument, written with underscores
    (``weight_decay=0.1``, ``recipe="paper"``, ``attempts=1``); a value out of its range
    raises ``ValueError`` with the command's words, an unknown knob ``TypeError``.

    A run stops at its first attempt whose kept model is exact (``full=True`` trains every
    epoch of each attempt). ``target`` is the image a growing task grows, as an array of
    0s and 1s: ``(H, W)`` for one channel, ``(H, W, 3)`` for RGB (pattern, colored-g);
    ``channels`` sets a growing task's bits per cell, ``update_layers`` the gates of each
    update layer (the last one per channel).

    The ``rule`` task learns a cellular automaton's rule: ``rule="B36/S23"`` (or
    ``"B2/S/C3"``, ``"wireworld"``, a name such as ``"highlife"``), or the rule of recorded
    ``frames``, an array ``(T, H, W)`` of states 0, 1, 2... (the last fifth of the
    transitions held out for the fresh check).

    ``progress``: True draws a bar (in Jupyter or a terminal), False draws nothing, a
    callable is called with each :class:`Epoch` and stops the run by returning False
    (after the epoch in progress then, an epoch or two after the one it saw).
    Ctrl-C stops the run after the epoch it is in and returns it, its best model kept
    (``run.interrupted`` is then True). Training runs without the GIL.
    """
    bits = None if target is None else _bits(target, "target")
    job, geometry = _native.start_training(
        task,
        seed,
        threads,
        small,
        _knob_settings(knobs),
        full,
        bits,
        channels,
        None if update_layers is None else list(update_layers),
        None if frames is None else _states(frames),
    )
    bar = _Bar(progress, "epoch")
    if geometry is not None and progress is True:
        bar.say(geometry)

    def on_events(events: list) -> bool:
        go_on = True
        for event in events:
            e = Epoch(*event)
            if bar.callback is not None and bar.callback(e) is False:
                go_on = False
        last = Epoch(*events[-1])
        bar.show(
            last.epoch,
            last.epochs,
            f"{task} attempt {last.attempt}",
            hard_loss=f"{last.hard_loss:.0f}",
            accuracy=f"{last.accuracy:.4f}",
        )
        return go_on

    try:
        _wait(job, on_events, bar)
    finally:
        bar.close()
    run = Run(task, job.finish())
    if run.interrupted:
        last = run.attempts[-1]
        print(
            f"logicars: stopped after epoch {last['epochs']} of attempt {last['attempt']}; "
            f"run.model is the best model so far ({'exact' if run.exact else 'not exact'})",
            file=sys.stderr,
        )
    return run


class Sweep:
    """What :func:`sweep` measured: one row per run, and one summary per setting."""

    def __init__(self, task: str, done: dict[str, Any], interrupted: bool):
        self.task = task
        #: One NumPy array (or list) per column, one entry per run: ``setting``,
        #: ``seed``, ``exact``, ``attempts``, ``epochs``, ``epochs_to_exact`` (NaN when
        #: never), ``time_to_exact`` (inf when never), ``wall_s``, ``fresh_accuracy``,
        #: ``grows``, ``holds``, ``regrows``.
        self.runs: dict[str, Any] = dict(done["runs"])
        #: Per setting: runs, exact runs and their 95% interval, attempts and the rate of
        #: one attempt's interval, median and 90th percentile time to exact (None when
        #: more than that share has none), grows, holds and regrows counts.
        self.summary: list[dict[str, Any]] = [dict(s) for s in done["summary"]]
        #: Runs planned; fewer ran when the sweep was interrupted.
        self.planned: int = done["planned"]
        self.interrupted = interrupted

    def runs_frame(self) -> Any:
        """The runs as a pandas DataFrame (pandas must be installed)."""
        import pandas

        return pandas.DataFrame(self.runs)

    def __repr__(self) -> str:
        parts = [f"{s['setting']}: {s['exact']}/{s['runs']} exact" for s in self.summary]
        return f"<logicars.Sweep {self.task}: {'; '.join(parts)}>"


def _settings(sets: dict[str, Iterable[Any]] | None) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every combination of the values of ``sets``, labelled as ``logicars sweep`` labels
    them (``lr=0.1 batch=4``; ``preset`` for none)."""
    if not sets:
        return [("preset", [])]
    keys = [key.replace("_", "-") for key in sets]
    values = [
        [_knob_text(v) for v in (vs if isinstance(vs, (list, tuple)) else [vs])]
        for vs in sets.values()
    ]
    settings = []
    for combination in itertools.product(*values):
        pairs = list(zip(keys, combination))
        settings.append((" ".join(f"{k}={v}" for k, v in pairs), pairs))
    return settings


def sweep(
    task: str,
    seeds: Iterable[int],
    sets: dict[str, Iterable[Any]] | None = None,
    small: bool = False,
    threads: int | None = None,
    *,
    full: bool = False,
    progress: Progress = True,
) -> Sweep:
    """Trains ``task`` from every seed of ``seeds`` with every setting of ``sets``, as
    ``logicars sweep`` does, and returns the table.

    ``sets`` maps knobs to values, one setting per value and every combination of several
    knobs: ``{"recipe": ["paper", "converge"], "lr": [0.05, 0.1]}`` is four settings.
    Several runs train at once on ``threads`` threads (default: every core); each run is
    the same for any thread count. ``progress`` as in :func:`train`, per run
    (:class:`SweepRun`); Ctrl-C lets the runs in progress end and starts no other.
    """
    settings = _settings(sets)
    labels = [label for label, _ in settings]
    seeds = [int(s) for s in seeds]
    job = _native.start_sweep(task, seeds, settings, small, threads, full)
    bar = _Bar(progress, "run")
    runs = len(settings) * len(seeds)
    ended = {"runs": 0, "exact": 0}

    def on_events(events: list) -> bool:
        go_on = True
        for setting, seed, exact, seconds in events:
            r = SweepRun(labels[setting], seed, exact, seconds)
            if bar.callback is not None and bar.callback(r) is False:
                go_on = False
            ended["runs"] += 1
            ended["exact"] += int(exact)
        bar.show(ended["runs"], runs, f"{task} sweep", exact=f"{ended['exact']}/{ended['runs']}")
        return go_on

    try:
        stopped = _wait(job, on_events, bar)
    finally:
        bar.close()
    return Sweep(task, job.finish(), stopped)
