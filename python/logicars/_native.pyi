"""Types of the compiled module; `logicars` (``__init__.py``) is the API to use."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Bits = npt.NDArray[np.uint8]
KnobSettings = Sequence[tuple[str, str]]

def knobs() -> list[dict[str, Any]]: ...
def presets(small: bool = False) -> dict[str, dict[str, Any]]: ...
def start_training(
    task: str,
    seed: int | None = None,
    threads: int | None = None,
    small: bool = False,
    knobs: KnobSettings = (),
    full: bool = False,
    target: Bits | None = None,
    channels: int | None = None,
    update_layers: Sequence[int] | None = None,
    frames: npt.NDArray[np.uint8] | None = None,
) -> tuple[Job, str | None]: ...
def start_sweep(
    task: str,
    seeds: Sequence[int],
    settings: Sequence[tuple[str, KnobSettings]],
    small: bool = False,
    threads: int | None = None,
    full: bool = False,
) -> Job: ...

class Job:
    """A training run or a sweep running on its own thread."""

    def poll(self, timeout: float) -> tuple[list[tuple[Any, ...]], bool]: ...
    def stop(self) -> None: ...
    def finish(self) -> dict[str, Any]: ...

class Model:
    @staticmethod
    def load(path: str) -> Model: ...
    @staticmethod
    def from_json(text: str) -> Model: ...
    def save(self, path: str) -> None: ...
    def to_html(self) -> str: ...
    def to_json(self) -> str: ...
    def config_json(self) -> str: ...
    def training_knobs(self) -> dict[str, Any] | None: ...
    def trained_seed(self) -> int | None: ...
    def gate_count(self) -> int: ...
    def rollout(
        self,
        grid: Bits | None = None,
        size: tuple[int, int] | None = None,
        steps: int | None = None,
        seed: int = 0,
        damage: str | tuple[int, int, int, int] | None = None,
    ) -> Bits: ...
    def eval(
        self,
        grid: Bits | None = None,
        batch: int = 8,
        size: tuple[int, int] | None = None,
        steps: int | None = None,
        seed: int = 0,
        soft: bool = False,
        threads: int | None = None,
    ) -> tuple[float | None, float, float]: ...
    def fresh_check(self) -> tuple[bool, float, bool | None, bool | None, bool | None]: ...
    def check(
        self,
        batch: int = 4,
        seed: int = 0,
        block: int = 20,
        robustness_steps: int = 4000,
        threads: int | None = None,
    ) -> str: ...
    def export(self, format: str, unpruned: bool = False) -> str: ...
    def gates(self) -> str: ...
