"""train(): the command's run, bit for bit; its metrics and attempts; stopping it."""

import _thread
import os
import signal
import threading
import time

import numpy as np
import pytest

import logicars
from conftest import run_cli


@pytest.mark.parametrize(
    "task, args, knobs",
    [
        ("checkerboard", [], {}),
        (
            "gol",
            ["--small", "--seed", "5"],
            {"small": True, "seed": 5, "epochs": 300, "attempts": 2},
        ),
        (
            "checkerboard",
            ["--small", "--seed", "3"],
            {"small": True, "seed": 3, "recipe": "paper", "lr": 0.05},
        ),
        (
            "checkerboard",
            ["--small", "--update-layers", "48x2,24,12,8"],
            {"small": True, "epochs": 20, "update_layers": [48, 48, 24, 12, 8]},
        ),
    ],
)
def test_a_run_saves_the_bytes_the_command_saves(tmp_path, cli, task, args, knobs):
    flags = list(args)
    for key in ("epochs", "attempts", "recipe", "lr"):
        if key in knobs:
            flags += [f"--{key}", str(knobs[key])]
    run_cli(cli, "train", task, *flags, "--save", str(tmp_path / "cli.json"), "--no-artefacts")
    run = logicars.train(task, progress=False, **knobs)
    run.model.save(tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()


def test_the_same_seed_gives_the_same_model_for_any_thread_count():
    one = logicars.train("checkerboard", seed=7, small=True, threads=1, progress=False)
    two = logicars.train("checkerboard", seed=7, small=True, threads=2, progress=False)
    assert one.model.to_json() == two.model.to_json()
    for column in one.metrics:
        np.testing.assert_array_equal(one.metrics[column], two.metrics[column])


def test_a_run_reports_its_epochs_attempts_and_exactness():
    run = logicars.train("gol", small=True, seed=5, epochs=300, attempts=2, progress=False)
    m = run.metrics
    assert set(m) == {"attempt", "epoch", "soft_loss", "hard_loss", "accuracy"}
    assert len({len(v) for v in m.values()}) == 1
    assert m["epoch"].dtype == np.uint32 and m["hard_loss"].dtype == np.float64
    assert [a["attempt"] for a in run.attempts] == [1, 2]
    assert sum(a["epochs"] for a in run.attempts) == len(m["epoch"])
    assert set(np.unique(m["attempt"])) == {1, 2}
    assert run.exact == any(a["exact"] for a in run.attempts)
    assert run.exact == run.model.fresh_check()["exact"]
    assert not run.interrupted and run.error is None


def test_the_default_checkerboard_is_exact_and_stops_there():
    run = logicars.train("checkerboard", progress=False)
    assert run.exact
    assert run.kept["exact_at"] == run.kept["epochs"] < logicars.presets()["checkerboard"]["epochs"]


def test_a_progress_callback_sees_every_epoch_and_can_stop_the_run():
    seen = []

    def progress(epoch):
        seen.append(epoch)
        return epoch.epoch < 10

    run = logicars.train("checkerboard-async", small=True, full=True, progress=progress)
    assert run.interrupted
    # Every epoch, in order; the callback sees epochs up to a poll (a tenth of a second)
    # after they end, so the run stops that much after the one it refused.
    ran = run.attempts[0]["epochs"]
    assert [e.epoch for e in seen] == list(range(1, ran + 1))
    planned = logicars.presets(small=True)["checkerboard-async"]["epochs"]
    assert 10 <= ran < planned
    assert seen[0].attempt == 1 and seen[0].epochs == planned
    assert len(run.attempts) == 1 and len(run.metrics["epoch"]) == ran
    assert run.model.gate_count > 0


# Seconds an interrupted run may take to return (a poll, its epoch, the fresh check). A
# host whose two cores are busy with other work has taken 0.56 s.
STOPS_WITHIN = 2.0


def interrupted_run(interrupt, task="checkerboard-async"):
    """A run interrupted a second in by `interrupt`, and the seconds it took to return
    after that."""
    sent = []
    timer = threading.Timer(1.0, lambda: (sent.append(time.perf_counter()), interrupt()))
    timer.start()
    run = logicars.train(task, full=True, progress=False)
    returned = time.perf_counter()
    timer.join()
    return run, returned - sent[0]


def test_ctrl_c_stops_the_run_after_its_epoch_and_keeps_its_model(tmp_path):
    """A real SIGINT, as a terminal's Ctrl-C and Jupyter's interrupt send."""
    run, seconds = interrupted_run(lambda: os.kill(os.getpid(), signal.SIGINT))
    assert run.interrupted
    planned = logicars.presets()["checkerboard-async"]["epochs"]
    assert 1 <= run.attempts[-1]["epochs"] < planned
    # The epoch in progress (a few ms) and the fresh check of the model kept: well under
    # a second on a quiet host; the bound leaves room for a loaded one, and is still a
    # small part of the run's planned epochs.
    assert seconds < STOPS_WITHIN, seconds
    run.model.save(tmp_path / "model.json")
    assert logicars.Model.load(tmp_path / "model.json").to_json() == run.model.to_json()


def test_an_interrupt_raised_in_python_stops_the_run_too():
    """KeyboardInterrupt without a signal (`_thread.interrupt_main`), seen at a poll."""
    run, seconds = interrupted_run(_thread.interrupt_main)
    assert run.interrupted
    assert seconds < STOPS_WITHIN, seconds


def test_a_second_interrupt_stops_waiting(monkeypatch):
    """Ctrl-C twice: the second, once the first was taken, raises KeyboardInterrupt."""
    taken = threading.Event()
    say = logicars._Bar.say

    def said(bar, line):
        taken.set()
        say(bar, line)

    monkeypatch.setattr(logicars._Bar, "say", said)

    def twice():
        _thread.interrupt_main()
        # Two interrupts sent before the first is taken are one (Python keeps one flag).
        taken.wait(10.0)
        _thread.interrupt_main()

    with pytest.raises(KeyboardInterrupt):
        interrupted_run(twice, task="lizard")


def test_training_leaves_the_interpreter_free():
    """The GIL is released while training: another Python thread keeps running."""
    done = threading.Event()
    counted = []

    def count():
        n = 0
        while not done.is_set():
            n += 1
        counted.append(n)

    counter = threading.Thread(target=count)
    counter.start()
    start = time.perf_counter()
    logicars.train("checkerboard-async", small=True, full=True, epochs=60, progress=False)
    seconds = time.perf_counter() - start
    done.set()
    counter.join()
    # A thread held off by the GIL would count a few thousand at most.
    assert counted[0] > 100_000 * seconds, (counted, seconds)


def _highlife(side: int, frames: int) -> np.ndarray:
    """``frames`` frames of HighLife (B36/S23) on a torus, from a seeded soup."""
    grid = (np.random.default_rng(4).random((side, side)) < 0.45).astype(np.uint8)
    out = []
    for _ in range(frames):
        out.append(grid)
        n = sum(
            np.roll(np.roll(grid, dr, 0), dc, 1)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr, dc) != (0, 0)
        )
        grid = np.where(grid == 1, np.isin(n, (2, 3)), np.isin(n, (3, 6))).astype(np.uint8)
    return np.array(out)


