"""Models, presets, knobs and sweeps: the documented shapes, types and values."""

import json
import subprocess
import time

import numpy as np
import pytest

import logicars
from conftest import run_cli


@pytest.fixture(scope="module")
def checkerboard():
    return logicars.train("checkerboard", progress=False)


def test_presets_and_knobs_come_from_the_one_table():
    presets = logicars.presets()
    assert list(presets) == logicars.tasks()
    assert presets["checkerboard"]["epochs"] == 500
    assert logicars.presets(small=True)["checkerboard"]["epochs"] == 400
    knobs = logicars.knobs()
    assert [k["key"] for k in knobs] == list(presets["checkerboard"])
    lr = next(k for k in knobs if k["key"] == "lr")
    assert lr["accepts"] == "a finite number above 0"
    assert lr["defaults"]["checkerboard"][0] == presets["checkerboard"]["lr"]
    assert isinstance(presets["gol"]["recipe"], str)


def test_a_rollout_is_every_frame_as_bits(checkerboard):
    model = checkerboard.model
    frames = model.rollout(size=(32, 24), steps=40, seed=3)
    assert frames.shape == (41, 32, 24, 8) and frames.dtype == np.uint8
    assert set(np.unique(frames)) <= {0, 1}
    np.testing.assert_array_equal(frames, model.rollout(size=(32, 24), steps=40, seed=3))
    # The exact checkerboard: channel 0 of the last frame is 2x2 squares, 0 at the top left.
    rows, cols = np.indices((32, 24))
    np.testing.assert_array_equal(frames[-1, :, :, 0], (rows // 2 + cols // 2) % 2)
    # Given its first frame, the rollout goes the same way.
    again = model.rollout(grid=frames[0], steps=40)
    np.testing.assert_array_equal(again, frames)
    assert model.rollout(grid=frames[0].astype(bool), steps=0).shape == (1, 32, 24, 8)


def test_damage_zeroes_its_block_at_its_steps(checkerboard):
    frames = checkerboard.model.rollout(size=(32, 32), steps=30, damage=(10, 10, 25, 25))
    assert not frames[25, 11:21, 11:21].any()
    assert frames[24, 11:21, 11:21].any()
    same = checkerboard.model.rollout(size=(32, 32), steps=30, damage="10x10@25..25")
    np.testing.assert_array_equal(frames, same)


def test_eval_scores_as_the_command_does(checkerboard, tmp_path, cli):
    model = checkerboard.model
    scores = model.eval(size=(64, 64), steps=80, batch=4, soft=True)
    assert scores["hard_loss"] == 0.0 and scores["accuracy"] == 1.0
    assert isinstance(scores["soft_loss"], float)
    assert model.eval()["soft_loss"] is None
    model.save(tmp_path / "m.json")
    out = run_cli(
        cli,
        "eval",
        "--model",
        str(tmp_path / "m.json"),
        "--size",
        "64x64",
        "--steps",
        "80",
        "--batch",
        "4",
    ).stdout
    assert "hard_loss=0, acc=100.00%" in out


def test_check_export_and_gates_match_the_command(checkerboard, tmp_path, cli):
    model = checkerboard.model
    model.save(tmp_path / "m.json")
    path = str(tmp_path / "m.json")
    for fmt in ("verilog", "dot", "json"):
        assert model.export(fmt) == run_cli(cli, "export", "--model", path, "--format", fmt).stdout
    assert "module logicars_cell" in model.export()
    assert model.gates() == json.loads(run_cli(cli, "analyze", "--model", path, "--json").stdout)
    rows = model.check(robustness_steps=100)
    command = json.loads(
        run_cli(cli, "check", "--model", path, "--robustness-steps", "100", "--json").stdout
    )
    assert rows == [{k: v for k, v in row.items() if k != "model"} for row in command]
    assert all({"test", "grid", "steps", "accuracy", "note"} <= set(r) for r in rows)


def test_a_model_file_reads_and_writes_back_whole(checkerboard, tmp_path):
    model = checkerboard.model
    model.save(tmp_path / "a" / "model.json")
    loaded = logicars.Model.load(tmp_path / "a" / "model.json")
    assert (
        loaded.to_json() == model.to_json() == logicars.Model.from_json(model.to_json()).to_json()
    )
    assert loaded.training == model.training and loaded.training["epochs"] == 500
    assert (loaded.task, loaded.size, loaded.channels, loaded.steps) == (
        "checkerboard",
        (16, 16),
        8,
        20,
    )
    assert loaded.seed == 0 and "3040 gates" in repr(loaded)


def test_a_model_is_not_saved_into_the_folder_of_a_running_run(checkerboard, tmp_path, cli):
    run = tmp_path / "run"
    args = ["train", "checkerboard", "--small", "--epochs", "100000", "--full", "--threads", "1"]
    training = subprocess.Popen(
        [cli, *args, "--no-artefacts", "--save", str(run / "model.json")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        holder = f"process {training.pid} "
        deadline = time.monotonic() + 60
        while not (run / "run.lock").is_file() or not (
            (run / "run.lock").read_text().startswith(holder)
        ):
            assert time.monotonic() < deadline, "the run never took its folder"
            time.sleep(0.01)
        with pytest.raises(OSError, match=f"is in use by {holder}.*running run's folder"):
            checkerboard.model.save(run / "other.json")
        assert not (run / "other.json").exists()
    finally:
        training.kill()
        training.wait()
    checkerboard.model.save(run / "other.json")
    assert (run / "other.json").is_file(), "the folder is free once the run is gone"


def test_a_model_is_its_live_page_in_jupyter(checkerboard, tmp_path, cli):
    path = tmp_path / "m.json"
    checkerboard.model.save(path)
    page = run_cli(cli, "export", "--model", str(path), "--format", "html").stdout
    assert checkerboard.model.to_html() == page
    assert page.startswith("<!doctype html>") and "const MODEL = " in page
    frame = checkerboard.model._repr_html_()
    assert frame.startswith('<iframe srcdoc="&lt;!doctype html&gt;')
    assert "</script>" not in frame, "the page is escaped inside the frame"


def test_a_growing_task_grows_a_target_given_as_an_array():
    target = np.zeros((10, 10), bool)
    target[3:7, 3:7] = True
    run = logicars.train(
        "pattern", small=True, target=target, epochs=30, attempts=1, progress=False
    )
    model = run.model
    # Its farthest cell is 2 from the seed (5, 5): 2 + 2 steps on a grid of 2x4+2 = 10.
    assert (model.size, model.steps) == ((10, 10), 4)
    pattern = model.config["pattern"]
    assert (pattern["height"], pattern["width"], pattern["rgb"]) == (10, 10, False)
    assert pattern["bits"] == target.astype(np.uint8).ravel().tolist()
    assert model.rollout().shape == (5, 10, 10, model.channels)
    assert run.grows is not None and run.holds is not None and run.regrows is not None
    rgb = np.zeros((6, 6, 3), np.uint8)
    rgb[2:4, 2:4, 0] = 1
    model = logicars.train(
        "pattern", small=True, target=rgb, epochs=2, attempts=1, progress=False
    ).model
    assert model.config["target_channels"] == [0, 1, 2]


def test_a_sweep_is_its_runs_as_columns_and_a_summary_per_setting():
    sweep = logicars.sweep(
        "gol", seeds=range(2), sets={"epochs": [50, 300]}, small=True, progress=False
    )
    runs = sweep.runs
    assert runs["setting"] == ["epochs=50", "epochs=50", "epochs=300", "epochs=300"]
    np.testing.assert_array_equal(runs["seed"], [0, 1, 0, 1])
    assert runs["exact"].dtype == np.bool_ and runs["time_to_exact"].dtype == np.float64
    assert [s["setting"] for s in sweep.summary] == ["epochs=50", "epochs=300"]
    assert [s["runs"] for s in sweep.summary] == [2, 2]
    assert sweep.summary[1]["exact"] == int(runs["exact"][2:].sum())
    # Each run is the run `train` makes from its seed and setting.
    alone = logicars.train("gol", seed=1, small=True, epochs=300, progress=False)
    assert bool(runs["exact"][3]) == alone.exact
    assert np.isinf(runs["time_to_exact"][~runs["exact"]]).all()
    assert not sweep.interrupted and sweep.planned == 4
