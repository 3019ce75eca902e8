"""Bad values raise ValueError with the command's words, before any work."""

import numpy as np
import pytest

import logicars


@pytest.mark.parametrize(
    "knobs, words",
    [
        ({"weight_decay": float("nan")}, "weight-decay must be a finite number from 0, got NaN"),
        ({"weight_decay": float("inf")}, "weight-decay must be a finite number from 0, got inf"),
        ({"weight_decay": -5}, "weight-decay must be a finite number from 0, got -5"),
        ({"epsilon": -1}, "epsilon must be a finite number above 0, got -1"),
        ({"epsilon": 0}, "epsilon must be a finite number above 0, got 0"),
        ({"pass_through": float("nan")}, "pass-through must be a finite number from 0, got NaN"),
        ({"lr": "fast"}, "lr: expected a number, got fast"),
        ({"epochs": 1.5}, "epochs: expected a whole number, got 1.5"),
        ({"recipe": "magic"}, "recipe: expected"),
        ({"batch": 0}, "batch"),
    ],
)
def test_a_knob_out_of_range_is_a_value_error_naming_it(knobs, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        logicars.train("checkerboard", progress=False, **knobs)


def test_an_unknown_knob_is_a_type_error_listing_the_knobs():
    with pytest.raises(
        TypeError, match="no knob named 'wieght_decay'; the knobs are .*weight_decay"
    ):
        logicars.train("checkerboard", progress=False, wieght_decay=0.1)


def test_other_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="no task named 'chess'"):
        logicars.train("chess")
    with pytest.raises(ValueError, match="threads must be 1 to"):
        logicars.train("checkerboard", threads=0)
    with pytest.raises(ValueError, match="checkerboard grows a target of no channel"):
        logicars.train("checkerboard", target=np.ones((4, 4), bool))
    with pytest.raises(ValueError, match="must hold 0s and 1s"):
        logicars.train("pattern", target=np.full((4, 4), 2))
    with pytest.raises(ValueError, match="a target must have shape"):
        logicars.train("pattern", target=np.ones((4, 4, 2), bool))
    with pytest.raises(ValueError, match="a target must be 1..=64 pixels"):
        logicars.train("pattern", target=np.ones((65, 4), bool))
    with pytest.raises(ValueError, match="the target has no cell on"):
        logicars.train("pattern", target=np.zeros((16, 16), bool))
    with pytest.raises(ValueError, match="the target has no cell on"):
        logicars.train("lizard", target=np.zeros((16, 16), bool))
    with pytest.raises(ValueError, match="--steps 3 cannot draw the target.*--steps 8 or more"):
        logicars.train("pattern", target=np.ones((16, 16), bool), steps=3)
    with pytest.raises(ValueError, match="colored-g grows a target of 3 channel"):
        logicars.train("colored-g", target=np.ones((8, 8), bool))
    with pytest.raises(ValueError, match="the last update layer must have one gate per channel"):
        logicars.train("checkerboard", update_layers=[64, 64, 16])
    with pytest.raises(ValueError, match="setting lr=-1: lr must be"):
        logicars.sweep("gol", seeds=[0], sets={"lr": [-1]}, progress=False)


def test_sizes_that_allocate_what_was_typed_are_refused_before_allocating():
    with pytest.raises(MemoryError, match="from a pool of 1000000000000 states needs about"):
        logicars.train("pattern", small=True, pool=10**12, progress=False)
    model = logicars.train("gol", small=True, epochs=1, attempts=1, progress=False).model
    with pytest.raises(MemoryError, match="1 grid\\(s\\) of 100000x100000 needs about"):
        model.rollout(size=(100000, 100000))
    with pytest.raises(MemoryError, match="of 100000x100000 needs about"):
        model.eval(size=(100000, 100000), batch=4)
    with pytest.raises(ValueError, match="sizes this large overflow"):
        model.rollout(size=(2**40, 2**40))


def test_a_model_file_that_is_not_one_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="cannot read model file"):
        logicars.Model.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text('{"format": "logicars-model", "version": 1}')
    with pytest.raises(ValueError, match="bad.json: at"):
        logicars.Model.load(tmp_path / "bad.json")


def test_a_rollout_refuses_what_the_model_cannot_run():
    model = logicars.train("gol", small=True, epochs=5, attempts=1, progress=False).model
    with pytest.raises(ValueError, match=r"shape \(height, width, 1\)"):
        model.rollout(grid=np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(ValueError, match="a grid or a size, not both"):
        model.rollout(grid=np.zeros((8, 8, 1), np.uint8), size=(8, 8))
    with pytest.raises(ValueError, match="format must be verilog, dot or json"):
        model.export("vhdl")
    with pytest.raises(ValueError, match="batch must be at least 1"):
        model.eval(batch=0)