def test_a_named_rule_and_a_recordings_rule_train_as_the_command_does(tmp_path, cli):
    run = logicars.train("rule", rule="highlife", progress=False)
    assert run.exact
    frames = _highlife(24, 60)
    np.save(tmp_path / "rec.npy", frames)
    run_cli(
        cli,
        "train",
        "rule",
        "--frames",
        str(tmp_path / "rec.npy"),
        "--save",
        str(tmp_path / "cli.json"),
        "--no-artefacts",
    )
    run = logicars.train("rule", frames=frames, progress=False)
    run.model.save(tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    assert '"matches":"B36/S23"' in (tmp_path / "py.json").read_text()


def test_recordings_that_cannot_be_learned_from_are_refused():
    with pytest.raises(ValueError, match="shape"):
        logicars.train("rule", frames=np.ones((4, 16), np.uint8), progress=False)
    with pytest.raises(ValueError, match="at most 4 states"):
        logicars.train("rule", frames=np.full((4, 8, 8), 5, np.uint8), progress=False)
    with pytest.raises(ValueError, match="whole numbers"):
        logicars.train("rule", frames=np.full((4, 8, 8), 0.5), progress=False)
    with pytest.raises(ValueError, match="expected a rule such as B3/S23"):
        logicars.train("rule", rule="B9/S23", progress=False)
